//! The webhook server: handlers called with review values (no cluster), the server's
//! HTTP answers over TLS, certificate rotation, and a real apiserver (envtest) calling
//! the defaulter and the validator on loopback, with `failurePolicy` when it is down.

use std::time::Duration;

use crdgen_runtime::testing::{cluster, envtest};
use crdgen_runtime::webhook::{Defaulter, Denial, Server, Validator, Warnings, Webhooks, field};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// `Widget`'s group (the derive below names it too).
const GROUP: &str = "webhook.crdgen.dev";

/// The kind the webhooks serve (no schema: the tests install their own CRD).
#[derive(kube::CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "webhook.crdgen.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    schema = "disabled"
)]
struct WidgetSpec {
    #[serde(default)]
    replicas: i64,
    #[serde(default)]
    size: String,
}

/// Replicas default to 3 and the size to `m`; a label says the defaulter ran.
struct Defaults;

impl Defaulter<Widget> for Defaults {
    async fn default(&self, widget: &mut Widget) -> Result<(), Denial> {
        if widget.spec.replicas == 0 {
            widget.spec.replicas = 3;
        }
        if widget.spec.size.is_empty() {
            widget.spec.size = "m".into();
        }
        widget
            .metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert("defaulted".into(), "yes".into());
        Ok(())
    }
}

/// At most 10 replicas; a warning above 5; never fewer on update; `keep` is not deleted.
struct Rules;

impl Validator<Widget> for Rules {
    async fn validate_create(&self, widget: &Widget) -> Result<Warnings, Denial> {
        match widget.spec.replicas {
            r if r > 10 => Err(Denial::new(format!("{r} replicas is more than 10"))),
            r if r > 5 => Ok(vec![format!("{r} replicas is a lot")]),
            _ => Ok(Warnings::new()),
        }
    }

    async fn validate_update(&self, old: &Widget, new: &Widget) -> Result<Warnings, Denial> {
        if new.spec.replicas < old.spec.replicas {
            return Err(Denial::new("replicas never go down").with_code(422));
        }
        self.validate_create(new).await
    }

    async fn validate_delete(&self, old: &Widget) -> Result<Warnings, Denial> {
        match old.metadata.name.as_deref() {
            Some("keep") => Err(Denial::new("`keep` stays")),
            _ => Ok(Warnings::new()),
        }
    }
}

/// Panics on every object: the server must answer with a denial and live on.
struct Panics;

impl Validator<Widget> for Panics {
    async fn validate_create(&self, _: &Widget) -> Result<Warnings, Denial> {
        panic!("a bug in the handler")
    }
}

/// A kind with a field its type requires: an object without it does not decode.
#[derive(kube::CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "webhook.crdgen.dev",
    version = "v1",
    kind = "Gizmo",
    namespaced,
    schema = "disabled"
)]
struct GizmoSpec {
    schedule: String,
}

/// Defaults and validation that never see a Gizmo without a schedule.
struct GizmoRules;

impl Defaulter<Gizmo> for GizmoRules {
    async fn default(&self, gizmo: &mut Gizmo) -> Result<(), Denial> {
        gizmo.spec.schedule = gizmo.spec.schedule.trim().to_owned();
        Ok(())
    }
}

/// `never` is no schedule: denied as an invalid field, as Go validators do.
impl Validator<Gizmo> for GizmoRules {
    async fn validate_create(&self, gizmo: &Gizmo) -> Result<Warnings, Denial> {
        if gizmo.spec.schedule == "never" {
            let schedule = field::Path::new("spec").child("schedule");
            let errors = [field::invalid(&schedule, "never", "not a cron expression")];
            return Err(Denial::invalid::<Gizmo>(
                gizmo.metadata.name.as_deref().unwrap_or_default(),
                &errors,
            ));
        }
        Ok(Warnings::new())
    }
}

fn webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<Widget, _>("/mutate", Defaults)
        .validator::<Widget, _>("/validate", Rules)
        .validator::<Widget, _>("/panics", Panics)
        .defaulter::<Gizmo, _>("/mutate-gizmo", GizmoRules)
        .validator::<Gizmo, _>("/validate-gizmo", GizmoRules)
}

/// A review whose object does not decode as the handler's type is answered: the
/// defaulter passes it on unchanged, the validator denies it naming the field; only a
/// body that is no AdmissionReview is a 400.
#[tokio::test]
async fn a_review_of_an_object_that_does_not_decode_is_answered() {
    let hooks = webhooks();
    let gizmo = json!({"apiVersion": "webhook.crdgen.dev/v1", "kind": "Gizmo",
                       "metadata": {"name": "g", "namespace": "default"}, "spec": {}});
    let answer = answer_create(&hooks, "/mutate-gizmo", gizmo.clone()).await;
    assert_eq!(answer["allowed"], true, "{answer}");
    assert!(answer.get("patch").is_none(), "{answer}");
    assert_eq!(answer["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");

    let answer = answer_create(&hooks, "/validate-gizmo", gizmo.clone()).await;
    assert_eq!(answer["allowed"], false, "{answer}");
    assert_eq!(answer["status"]["code"], 422);
    assert_eq!(answer["status"]["message"], "spec.schedule: Required value");

    let mut wrong_type = gizmo;
    wrong_type["spec"]["schedule"] = json!(5);
    let answer = answer_create(&hooks, "/validate-gizmo", wrong_type).await;
    assert!(
        answer["status"]["message"].as_str().unwrap().starts_with(
            "spec.schedule: Invalid value: invalid type: integer `5`, expected a string"
        ),
        "{answer}"
    );

    let reply = hooks.call("/validate-gizmo", b"{\"kind\": 1}").await;
    assert_eq!(reply.status, 400);
}

/// A validator's field errors reach the apiserver as its 422 `Invalid` status, each a
/// cause naming its field.
#[tokio::test]
async fn a_validator_denies_with_field_errors() {
    let gizmo = json!({"apiVersion": "webhook.crdgen.dev/v1", "kind": "Gizmo",
                       "metadata": {"name": "g", "namespace": "default"},
                       "spec": {"schedule": "never"}});
    let answer = answer_create(&webhooks(), "/validate-gizmo", gizmo).await;
    let status = &answer["status"];
    assert_eq!(status["code"], 422);
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["message"],
        r#"Gizmo.webhook.crdgen.dev "g" is invalid: spec.schedule: Invalid value: "never": not a cron expression"#
    );
    assert_eq!(
        status["details"],
        json!({"name": "g", "group": GROUP, "kind": "Gizmo", "causes": [{
            "reason": "FieldValueInvalid", "field": "spec.schedule",
            "message": "Invalid value: \"never\": not a cron expression"}]})
    );
}

fn review(operation: &str, object: Value, old: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": GROUP, "version": "v1", "kind": "Widget"},
            "resource": {"group": GROUP, "version": "v1", "resource": "widgets"},
            "name": "w", "namespace": "default", "operation": operation,
            "userInfo": {"username": "admin"},
            "object": object, "oldObject": old, "dryRun": false
        }
    }))
    .unwrap()
}

fn widget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "webhook.crdgen.dev/v1", "kind": "Widget",
           "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

fn response(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).unwrap()["response"].clone()
}

/// The response to a CREATE review of `object` at `path`, which must be answered (200).
async fn answer_create(hooks: &Webhooks, path: &str, object: Value) -> Value {
    let reply = hooks
        .call(path, &review("CREATE", object, Value::Null))
        .await;
    assert_eq!(reply.status, 200);
    response(&reply.body)
}

#[tokio::test]
async fn handlers_answer_reviews_without_a_cluster() {
    let hooks = webhooks();
    // The defaulter's patch applies to the object as sent, fields it lacked included.
    let sent = widget("w", json!({"size": "l", "extra": true}));
    let reply = hooks
        .call("/mutate", &review("CREATE", sent.clone(), Value::Null))
        .await;
    assert_eq!(reply.status, 200);
    let answer = response(&reply.body);
    assert_eq!(answer["allowed"], true);
    assert_eq!(answer["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(answer["patchType"], "JSONPatch");
    // kube's AdmissionResponse writes the patch's bytes as a list of numbers, which Go's
    // encoding/json reads into the apiserver's []byte as it reads base64.
    let bytes: Vec<u8> = serde_json::from_value(answer["patch"].clone()).unwrap();
    let patch: json_patch::Patch = serde_json::from_slice(&bytes).unwrap();
    let mut patched = sent;
    json_patch::patch(&mut patched, &patch).unwrap();
    assert_eq!(
        patched["spec"],
        json!({"size": "l", "extra": true, "replicas": 3})
    );
    assert_eq!(patched["metadata"]["labels"]["defaulted"], "yes");

    // Validation: allowed with warnings, denied with the handler's message and code.
    let reply = hooks
        .call(
            "/validate",
            &review("CREATE", widget("w", json!({"replicas": 7})), Value::Null),
        )
        .await;
    let answer = response(&reply.body);
    assert_eq!(
        (answer["allowed"].clone(), answer["warnings"].clone()),
        (json!(true), json!(["7 replicas is a lot"]))
    );
    let reply = hooks
        .call(
            "/validate",
            &review(
                "UPDATE",
                widget("w", json!({"replicas": 1})),
                widget("w", json!({"replicas": 2})),
            ),
        )
        .await;
    let answer = response(&reply.body);
    assert_eq!(answer["allowed"], false);
    assert_eq!(answer["status"]["message"], "replicas never go down");
    assert_eq!(answer["status"]["code"], 422);
    let reply = hooks
        .call(
            "/validate",
            &review("DELETE", Value::Null, widget("keep", json!({}))),
        )
        .await;
    assert_eq!(response(&reply.body)["status"]["message"], "`keep` stays");

    // A malformed review is a 400; a panicking handler a denial with code 500.
    assert_eq!(hooks.call("/validate", b"{not json").await.status, 400);
    assert_eq!(
        hooks
            .call("/validate", b"{\"kind\": \"AdmissionReview\"}")
            .await
            .status,
        400
    );
    let reply = hooks
        .call(
            "/panics",
            &review("CREATE", widget("w", json!({})), Value::Null),
        )
        .await;
    let answer = response(&reply.body);
    assert_eq!(
        (
            reply.status,
            answer["allowed"].clone(),
            answer["status"]["code"].clone()
        ),
        (200, json!(false), json!(500))
    );
    assert_eq!(answer["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(hooks.call("/nowhere", b"{}").await.status, 404);
}

/// One HTTP/1.1 request over TLS; the status and the server certificate's DER.
async fn https(
    connector: &tokio_rustls::TlsConnector,
    port: u16,
    request: &[u8],
) -> std::io::Result<(u16, Vec<u8>)> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut tls = connector.connect(name, tcp).await?;
    let cert = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    tls.write_all(request).await?;
    let mut answer = Vec::new();
    tls.read_to_end(&mut answer).await?;
    let status = String::from_utf8_lossy(&answer)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, cert))
}

async fn started(hooks: Webhooks, dir: &std::path::Path) -> (Server, u16) {
    let server = hooks
        .bind("127.0.0.1:0".parse().unwrap(), dir)
        .await
        .unwrap()
        .reload_every(Duration::from_millis(50));
    let port = server.local_addr().unwrap().port();
    (server, port)
}

#[tokio::test]
async fn the_server_answers_over_tls_limits_bodies_and_follows_rotated_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "webhook").unwrap();
    let (server, port) = started(webhooks().max_body_bytes(64), dir.path()).await;
    let stop = CancellationToken::new();
    let running = tokio::spawn(server.run(stop.clone()));
    let client = envtest::trusting(&ca).unwrap();

    let get = b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";
    let (status, first_cert) = https(&client, port, get).await.unwrap();
    assert_eq!(status, 200);
    let big = format!(
        "POST /validate HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\nconnection: close\r\n\r\n{}",
        "x".repeat(100)
    );
    assert_eq!(https(&client, port, big.as_bytes()).await.unwrap().0, 413);
    let small =
        b"POST /validate HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}";
    assert_eq!(https(&client, port, small).await.unwrap().0, 400);

    // A new certificate (from a new CA) in the directory: served once it is seen.
    let new_ca =
        envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "webhook").unwrap();
    let new_client = envtest::trusting(&new_ca).unwrap();
    let mut rotated = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Ok((200, cert)) = https(&new_client, port, get).await {
            rotated = Some(cert);
            break;
        }
    }
    assert!(
        rotated.is_some_and(|cert| cert != first_cert),
        "the rotated certificate was never served"
    );

    stop.cancel();
    running.await.unwrap().unwrap();
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "stopped listening"
    );
}

fn crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{GROUP}")},
        "spec": {
            "group": GROUP,
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {
                    "replicas": {"type": "integer"}, "size": {"type": "string"}}}}}}}]
        }
    }))
    .unwrap()
}

fn rules() -> Value {
    json!([{"apiGroups": [GROUP], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE", "DELETE"], "resources": ["widgets"]}])
}

fn hook(name: &str, port: u16, path: &str, ca: &str, failure: &str) -> Value {
    use base64::Engine as _;
    json!({
        "name": name, "rules": rules(), "failurePolicy": failure, "sideEffects": "None",
        "admissionReviewVersions": ["v1"], "timeoutSeconds": 5,
        "clientConfig": {"url": format!("https://127.0.0.1:{port}{path}"),
                         "caBundle": base64::engine::general_purpose::STANDARD.encode(ca)}
    })
}

fn denial(err: kube::Error) -> String {
    match err {
        kube::Error::Api(status) => status.message,
        other => panic!("expected an API error, got {other}"),
    }
}

#[tokio::test]
async fn a_real_apiserver_calls_the_defaulter_and_the_validator() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("webhook").await else {
        return;
    };
    cluster::install_crds(&client, &[crd()], "webhook-test")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "webhook").unwrap();
    let (server, port) = started(webhooks(), dir.path()).await;
    let stop = CancellationToken::new();
    let running = tokio::spawn(server.run(stop.clone()));

    let mutating: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    let pp = PostParams::default();
    let config = |kind: &str, hooks: Value| {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
               "metadata": {"name": "crdgen-webhook-test"}, "webhooks": hooks})
    };
    mutating
        .create(
            &pp,
            &serde_json::from_value(config(
                "MutatingWebhookConfiguration",
                json!([hook("mwidget.crdgen.dev", port, "/mutate", &ca, "Fail")]),
            ))
            .unwrap(),
        )
        .await
        .unwrap();
    validating
        .create(
            &pp,
            &serde_json::from_value(config(
                "ValidatingWebhookConfiguration",
                json!([hook("vwidget.crdgen.dev", port, "/validate", &ca, "Fail")]),
            ))
            .unwrap(),
        )
        .await
        .unwrap();

    let widgets: Api<Widget> = Api::namespaced(client.clone(), "default");
    let named = |name: &str, replicas: i64| {
        Widget::new(
            name,
            WidgetSpec {
                replicas,
                size: String::new(),
            },
        )
    };
    // The apiserver may take a moment to see new webhook configurations.
    let mut created = None;
    for _ in 0..50 {
        match widgets.create(&pp, &named("defaulted", 0)).await {
            Ok(w) if w.spec.replicas == 3 => {
                created = Some(w);
                break;
            }
            Ok(w) => {
                let _ = widgets
                    .delete(
                        w.metadata.name.as_deref().unwrap(),
                        &DeleteParams::default(),
                    )
                    .await;
            }
            Err(e) => eprintln!(
                "webhook: not yet: {}",
                e.to_string().chars().take(160).collect::<String>()
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let created = created.expect("the defaulter ran");
    assert_eq!(created.spec.size, "m");
    assert_eq!(created.metadata.labels.unwrap()["defaulted"], "yes");

    let too_many = widgets.create(&pp, &named("big", 11)).await.unwrap_err();
    assert!(denial(too_many).contains("11 replicas is more than 10"));
    let mut fewer = widgets.get("defaulted").await.unwrap();
    fewer.spec.replicas = 1;
    assert!(
        denial(widgets.replace("defaulted", &pp, &fewer).await.unwrap_err())
            .contains("replicas never go down")
    );
    widgets.create(&pp, &named("keep", 1)).await.unwrap();
    assert!(
        denial(
            widgets
                .delete("keep", &DeleteParams::default())
                .await
                .unwrap_err()
        )
        .contains("`keep` stays")
    );

    // The webhook down: `Fail` refuses the write, `Ignore` lets it through unchanged.
    stop.cancel();
    running.await.unwrap().unwrap();
    let refused = widgets
        .create(&pp, &named("while-down", 1))
        .await
        .unwrap_err();
    assert!(denial(refused).contains("failed calling webhook"));
    let ignore = |kind: &str, name: &str, path: &str| {
        serde_json::from_value::<Value>(config(
            kind,
            json!([hook(name, port, path, &ca, "Ignore")]),
        ))
        .unwrap()
    };
    let mut m = mutating.get("crdgen-webhook-test").await.unwrap();
    m.webhooks = serde_json::from_value(
        ignore(
            "MutatingWebhookConfiguration",
            "mwidget.crdgen.dev",
            "/mutate",
        )["webhooks"]
            .clone(),
    )
    .unwrap();
    mutating
        .replace("crdgen-webhook-test", &pp, &m)
        .await
        .unwrap();
    let mut v = validating.get("crdgen-webhook-test").await.unwrap();
    v.webhooks = serde_json::from_value(
        ignore(
            "ValidatingWebhookConfiguration",
            "vwidget.crdgen.dev",
            "/validate",
        )["webhooks"]
            .clone(),
    )
    .unwrap();
    validating
        .replace("crdgen-webhook-test", &pp, &v)
        .await
        .unwrap();
    let mut through = None;
    for _ in 0..50 {
        if let Ok(w) = widgets.create(&pp, &named("while-down", 1)).await {
            through = Some(w);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let through = through.expect("`Ignore` lets writes through while the webhook is down");
    assert_eq!(through.spec.size, "", "not defaulted: the webhook was down");

    let _ = mutating
        .delete("crdgen-webhook-test", &DeleteParams::default())
        .await;
    let _ = validating
        .delete("crdgen-webhook-test", &DeleteParams::default())
        .await;
    for name in ["defaulted", "keep", "while-down"] {
        let _ = widgets.delete(name, &DeleteParams::default()).await;
    }
    cluster::uninstall_crds(&client, [format!("widgets.{GROUP}").as_str()])
        .await
        .unwrap();
}

/// A Gizmo without its required schedule, created through both webhooks (`Fail`): the
/// user sees the apiserver's own `spec.schedule: Required value`, not a failed call.
#[tokio::test]
async fn a_real_apiserver_names_the_missing_field_through_the_webhooks() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("webhook undecodable").await
    else {
        return;
    };
    let gizmos_crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gizmos.{GROUP}")},
        "spec": {
            "group": GROUP,
            "names": {"kind": "Gizmo", "plural": "gizmos", "singular": "gizmo", "listKind": "GizmoList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "required": ["schedule"],
                    "properties": {"schedule": {"type": "string"}}}}}}}]
        }
    }))
    .unwrap();
    cluster::install_crds(&client, &[gizmos_crd], "webhook-test")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "webhook").unwrap();
    let (server, port) = started(webhooks(), dir.path()).await;
    let stop = CancellationToken::new();
    let running = tokio::spawn(server.run(stop.clone()));
    let gizmo_hook = |name: &str, path: &str| {
        let mut hook = hook(name, port, path, &ca, "Fail");
        hook["rules"][0]["resources"] = json!(["gizmos"]);
        hook
    };
    let config = |kind: &str, hook: Value| {
        serde_json::from_value::<Value>(json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind, "metadata": {"name": "crdgen-webhook-gizmos"}, "webhooks": [hook]}))
        .unwrap()
    };
    let pp = PostParams::default();
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    mutating
        .create(
            &pp,
            &serde_json::from_value(config(
                "MutatingWebhookConfiguration",
                gizmo_hook("mgizmo.crdgen.dev", "/mutate-gizmo"),
            ))
            .unwrap(),
        )
        .await
        .unwrap();
    validating
        .create(
            &pp,
            &serde_json::from_value(config(
                "ValidatingWebhookConfiguration",
                gizmo_hook("vgizmo.crdgen.dev", "/validate-gizmo"),
            ))
            .unwrap(),
        )
        .await
        .unwrap();
    let gizmos: Api<kube::api::DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &kube::api::ApiResource::erase::<Gizmo>(&()),
    );
    let mut object =
        kube::api::DynamicObject::new("no-schedule", &kube::api::ApiResource::erase::<Gizmo>(&()));
    object.data = json!({"spec": {}});
    // The apiserver may take a moment to see new webhook configurations: the answer is
    // the same with or without them, so wait until a trimmed schedule shows they run.
    let mut trimmed = false;
    for _ in 0..50 {
        let mut probe =
            kube::api::DynamicObject::new("probe", &kube::api::ApiResource::erase::<Gizmo>(&()));
        probe.data = json!({"spec": {"schedule": " @daily "}});
        if let Ok(created) = gizmos.create(&pp, &probe).await {
            let _ = gizmos.delete("probe", &DeleteParams::default()).await;
            if created.data["spec"]["schedule"] == "@daily" {
                trimmed = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let refused = gizmos.create(&pp, &object).await;
    let mut never =
        kube::api::DynamicObject::new("never", &kube::api::ApiResource::erase::<Gizmo>(&()));
    never.data = json!({"spec": {"schedule": "never"}});
    let invalid = gizmos.create(&pp, &never).await;
    stop.cancel();
    let _ = running.await;
    let _ = mutating
        .delete("crdgen-webhook-gizmos", &DeleteParams::default())
        .await;
    let _ = validating
        .delete("crdgen-webhook-gizmos", &DeleteParams::default())
        .await;
    cluster::uninstall_crds(&client, [format!("gizmos.{GROUP}").as_str()])
        .await
        .unwrap();
    assert!(trimmed, "the defaulter ran");
    let message = denial(refused.unwrap_err());
    assert!(
        message.contains("spec.schedule: Required value"),
        "{message}"
    );
    assert!(!message.contains("failed calling webhook"), "{message}");
    // The field error, as the apiserver passes a webhook's status on.
    let Err(kube::Error::Api(status)) = invalid else {
        panic!("`never` was accepted: {invalid:?}");
    };
    assert_eq!(status.code, 422);
    assert!(
        status
            .message
            .contains(r#"spec.schedule: Invalid value: "never": not a cron expression"#),
        "{}",
        status.message
    );
    let causes = status.details.map(|d| d.causes).unwrap_or_default();
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert_eq!(causes[0].field, "spec.schedule");
}
