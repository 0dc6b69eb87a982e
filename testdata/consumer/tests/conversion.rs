//! Webhook conversion on a real apiserver (CRDGEN_E2E_KUBECONFIG, else envtest): the
//! generated dispatch served by crdgen-runtime's webhook server on loopback (the CRD's
//! `clientConfig` pointed at it), objects written in one version read and listed in the
//! other, and back, with nothing lost.

mod support;

use crdgen_consumer::apis::fleet::{v1, v1alpha1};
use crdgen_consumer::client::apis::convert;
use crdgen_runtime::CancellationToken;
use crdgen_runtime::testing::{cluster, envtest};
use crdgen_runtime::webhook::Webhooks;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

#[tokio::test]
async fn objects_stored_in_one_version_are_read_in_the_other() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("conversion").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "webhook").unwrap();
    let server = Webhooks::new()
        .converter("/convert", convert)
        .bind("127.0.0.1:0".parse().unwrap(), dir.path())
        .await
        .unwrap();
    let port = server.local_addr().unwrap().port();
    let stop = CancellationToken::new();
    let running = tokio::spawn(server.run(stop.clone()));

    // The generated CRD, its webhook's service swapped for the server on loopback.
    let mut crd = support::crds()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some("gears.fleet.example.com"))
        .unwrap();
    let conversion = crd
        .spec
        .conversion
        .as_mut()
        .expect("the CRD converts by webhook");
    assert_eq!(conversion.strategy, "Webhook");
    let webhook = conversion.webhook.as_mut().unwrap();
    let config = webhook.client_config.as_mut().unwrap();
    assert_eq!(
        config.service.as_ref().and_then(|s| s.path.as_deref()),
        Some("/convert")
    );
    config.service = None;
    config.url = Some(format!("https://127.0.0.1:{port}/convert"));
    config.ca_bundle = Some(k8s_openapi::ByteString(ca.into_bytes()));
    cluster::install_crds(&client, &[crd], "conversion-test")
        .await
        .unwrap();

    let old_api: Api<v1alpha1::Gear> = Api::namespaced(client.clone(), "default");
    let hub_api: Api<v1::Gear> = Api::namespaced(client.clone(), "default");
    let mut old = v1alpha1::Gear::new(
        "old",
        v1alpha1::GearSpec {
            teeth: 12,
            material: "steel".into(),
        },
    );
    old.metadata.labels = Some([("made".to_owned(), "v1alpha1".to_owned())].into());
    let created = old_api.create(&PostParams::default(), &old).await.unwrap();
    hub_api
        .create(
            &PostParams::default(),
            &v1::Gear::new(
                "new",
                v1::GearSpec {
                    teeth: 30,
                    build: v1::Build {
                        material: "brass".into(),
                    },
                },
            ),
        )
        .await
        .unwrap();

    // Stored as v1 (the hub), read as both; listed in either version.
    let as_hub = hub_api.get("old").await.unwrap();
    assert_eq!(
        as_hub.spec,
        v1::GearSpec {
            teeth: 12,
            build: v1::Build {
                material: "steel".into()
            }
        }
    );
    assert_eq!(as_hub.metadata.labels, created.metadata.labels);
    assert_eq!(as_hub.metadata.uid, created.metadata.uid);
    let listed_old: Vec<_> = old_api.list(&ListParams::default()).await.unwrap().items;
    let by_name = |name: &str| {
        let gear = listed_old
            .iter()
            .find(|g| g.metadata.name.as_deref() == Some(name))
            .unwrap();
        (gear.spec.teeth, gear.spec.material.clone())
    };
    assert_eq!(by_name("new"), (30, "brass".to_owned()));
    assert_eq!(by_name("old"), (12, "steel".to_owned()));
    assert_eq!(
        hub_api
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        2
    );

    // Back again: an update through v1alpha1 of what was written as v1 loses nothing.
    let mut back = old_api.get("new").await.unwrap();
    back.spec.teeth = 31;
    old_api
        .replace("new", &PostParams::default(), &back)
        .await
        .unwrap();
    let new_as_hub = hub_api.get("new").await.unwrap();
    assert_eq!(
        new_as_hub.spec,
        v1::GearSpec {
            teeth: 31,
            build: v1::Build {
                material: "brass".into()
            }
        }
    );

    // A conversion the dispatch refuses fails the request with its message.
    let raw = serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "1", "desiredAPIVersion": "fleet.example.com/v9",
                    "objects": [json!({"apiVersion": "fleet.example.com/v1", "kind": "Gear", "metadata": {"name": "x"}, "spec": {"teeth": 1, "build": {"material": "m"}}})]}
    }))
    .unwrap();
    let reply = Webhooks::new()
        .converter("/convert", convert)
        .call("/convert", &raw)
        .await;
    let answer: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert!(
        answer["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("v9")
    );

    for name in ["old", "new"] {
        let _ = hub_api.delete(name, &DeleteParams::default()).await;
    }
    cluster::uninstall_crds(&client, ["gears.fleet.example.com"])
        .await
        .unwrap();
    stop.cancel();
    running.await.unwrap().unwrap();
}
