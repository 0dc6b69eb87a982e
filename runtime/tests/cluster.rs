//! `testing::cluster` against the in-memory API server, with a task standing in for
//! the apiextensions controller: it marks applied CRDs Established and, a moment later,
//! serves their resources; a CRD being deleted goes only when the test removes its
//! finalizer.

use std::time::Duration;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::json;

const NAME: &str = "probes.e2e.crdgen.dev";

fn crd(finalizers: &[&str]) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME, "finalizers": finalizers},
        "spec": {
            "group": "e2e.crdgen.dev",
            "names": {"kind": "Probe", "plural": "probes"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]
        }
    }))
    .unwrap()
}

/// What the apiextensions controller does for these tests: sets `Established` on every
/// CRD that lacks it and serves its resource `serve_after` later, until the test ends.
fn establish_crds(
    server: ApiServer,
    api: Api<CustomResourceDefinition>,
    serve_after: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            for crd in api.list(&Default::default()).await.unwrap() {
                if crd.status.is_none() {
                    let server = server.clone();
                    let served = crd.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(serve_after).await;
                        server.register_crd(&served);
                    });
                    let status = json!({"status": {"conditions": [
                        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                         "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}
                    ]}});
                    let name = crd.metadata.name.as_deref().unwrap();
                    let _ = api
                        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
                        .await;
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

fn server() -> (ApiServer, kube::Client, Api<CustomResourceDefinition>) {
    let server = ApiServer::new();
    server.register_with_status::<CustomResourceDefinition>();
    let client = server.client();
    (server, client.clone(), Api::all(client))
}

fn established(crd: &CustomResourceDefinition) -> bool {
    let conditions = crd.status.as_ref().and_then(|s| s.conditions.as_ref());
    conditions
        .into_iter()
        .flatten()
        .any(|c| c.type_ == "Established" && c.status == "True")
}

#[tokio::test]
async fn install_returns_once_the_crd_is_established_and_served() {
    let (server, client, api) = server();
    let controller = establish_crds(server, api.clone(), Duration::from_millis(100));
    cluster::install_crds(&client, &[crd(&[])], "test")
        .await
        .unwrap();
    assert!(established(&api.get(NAME).await.unwrap()));
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("e2e.crdgen.dev", "v1", "Probe"),
        "probes",
    );
    let probes: Api<DynamicObject> = Api::all_with(client, &resource);
    probes
        .list(&Default::default())
        .await
        .expect("served when install returns");
    controller.abort();
}

#[tokio::test]
async fn install_waits_out_a_crd_still_terminating() {
    let (server, client, api) = server();
    let old = api
        .create(&PostParams::default(), &crd(&["test/hold"]))
        .await
        .unwrap();
    api.delete(NAME, &DeleteParams::default()).await.unwrap();
    let controller = establish_crds(server, api.clone(), Duration::ZERO);
    let install = tokio::spawn({
        let client = client.clone();
        async move { cluster::install_crds(&client, &[crd(&[])], "test").await }
    });
    // The old CRD goes only when its finalizer is removed; install must not have
    // applied to it meanwhile.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let release = json!({"metadata": {"finalizers": null}});
    api.patch(NAME, &PatchParams::default(), &Patch::Merge(&release))
        .await
        .unwrap();
    install.await.unwrap().unwrap();
    let installed = api.get(NAME).await.unwrap();
    assert_ne!(installed.metadata.uid, old.metadata.uid);
    assert!(installed.metadata.deletion_timestamp.is_none());
    assert!(established(&installed));
    controller.abort();
}

#[tokio::test]
async fn uninstall_waits_until_the_crd_is_gone_and_skips_missing_ones() {
    let (_, client, api) = server();
    api.create(&PostParams::default(), &crd(&["test/hold"]))
        .await
        .unwrap();
    let uninstall = tokio::spawn({
        let client = client.clone();
        async move { cluster::uninstall_crds(&client, ["absent.e2e.crdgen.dev", NAME]).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!uninstall.is_finished(), "returned while the CRD was held");
    let release = json!({"metadata": {"finalizers": null}});
    api.patch(NAME, &PatchParams::default(), &Patch::Merge(&release))
        .await
        .unwrap();
    uninstall.await.unwrap().unwrap();
    assert!(api.get_opt(NAME).await.unwrap().is_none());
}

#[tokio::test]
async fn the_in_memory_server_says_the_version_it_answers_as() {
    let (_, client, _) = server();
    let version = cluster::server_version(&client).await;
    assert_eq!(
        version.minor,
        u32::from(crdgen_runtime::crd::KUBERNETES_MINOR)
    );
    assert!(version.has(cluster::CrdFeature::SelectableFields));
    assert!(version.git_version.starts_with("v1."));
}

#[tokio::test]
async fn a_default_version_gives_way_to_the_one_the_server_is_told() {
    // What a generated clientset's `in_memory` does: the version it was generated for,
    // unless the test told the server another.
    let server = ApiServer::new();
    server.default_kubernetes_minor(33);
    assert_eq!(cluster::server_version(&server.client()).await.minor, 33);
    let told = ApiServer::new().kubernetes_minor(30);
    told.default_kubernetes_minor(33);
    assert_eq!(cluster::server_version(&told.client()).await.minor, 30);
}
