//! The in-memory API server's less common paths, through kube's client: the core
//! group, CRD registration, dry runs, refused patches, delete preconditions, initial
//! events and watch timeouts. The generated clientset's suite covers the rest.

use std::collections::BTreeMap;

use crdgen_runtime::testing::ApiServer;
use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions,
    WatchEvent, WatchParams,
};
use serde_json::json;

fn config_map(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some(BTreeMap::from([("k".to_owned(), "v".to_owned())])),
        ..Default::default()
    }
}

fn code(err: kube::Error) -> u16 {
    match err {
        kube::Error::Api(status) => status.code,
        other => panic!("expected an API error, got {other}"),
    }
}

fn server_with_config_maps() -> (ApiServer, Api<ConfigMap>) {
    let server = ApiServer::new();
    server.register::<ConfigMap>();
    let api = Api::namespaced(server.client(), "ns");
    (server, api)
}

#[tokio::test]
async fn core_group_dry_runs_and_namespace_checks() {
    let (_server, api) = server_with_config_maps();
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    api.create(&dry, &config_map("dry")).await.unwrap();
    assert!(
        api.get_opt("dry").await.unwrap().is_none(),
        "a dry run stores nothing"
    );

    let created = api
        .create(&PostParams::default(), &config_map("cm"))
        .await
        .unwrap();
    assert_eq!(created.namespace().as_deref(), Some("ns"));
    let mut elsewhere = config_map("moved");
    elsewhere.metadata.namespace = Some("other".into());
    assert_eq!(
        code(
            api.create(&PostParams::default(), &elsewhere)
                .await
                .unwrap_err()
        ),
        400
    );
}

#[tokio::test]
async fn patches_the_apiserver_refuses() {
    let (server, api) = server_with_config_maps();
    api.create(&PostParams::default(), &config_map("cm"))
        .await
        .unwrap();
    let strategic = Patch::Strategic(json!({"data": {"k": "w"}}));
    assert_eq!(
        code(
            api.patch("cm", &PatchParams::default(), &strategic)
                .await
                .unwrap_err()
        ),
        415
    );
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/data/k", "value": "nope"}]))
            .unwrap();
    assert_eq!(
        code(
            api.patch("cm", &PatchParams::default(), &Patch::<()>::Json(failing))
                .await
                .unwrap_err()
        ),
        422
    );

    // Apply without a field manager: kube refuses to build it, so send it raw.
    let request = http::Request::patch("/api/v1/namespaces/ns/configmaps/cm")
        .header(http::header::CONTENT_TYPE, "application/apply-patch+yaml")
        .body(serde_json::to_vec(&config_map("cm")).unwrap())
        .unwrap();
    let err = server
        .client()
        .request::<ConfigMap>(request)
        .await
        .unwrap_err();
    assert_eq!(code(err), 422);
}

#[tokio::test]
async fn delete_preconditions() {
    let (_server, api) = server_with_config_maps();
    let created = api
        .create(&PostParams::default(), &config_map("cm"))
        .await
        .unwrap();
    let wrong = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    assert_eq!(code(api.delete("cm", &wrong).await.unwrap_err()), 409);
    let right = DeleteParams {
        preconditions: Some(Preconditions {
            uid: created.uid(),
            resource_version: created.resource_version(),
        }),
        ..Default::default()
    };
    api.delete("cm", &right).await.unwrap();
    assert!(api.get_opt("cm").await.unwrap().is_none());
}

#[tokio::test]
async fn resources_from_a_crd() {
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Foo", "plural": "foos", "singular": "foo", "listKind": "FooList"},
            "scope": "Cluster",
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap();
    let server = ApiServer::new();
    server.register_crd(&crd);
    let resource = ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk("example.com", "v1", "Foo"),
        "foos",
    );
    let api: Api<DynamicObject> = Api::all_with(server.client(), &resource);
    let mut foo = DynamicObject::new("a", &resource);
    foo.data = json!({"spec": {"x": 1}, "status": {"ready": true}});
    let created = api.create(&PostParams::default(), &foo).await.unwrap();
    assert_eq!(created.data["spec"]["x"], 1);
    assert!(
        created.data.get("status").is_none(),
        "status is written through /status only"
    );
    assert_eq!(created.metadata.namespace, None);
}

#[tokio::test]
async fn the_scale_subresource_of_a_crd() {
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "bars.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Bar", "plural": "bars"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "subresources": {"status": {}, "scale": {
                              "specReplicasPath": ".spec.replicas",
                              "statusReplicasPath": ".status.replicas",
                              "labelSelectorPath": ".status.selector"}},
                          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap();
    let server = ApiServer::new();
    server.register_crd(&crd);
    let resource = ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk("example.com", "v1", "Bar"),
        "bars",
    );
    let api: Api<DynamicObject> = Api::namespaced_with(server.client(), "ns", &resource);
    let mut bar = DynamicObject::new("b", &resource);
    bar.data = json!({"spec": {"replicas": 2, "image": "x"}});
    api.create(&PostParams::default(), &bar).await.unwrap();
    let status = json!({"status": {"replicas": 1, "selector": "app=b"}});
    api.patch_status("b", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();

    let scale = api.get_scale("b").await.unwrap();
    assert_eq!(scale.spec.as_ref().unwrap().replicas, Some(2));
    let seen = scale.status.as_ref().unwrap();
    assert_eq!(
        (seen.replicas, seen.selector.as_deref()),
        (1, Some("app=b"))
    );
    assert_eq!(scale.metadata.name.as_deref(), Some("b"));

    // A patch of the Scale changes the object's spec replicas and nothing else.
    let patch = json!({"spec": {"replicas": 5}});
    let scaled = api
        .patch_scale("b", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(scaled.spec.unwrap().replicas, Some(5));
    let object = api.get("b").await.unwrap();
    assert_eq!(object.data["spec"], json!({"replicas": 5, "image": "x"}));
    assert_eq!(object.metadata.generation, Some(2));

    // Replacing it checks the resourceVersion it carries.
    let mut stale = scale.clone();
    stale.spec = Some(k8s_openapi::api::autoscaling::v1::ScaleSpec { replicas: Some(3) });
    assert_eq!(
        code(
            api.replace_scale("b", &PostParams::default(), &stale)
                .await
                .unwrap_err()
        ),
        409
    );
    let mut current = api.get_scale("b").await.unwrap();
    current.spec = Some(k8s_openapi::api::autoscaling::v1::ScaleSpec { replicas: Some(3) });
    let replaced = api
        .replace_scale("b", &PostParams::default(), &current)
        .await
        .unwrap();
    assert_eq!(replaced.spec.unwrap().replicas, Some(3));
    assert_eq!(api.get("b").await.unwrap().data["spec"]["replicas"], 3);
    current.spec = Some(k8s_openapi::api::autoscaling::v1::ScaleSpec { replicas: Some(-1) });
    current.metadata.resource_version = None;
    assert_eq!(
        code(
            api.replace_scale("b", &PostParams::default(), &current)
                .await
                .unwrap_err()
        ),
        422
    );

    // A resource without the subresource has no /scale, as on a cluster.
    let (_, config_maps) = server_with_config_maps();
    config_maps
        .create(&PostParams::default(), &config_map("c"))
        .await
        .unwrap();
    assert_eq!(code(config_maps.get_scale("c").await.unwrap_err()), 404);
}

#[tokio::test(start_paused = true)]
async fn initial_events_and_timeouts() {
    let (_server, api) = server_with_config_maps();
    api.create(&PostParams::default(), &config_map("a"))
        .await
        .unwrap();
    api.create(&PostParams::default(), &config_map("b"))
        .await
        .unwrap();

    let wp = WatchParams::default().initial_events().timeout(5);
    let events: Vec<_> = api.watch(&wp, "").await.unwrap().collect().await;
    let events: Vec<WatchEvent<ConfigMap>> = events.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        events.len(),
        3,
        "two initial ADDED events and a bookmark, then the timeout ends the watch"
    );
    assert!(matches!(&events[0], WatchEvent::Added(c) if c.name_any() == "a"));
    assert!(matches!(&events[1], WatchEvent::Added(c) if c.name_any() == "b"));
    let WatchEvent::Bookmark(bookmark) = &events[2] else {
        panic!("{:?}", events[2])
    };
    assert_eq!(
        bookmark
            .metadata
            .annotations
            .get("k8s.io/initial-events-end")
            .map(String::as_str),
        Some("true")
    );
}

#[tokio::test]
async fn a_listening_server_answers_clients_of_its_kubeconfig_until_dropped() {
    let (server, local) = server_with_config_maps();
    let listening = server.listen().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    listening.write_kubeconfig(&path).unwrap();
    // As a program finds it: read from the file, the current context.
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).unwrap();
    // The file holds the kubeconfig `kubeconfig()` gives.
    let given = listening.kubeconfig();
    assert_eq!(given.current_context, kubeconfig.current_context);
    let server = |k: &kube::config::Kubeconfig| {
        k.clusters[0]
            .cluster
            .as_ref()
            .and_then(|c| c.server.clone())
    };
    assert_eq!(server(&given), Some(listening.url()));
    assert_eq!(server(&kubeconfig), Some(listening.url()));
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    assert_eq!(config.default_namespace, "default");
    let client = kube::Client::try_from(config).unwrap();
    let remote: Api<ConfigMap> = Api::namespaced(client.clone(), "ns");

    // A watch streams over the connection as events happen.
    let mut events = remote
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    local
        .create(&PostParams::default(), &config_map("a"))
        .await
        .unwrap();
    loop {
        match events.next().await {
            Some(Ok(WatchEvent::Bookmark(_))) => continue,
            Some(Ok(WatchEvent::Added(cm))) => break assert_eq!(cm.name_any(), "a"),
            other => panic!("expected the ADDED event, got {other:?}"),
        }
    }
    // Writes through it land in the same store; errors come back as their Status.
    let mut changed = remote.get("a").await.unwrap();
    changed.data = Some(BTreeMap::from([("k".to_owned(), "w".to_owned())]));
    remote
        .replace("a", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_eq!(local.get("a").await.unwrap().data, changed.data);
    assert_eq!(code(remote.get("missing").await.unwrap_err()), 404);

    drop(events);
    drop(listening);
    let mut stopped = false;
    for _ in 0..100 {
        if remote.get("a").await.is_err() {
            stopped = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(
        stopped,
        "the server still answers after its Listening was dropped"
    );
}
