//! The in-memory API server held to kube-apiserver, request by request: the cases of
//! testdata/differential/cases.yaml are sent to both (the in-memory server served on a
//! loopback port and reached through its kubeconfig, as the real one is), and each
//! step's answers compared: status code, reason, causes and the object returned. The
//! suite prints `N of M agree`; each case that disagrees is pinned, with both answers, in
//! disagreements-1.MINOR.json (the answers' words are a release's own).

mod common;

use std::collections::BTreeMap;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Cases {
    crd: CustomResourceDefinition,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    steps: Vec<Step>,
    /// Why the two servers still answer it differently, where they do.
    #[serde(default)]
    disagrees: Option<String>,
}

#[derive(Deserialize)]
struct Step {
    method: String,
    path: String,
    #[serde(default)]
    body: Option<Value>,
    /// A patch's kind: merge, json, strategic or apply.
    #[serde(default)]
    patch: Option<String>,
    /// Fields of the object kept although they differ by server (a generated name's
    /// prefix is kept, the name itself is not).
    #[serde(default)]
    keep: Vec<String>,
}

fn dir() -> std::path::PathBuf {
    common::testdata("differential")
}

fn cases() -> Cases {
    let text = std::fs::read_to_string(dir().join("cases.yaml")).unwrap();
    serde_yaml_ng::from_str(&text).unwrap()
}

/// A step's answer, as the two servers are compared on it.
async fn send(client: &kube::Client, step: &Step) -> Value {
    let uri = format!("/apis/diff.crdgen.dev/v1/namespaces/default/{}", step.path);
    let content_type = match step.patch.as_deref() {
        Some("merge") => "application/merge-patch+json",
        Some("json") => "application/json-patch+json",
        Some("strategic") => "application/strategic-merge-patch+json",
        Some("apply") => "application/apply-patch+yaml",
        _ => "application/json",
    };
    let body = step
        .body
        .as_ref()
        .map_or_else(Vec::new, |b| serde_json::to_vec(b).unwrap());
    let request = http::Request::builder()
        .method(step.method.as_str())
        .uri(uri)
        .header(http::header::CONTENT_TYPE, content_type)
        .body(body)
        .unwrap();
    match client.request::<Value>(request).await {
        Ok(object) => json!({"code": 200, "object": comparable(object, &step.keep)}),
        Err(kube::Error::Api(status)) => {
            let causes: Vec<String> = status
                .details
                .as_ref()
                .map(|d| {
                    let mut causes: Vec<String> = d
                        .causes
                        .iter()
                        .map(|c| format!("{} {}: {}", c.reason, c.field, c.message))
                        .collect();
                    causes.sort();
                    causes
                })
                .unwrap_or_default();
            let mut answer =
                json!({"code": status.code, "reason": status.reason, "causes": causes});
            // Several causes are listed in the message in the order Go's maps give; a
            // uid is each server's own.
            if causes.len() <= 1 {
                static UID: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                    regex::Regex::new(
                        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                    )
                    .unwrap()
                });
                answer["message"] = json!(UID.replace_all(&status.message, "<uid>"));
            }
            answer
        }
        Err(other) => json!({"error": other.to_string()}),
    }
}

/// An object without what no two servers share: uid, timestamps, resourceVersions,
/// managedFields, and a generated name (but `keep`).
fn comparable(mut object: Value, keep: &[String]) -> Value {
    fn strip(object: &mut Value, keep: &[String]) {
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            for key in [
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "resourceVersion",
                "managedFields",
            ] {
                meta.remove(key);
            }
            if keep.iter().any(|k| k == "metadata.generateName") {
                meta.remove("name");
            }
        }
        // A list's page token is each server's own; that there is one is compared.
        if let Some(token) = object.pointer_mut("/metadata/continue")
            && token.as_str().is_some_and(|t| !t.is_empty())
        {
            *token = json!("<token>");
        }
        if let Some(items) = object.get_mut("items").and_then(Value::as_array_mut) {
            items.iter_mut().for_each(|item| strip(item, keep));
        }
        // A watch event's object.
        if let Some(inner) = object.get_mut("object") {
            strip(inner, keep);
        }
    }
    strip(&mut object, keep);
    object
}

/// Every case's answers, step by step.
async fn answers(client: &kube::Client, cases: &Cases) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for case in &cases.cases {
        let mut steps = Vec::new();
        for step in &case.steps {
            steps.push(send(client, step).await);
        }
        out.push(steps);
    }
    out
}

#[tokio::test]
async fn the_in_memory_server_answers_as_kube_apiserver() {
    let cases = cases();
    let Some(cluster::Connection { client: real, .. }) = cluster::connect("differential").await
    else {
        return;
    };
    let version = cluster::server_version(&real).await;
    cluster::install_crds(&real, &[cases.crd.clone()], "differential")
        .await
        .unwrap();

    // The in-memory server answers as the real one's release.
    let server = ApiServer::new().kubernetes_minor(version.minor as u16);
    server.register_crd(&cases.crd);
    let listening = server.listen().await.unwrap();
    let config = kube::Config::from_custom_kubeconfig(listening.kubeconfig(), &Default::default())
        .await
        .unwrap();
    let memory = kube::Client::try_from(config).unwrap();

    let (theirs, ours) = (answers(&real, &cases).await, answers(&memory, &cases).await);
    let mut verdicts: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    for ((case, real), memory) in cases.cases.iter().zip(&theirs).zip(&ours) {
        let mut differences = Vec::new();
        for (i, (real, memory)) in real.iter().zip(memory).enumerate() {
            if real != memory {
                differences.push(format!(
                    "step {}: kube-apiserver {real}, in memory {memory}",
                    i + 1
                ));
            }
        }
        let verdict = match (differences.is_empty(), &case.disagrees) {
            (true, None) => Ok(()),
            (true, Some(_)) => {
                Err("agrees, but is pinned as disagreeing: drop its `disagrees`".into())
            }
            (false, why) => Err(format!(
                "{}: {}",
                why.as_deref()
                    .unwrap_or("no reason given (add `disagrees`)"),
                differences.join("; ")
            )),
        };
        verdicts.insert(case.name.clone(), verdict);
    }
    common::bless::disagreements(
        &format!("differential, kube-apiserver 1.{}", version.minor),
        &verdicts,
        &dir().join(format!("disagreements-1.{}.json", version.minor)),
    );
}
