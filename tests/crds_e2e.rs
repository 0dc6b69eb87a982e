//! With CRDGEN_E2E_KUBECONFIG naming a kubeconfig: every CRD of the crds testdata case
//! is applied to the cluster and becomes Established, and for each validation marker an
//! object breaking it is rejected while a valid one is accepted (as server-side dry
//! runs). Skipped, saying so, without the variable.

mod common;

use crdgen_runtime::testing::cluster;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

fn generated_crds() -> Vec<CustomResourceDefinition> {
    let files = common::generate_files(&common::case("crds").options());
    files
        .iter()
        .filter(|(p, _)| p.ends_with(".yaml"))
        .map(|(_, text)| serde_yaml_ng::from_str(text).unwrap())
        .collect()
}

fn valid() -> Value {
    json!({
        "minReplicas": 2, "ratio": 1.0, "name": "web", "policy": "Always", "level": 1,
        "contact": "ops@example.com", "tags": ["a"], "args": [],
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
        "selector": {"app": "web"}, "primary": {"name": "p", "port": 1}, "maxSurge": "25%",
        "raw": {"anything": [1, 2]},
        "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}},
        "resource": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "r"}},
        "since": "2026-01-01T00:00:00Z", "owner": "ops", "team": "core"
    })
}

/// One object per validation marker, each breaking only that marker.
fn invalid() -> Vec<(&'static str, Value)> {
    let with = |key: &str, value: Value| {
        let mut spec = valid();
        spec[key] = value;
        spec
    };
    let mut without_owner = valid();
    without_owner.as_object_mut().unwrap().remove("owner");
    vec![
        ("Minimum", with("minReplicas", json!(0))),
        ("ExclusiveMaximum", with("minReplicas", json!(10))),
        ("MultipleOf", with("minReplicas", json!(3))),
        ("ExclusiveMinimum", with("ratio", json!(0.5))),
        ("MinLength", with("name", json!(""))),
        ("MaxLength", with("name", json!("a".repeat(64)))),
        ("Pattern", with("name", json!("Web"))),
        ("XValidation", with("name", json!("forbidden"))),
        ("Enum (strings)", with("policy", json!("Sometimes"))),
        ("Enum (integers)", with("level", json!(4))),
        ("Format email", with("contact", json!("not an address"))),
        ("MinItems", with("tags", json!([]))),
        (
            "MaxItems",
            with("tags", json!(["a", "b", "c", "d", "e", "f"])),
        ),
        ("listType=set", with("tags", json!(["a", "a"]))),
        ("items:Pattern", with("tags", json!(["A"]))),
        ("items:MaxLength", with("tags", json!(["abcdefghijk"]))),
        (
            "listType=map",
            with(
                "ports",
                json!([{"name": "http", "port": 80, "protocol": "TCP"}, {"name": "http", "port": 81, "protocol": "TCP"}]),
            ),
        ),
        ("MinProperties", with("selector", json!({}))),
        (
            "MaxProperties",
            with("selector", json!({"a": "1", "b": "2", "c": "3", "d": "4"})),
        ),
        (
            "nested Minimum",
            with("primary", json!({"name": "p", "port": 0})),
        ),
        ("Format date-time", with("since", json!("yesterday"))),
        ("XIntOrString", with("maxSurge", json!(true))),
        (
            "XEmbeddedResource",
            with("template", json!({"metadata": {"name": "no-kind"}})),
        ),
        ("required", without_owner),
    ]
}

#[tokio::test]
async fn generated_crds_are_accepted_and_enforce_their_markers() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("crds_e2e").await else {
        return;
    };
    let generated = generated_crds();
    let names: Vec<&str> = generated
        .iter()
        .map(|crd| crd.metadata.name.as_deref().unwrap())
        .collect();
    if let Err(e) = cluster::install_crds(&client, &generated, "crdgen-e2e").await {
        let _ = cluster::uninstall_crds(&client, names.iter().copied()).await;
        panic!("installing the generated CRDs: {e}");
    }
    let namespace = format!(
        "crdgen-crds-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns_object = serde_json::from_value(json!({"metadata": {"name": namespace}})).unwrap();
    namespaces
        .create(&PostParams::default(), &ns_object)
        .await
        .unwrap();

    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("markers.crdgen.dev", "v1", "Validated"),
        "validateds",
    );
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), &namespace, &resource);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let object = |spec: Value| {
        let mut o = DynamicObject::new("check", &resource);
        o.data = json!({ "spec": spec });
        o
    };
    // Collect the outcome first, clean up, then report: a failure must not leave the
    // CRDs behind.
    let valid_outcome = api.create(&dry_run, &object(valid())).await.map(drop);
    let mut accepted = Vec::new();
    for (marker, spec) in invalid() {
        match api.create(&dry_run, &object(spec)).await {
            Err(kube::Error::Api(status)) if status.code == 422 => {}
            other => accepted.push(format!("{marker}: {other:?}")),
        }
    }
    let _ = namespaces
        .delete(&namespace, &DeleteParams::default())
        .await;
    let uninstalled = cluster::uninstall_crds(&client, names.iter().copied()).await;
    valid_outcome.expect("the valid object is accepted");
    uninstalled.expect("removing the generated CRDs");
    assert!(
        accepted.is_empty(),
        "objects breaking these markers were not rejected: {accepted:#?}"
    );
}
