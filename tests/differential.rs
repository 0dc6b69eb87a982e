//! The in-memory API server held to kube-apiserver, request by request: the cases of
//! testdata/differential/cases.yaml are sent to both (the in-memory server served on a
//! loopback port and reached through its kubeconfig, as the real one is), and each
//! step's answers compared: status code, reason, causes and the object returned (or the
//! events a watch streams). The
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
    /// The status code to send the step again until it answers with, for at most
    /// [`SETTLE`]: what a CRD's write does to its resource reaches the apiserver's
    /// handlers a moment after the write is answered.
    #[serde(default)]
    until: Option<u16>,
    /// `status`: only the status code and a failure's reason, causes and message are
    /// compared (a CRD's answer carries what each server's controllers wrote when).
    #[serde(default)]
    compare: Option<String>,
    /// A name for the resourceVersion of the object answered, for later steps' paths
    /// (`${name}`): the two servers count their own.
    #[serde(default, rename = "as")]
    save_as: Option<String>,
}

/// How long a step with `until` is sent again.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(30);

fn dir() -> std::path::PathBuf {
    common::testdata("differential")
}

fn cases() -> Cases {
    let text = std::fs::read_to_string(dir().join("cases.yaml")).unwrap();
    serde_yaml_ng::from_str(&text).unwrap()
}

/// A step's answer, as the two servers are compared on it, sent again while it
/// answers other than its `until`; the resourceVersions named by earlier steps.
async fn send(client: &kube::Client, step: &Step, saved: &mut BTreeMap<String, String>) -> Value {
    let deadline = std::time::Instant::now() + SETTLE;
    let (answer, version) = loop {
        let (answer, version) = send_once(client, step, saved).await;
        match step.until {
            Some(code) if answer["code"] != code && std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            _ => break (answer, version),
        }
    };
    if let (Some(name), Some(version)) = (&step.save_as, version) {
        saved.insert(name.clone(), version);
    }
    answer
}

async fn send_once(
    client: &kube::Client,
    step: &Step,
    saved: &BTreeMap<String, String>,
) -> (Value, Option<String>) {
    let mut path = step.path.clone();
    for (name, version) in saved {
        path = path.replace(&format!("${{{name}}}"), version);
    }
    let uri = match path.starts_with('/') {
        true => path,
        false => format!("/apis/diff.crdgen.dev/v1/namespaces/default/{path}"),
    };
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
        .uri(&uri)
        .header(http::header::CONTENT_TYPE, content_type)
        .body(body)
        .unwrap();
    let status_only = step.compare.as_deref() == Some("status");
    match client.request_text(request).await {
        Ok(_) if status_only => (json!({"code": 200}), None),
        Ok(text) => {
            // A watch answers with a stream of events, one JSON document each.
            let mut documents: Vec<Value> = serde_json::Deserializer::from_str(&text)
                .into_iter()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{uri}: not JSON: {e}: {text}"));
            let version = documents
                .first()
                .and_then(|d| d.pointer("/metadata/resourceVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let documents = documents
                .iter_mut()
                .map(|d| comparable(d.take(), &step.keep));
            let answer = match uri.contains("watch=true") {
                true => json!({"code": 200, "events": documents.collect::<Vec<_>>()}),
                false => json!({"code": 200, "object": documents.last()}),
            };
            (answer, version)
        }
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
                answer["message"] = json!(masked(&UID.replace_all(&status.message, "<uid>")));
            }
            (answer, None)
        }
        Err(other) => (json!({"error": other.to_string()}), None),
    }
}

/// A message without the resourceVersions each server counts its own.
fn masked(message: &str) -> String {
    static VERSIONS: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"resource version: \d+ \(\d+\)").unwrap());
    VERSIONS
        .replace_all(message, "resource version: <rv> (<rv>)")
        .into_owned()
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
        // A deletion's Status names the uid of what it deleted.
        if let Some(details) = object.get_mut("details").and_then(Value::as_object_mut) {
            details.remove("uid");
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
        // A watch event's object, or its error.
        if let Some(inner) = object.get_mut("object") {
            strip(inner, keep);
        }
        if let Some(Value::String(message)) = object.get_mut("message") {
            *message = masked(message);
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
        let mut saved = BTreeMap::new();
        for step in &case.steps {
            steps.push(send(client, step, &mut saved).await);
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
