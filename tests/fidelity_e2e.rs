//! Kubernetes' own types in a CRD, on a server: the fidelity kind's CRD (54 embedded
//! types, testdata/fidelity) is accepted; an object whose Job template breaks a list-map
//! key's uniqueness or a Quantity pattern is refused; and two field managers applying
//! different containers of one pod template through server-side apply both keep theirs
//! (the containers list is a map keyed by name). The same checks run against the
//! in-memory server and a real apiserver (CRDGEN_E2E_KUBECONFIG, else envtest).

mod common;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::{Value, json};

fn embeds_crd() -> CustomResourceDefinition {
    // Descriptions make no difference here, and the CRD is a fifth of the size without.
    let text = common::testdata_crd(
        "fidelity",
        "oracle:v1",
        "oracle.example.com_embeds.yaml",
        |opts| {
            opts.max_description_len = Some(0);
        },
    );
    serde_yaml_ng::from_str(&text).unwrap()
}

fn embeds() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("oracle.example.com", "v1", "Embeds"),
        "embeds",
    )
}

fn object(name: &str, spec: Value) -> DynamicObject {
    let mut o = DynamicObject::new(name, &embeds());
    o.data = json!({ "spec": spec });
    o
}

fn container(name: &str, image: &str) -> Value {
    json!({"name": name, "image": image})
}

/// A spec whose Job template runs `containers`.
fn job(containers: Vec<Value>) -> Value {
    json!({"jobTemplateSpec": {"spec": {"template": {"spec": {
        "containers": containers, "restartPolicy": "Never"
    }}}}})
}

/// The checks, each answered as both servers must answer it; what differs is returned.
async fn checks(api: &Api<DynamicObject>) -> Vec<String> {
    let mut wrong = Vec::new();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let refused = |result: Result<DynamicObject, kube::Error>| match result {
        Err(kube::Error::Api(status)) if status.code == 422 => None,
        other => Some(format!("{other:?}")),
    };

    let valid = job(vec![container("a", "x"), container("b", "y")]);
    if let Err(e) = api.create(&dry_run, &object("valid", valid)).await {
        wrong.push(format!("a valid Job template was refused: {e}"));
    }
    let twice = job(vec![container("a", "x"), container("a", "y")]);
    if let Some(answer) = refused(api.create(&dry_run, &object("twice", twice)).await) {
        wrong.push(format!("two containers named `a` were accepted: {answer}"));
    }
    let mut lots = container("a", "x");
    lots["resources"] = json!({"limits": {"cpu": "lots"}});
    if let Some(answer) = refused(api.create(&dry_run, &object("lots", job(vec![lots]))).await) {
        wrong.push(format!("a cpu limit of `lots` was accepted: {answer}"));
    }

    // Two managers, one container each, in one pod template.
    let template = |c: Value| {
        json!({
            "apiVersion": "oracle.example.com/v1", "kind": "Embeds",
            "metadata": {"name": "shared"},
            "spec": {"podTemplateSpec": {"spec": {"containers": [c]}}}
        })
    };
    for (manager, c) in [
        ("operator", container("app", "app:1")),
        ("user", container("sidecar", "proxy:1")),
    ] {
        let applied = api
            .patch(
                "shared",
                &PatchParams::apply(manager),
                &Patch::Apply(template(c)),
            )
            .await;
        if let Err(e) = applied {
            wrong.push(format!("{manager}'s apply failed: {e}"));
        }
    }
    match api.get("shared").await {
        Ok(shared) => {
            let names: Vec<&str> = shared.data["spec"]["podTemplateSpec"]["spec"]["containers"]
                .as_array()
                .map(|cs| cs.iter().filter_map(|c| c["name"].as_str()).collect())
                .unwrap_or_default();
            if names != ["app", "sidecar"] {
                wrong.push(format!("after both applies the containers are {names:?}"));
            }
        }
        Err(e) => wrong.push(format!("reading the applied object: {e}")),
    }
    // The operator applies its container anew: the user's stays.
    let again = api
        .patch(
            "shared",
            &PatchParams::apply("operator"),
            &Patch::Apply(template(container("app", "app:2"))),
        )
        .await;
    match again {
        Ok(shared) => {
            let containers = &shared.data["spec"]["podTemplateSpec"]["spec"]["containers"];
            if *containers != json!([container("app", "app:2"), container("sidecar", "proxy:1")]) {
                wrong.push(format!("after the operator's second apply: {containers}"));
            }
        }
        Err(e) => wrong.push(format!("the operator's second apply failed: {e}")),
    }
    wrong
}

#[tokio::test]
async fn the_in_memory_server_answers_as_the_apiserver() {
    let server = ApiServer::new();
    server.register_crd(&embeds_crd());
    let api = Api::namespaced_with(server.client(), "test", &embeds());
    let wrong = checks(&api).await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn the_apiserver_accepts_the_crd_and_enforces_the_go_markers() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("fidelity_e2e").await else {
        return;
    };
    let installed = common::Installed::new(&client, &[embeds_crd()], "crdgen-fidelity").await;
    let api = Api::namespaced_with(client.clone(), &installed.namespace, &embeds());
    // Collect first, clean up, then report: a failure must not leave the CRD behind.
    let wrong = checks(&api).await;
    installed.remove().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn fixture_crd() -> CustomResourceDefinition {
    let text = common::testdata_crd(
        "markers",
        "fixture:v1",
        "fixture.crdgen.dev_fixtures.yaml",
        |_| {},
    );
    serde_yaml_ng::from_str(&text).unwrap()
}

fn fixture_spec() -> Value {
    json!({
        "documented": {"name": "d"}, "exactlyOne": {"http": "h"}, "atMostOne": {},
        "atLeastOne": {"email": "e"}, "declared": {"name": "n"}, "keyed": [],
        "frozen": {"port": 1}, "level": "Low", "bounded": "long enough", "checked": "ok",
        "endpoint": "host:80",
        "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        "fieldLevelAliasOverride": "abcdefghij", "stringAliasAddedValidation": "a"
    })
}

/// Specs the fixture's CRD refuses, each with what it breaks: its CEL rules (one-of
/// groups, rules of a type and of a field) and its bounds (of a named type, of an alias,
/// of a field over either).
fn refused_specs() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "both of ExactlyOneOf",
            "exactlyOne",
            json!({"http": "h", "grpc": "g"}),
        ),
        ("none of ExactlyOneOf", "exactlyOne", json!({})),
        (
            "two of AtMostOneOf",
            "atMostOne",
            json!({"configMap": "c", "secret": "s"}),
        ),
        ("none of AtLeastOneOf", "atLeastOne", json!({})),
        ("a bound of the type", "bounded", json!("abc")),
        ("a rule of the type", "checked", json!("")),
        ("a rule of the field", "checked", json!("reserved")),
        (
            "an alias's bound",
            "stringAliasAlreadyValidated",
            json!("x".repeat(256)),
        ),
        (
            "a field's bound over an alias's",
            "fieldLevelAliasOverride",
            json!("abcdefghijk"),
        ),
        (
            "an alias's bound under a field's",
            "stringAliasAddedValidation",
            json!(""),
        ),
    ]
}

/// The CEL rules controller-gen's markers make (one-of groups, immutability) and the
/// bounds, as the apiserver enforces them.
#[tokio::test]
async fn the_apiserver_enforces_the_rules_of_the_one_of_and_immutable_markers() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("fidelity_e2e markers").await
    else {
        return;
    };
    let installed = common::Installed::new(&client, &[fixture_crd()], "crdgen-markers").await;
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("fixture.crdgen.dev", "v1", "Fixture"),
        "fixtures",
    );
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &installed.namespace, &resource);
    let object = |name: &str, spec: Value| {
        let mut o = DynamicObject::new(name, &resource);
        o.data = json!({ "spec": spec });
        o
    };
    let mut wrong = Vec::new();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    for (what, field, value) in refused_specs() {
        let mut spec = fixture_spec();
        spec[field] = value;
        match api.create(&dry_run, &object("bad", spec)).await {
            Err(kube::Error::Api(status)) if status.code == 422 => {}
            other => wrong.push(format!("{what} was accepted: {other:?}")),
        }
    }
    let mut spec = fixture_spec();
    spec["frozen"]["targetPort"] = json!(2);
    match api
        .create(&PostParams::default(), &object("frozen", spec))
        .await
    {
        Ok(created) => {
            for (what, frozen) in [
                (
                    "a changed immutable field",
                    json!({"port": 9, "targetPort": 2}),
                ),
                ("an immutable field taken away", json!({"port": 1})),
            ] {
                let mut changed = created.clone();
                changed.data["spec"]["frozen"] = frozen;
                match api
                    .replace("frozen", &PostParams::default(), &changed)
                    .await
                {
                    Err(kube::Error::Api(status)) if status.code == 422 => {}
                    other => wrong.push(format!("{what} was accepted: {other:?}")),
                }
            }
        }
        Err(e) => wrong.push(format!("a valid Fixture was refused: {e}")),
    }
    installed.remove().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The same fixture in memory: valid as written, and the same specs refused.
#[tokio::test]
async fn the_in_memory_server_takes_the_fixture_and_refuses_the_same_specs() {
    let server = ApiServer::new();
    server.register_crd(&fixture_crd());
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("fixture.crdgen.dev", "v1", "Fixture"),
        "fixtures",
    );
    let api: Api<DynamicObject> = Api::namespaced_with(server.client(), "test", &resource);
    let object = |spec: Value| {
        let mut o = DynamicObject::new("f", &resource);
        o.data = json!({ "spec": spec });
        o
    };
    let created = api
        .create(&PostParams::default(), &object(fixture_spec()))
        .await
        .unwrap();
    assert_eq!(created.data["spec"]["protocol"], "TCP", "+default");
    assert_eq!(created.data["spec"]["listDefault"], json!(["a", "b"]));
    for (what, field, value) in refused_specs() {
        let mut spec = fixture_spec();
        spec[field] = value;
        let refused = api.create(&PostParams::default(), &object(spec)).await;
        assert!(
            matches!(refused, Err(kube::Error::Api(ref s)) if s.code == 422),
            "{what}: {refused:?}"
        );
    }
}
