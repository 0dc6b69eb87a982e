//! Every CRD of the crds testdata case is applied to a real apiserver
//! (CRDGEN_E2E_KUBECONFIG, else envtest) and becomes Established; for each validation
//! marker an object breaking it is rejected while a valid one is accepted, defaulted and
//! pruned (as server-side dry runs). The in-memory server, given the same CRDs, must
//! answer the same, but for the differences it documents.

mod common;

use crdgen_runtime::testing::{ApiServer, cluster};
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

/// Markers the in-memory server does not enforce (documented in its module docs): CEL
/// rules are not evaluated there.
const NOT_IN_MEMORY: &[&str] = &["XValidation"];

/// The valid object (with an unknown field), then one object per marker, each as a
/// server-side dry run: the defaulted and pruned valid object, and the markers whose
/// object was accepted.
async fn dry_runs(api: &Api<DynamicObject>, resource: &ApiResource) -> (Value, Vec<String>) {
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let object = |spec: Value| {
        let mut o = DynamicObject::new("check", resource);
        o.data = json!({ "spec": spec });
        o
    };
    let mut with_unknown = valid();
    with_unknown["unknown"] = json!("pruned");
    let mut valid_object = object(with_unknown);
    valid_object.data["unknownTopLevel"] = json!(1);
    let admitted = match api.create(&dry_run, &valid_object).await {
        Ok(o) => o.data,
        Err(e) => json!({ "refused": e.to_string() }),
    };
    let mut accepted = Vec::new();
    for (marker, spec) in invalid() {
        match api.create(&dry_run, &object(spec)).await {
            Err(kube::Error::Api(status)) if status.code == 422 => {}
            other => accepted.push(format!("{marker}: {other:?}")),
        }
    }
    (admitted, accepted)
}

/// What both servers must have done to the valid object: defaults filled in (at the
/// top and inside list items), unknown fields pruned.
fn assert_defaulted_and_pruned(admitted: &Value) {
    let spec = &admitted["spec"];
    assert_eq!(spec["weight"], json!(5), "{admitted}");
    assert_eq!(
        spec["fallback"],
        json!({"name": "http", "port": 80, "protocol": "TCP"})
    );
    assert_eq!(spec["ports"][0]["protocol"], json!("TCP"));
    assert!(spec.get("unknown").is_none(), "pruned: {admitted}");
    assert!(
        admitted.get("unknownTopLevel").is_none(),
        "pruned: {admitted}"
    );
    assert_eq!(spec["raw"], json!({"anything": [1, 2]}), "preserved");
}

fn validated() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("markers.crdgen.dev", "v1", "Validated"),
        "validateds",
    )
}

/// The same checks against the in-memory server, with the generated CRDs registered.
#[tokio::test]
async fn the_in_memory_server_enforces_the_same_markers() {
    let server = ApiServer::new();
    for crd in generated_crds() {
        server.register_crd(&crd);
    }
    let resource = validated();
    let api = Api::namespaced_with(server.client(), "test", &resource);
    let (admitted, accepted) = dry_runs(&api, &resource).await;
    assert_defaulted_and_pruned(&admitted);
    let accepted: Vec<&str> = accepted
        .iter()
        .map(|a| a.split(':').next().unwrap())
        .collect();
    assert_eq!(accepted, NOT_IN_MEMORY, "only the documented differences");
}

#[tokio::test]
async fn generated_crds_are_accepted_and_enforce_their_markers() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("crds_e2e").await else {
        return;
    };
    let version = client.apiserver_version().await.unwrap();
    let minor: u32 = version.minor.trim_end_matches('+').parse().unwrap();
    let mut generated = generated_crds();
    // selectableFields exists from Kubernetes 1.30; an older apiserver refuses the field.
    if minor < 30 {
        generated.retain(|crd| {
            let uses = crd.spec.versions.iter().any(|v| v.selectable_fields.is_some());
            if uses {
                // Past the harness's capture, so the run's log says what was left out.
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "crds_e2e: {} not installed: selectableFields needs Kubernetes 1.30, the server is {}",
                    crd.metadata.name.as_deref().unwrap(),
                    version.git_version
                );
            }
            !uses
        });
    }
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

    let resource = validated();
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), &namespace, &resource);
    // Collect the outcome first, clean up, then report: a failure must not leave the
    // CRDs behind.
    let (admitted, accepted) = dry_runs(&api, &resource).await;
    let _ = namespaces
        .delete(&namespace, &DeleteParams::default())
        .await;
    let uninstalled = cluster::uninstall_crds(&client, names.iter().copied()).await;
    assert_defaulted_and_pruned(&admitted);
    uninstalled.expect("removing the generated CRDs");
    assert!(
        accepted.is_empty(),
        "objects breaking these markers were not rejected: {accepted:#?}"
    );
}
