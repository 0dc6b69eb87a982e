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
    let base = common::testdata("fidelity");
    let mut opts = crdgen::Options::new(&base, "client", "apis", "oracle:v1").unwrap();
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    // A CRD this large is applied server-side; descriptions make no difference here.
    opts.max_description_len = Some(0);
    let (_, text) = common::generate_files(&opts)
        .into_iter()
        .find(|(path, _)| path.ends_with("oracle.example.com_embeds.yaml"))
        .expect("the Embeds CRD");
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
