//! `crdgen create webhook`: a kind's defaulting, validation and conversion webhooks, as
//! kubebuilder's `create webhook` lays them down: the handler file with its markers,
//! its registration, the server started beside the controllers in `main.rs`, the
//! Service and cert-manager Certificate under `config/`, a test; then regeneration
//! (the webhook configurations, and the CRD's conversion).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{
    Api, appended, inserted_at_marker, kind_values, new_file, project_package, render, templates,
    write_and_regenerate,
};
use crate::Error;
use crate::naming::{self, scaffold as names};
use crate::sink::Change;

/// Which webhooks `create webhook` adds.
#[derive(Clone, Copy, Debug, Default)]
pub struct WebhookKinds {
    /// A mutating webhook whose `Defaulter` sets defaults.
    pub defaulting: bool,
    /// A validating webhook whose `Validator` allows or denies writes.
    pub validation: bool,
    /// Conversion between the kind's versions through this version, its hub.
    pub conversion: bool,
}

/// Adds `webhooks` for `api`'s kind (which `create api` made) to the project.
pub fn create_webhook(
    project: &Path,
    api: &Api,
    webhooks: WebhookKinds,
) -> Result<Vec<PathBuf>, Error> {
    let usage = Error::Usage;
    if !(webhooks.defaulting || webhooks.validation || webhooks.conversion) {
        return Err(usage(
            "say which webhooks: --defaulting, --programmatic-validation and/or --conversion"
                .into(),
        ));
    }
    let package = project_package(project, "create webhook")?;
    let mut values = kind_values(api).map_err(usage)?;
    values.insert("name", package.clone());
    let (group_dir, version, kind, kind_snake) = (
        values["group_dir"].clone(),
        api.version.clone(),
        api.kind.clone(),
        values["kind_snake"].clone(),
    );
    let types_rel = format!("src/apis/{group_dir}/{version}/{kind_snake}_types.rs");
    let types = std::fs::read_to_string(project.join(&types_rel)).map_err(|_| {
        usage(format!(
            "`{types_rel}` is missing: make the kind with crdgen create api first"
        ))
    })?;
    let main_rel = "src/main.rs";
    let main = std::fs::read_to_string(project.join(main_rel)).map_err(Error::Io)?;
    let anchors = [
        "// crdgen:args",
        "// crdgen:start-webhooks",
        "// crdgen:stop-webhooks",
    ];
    if let Some(missing) = anchors.iter().find(|a| !main.contains(*a)) {
        return Err(usage(format!(
            "src/main.rs lacks the `{missing}` line crdgen starts the webhook server at"
        )));
    }
    let _lock = crate::sink::lock(project).map_err(Error::diagnostic)?;
    let mut plan = crate::sink::Plan::default();

    let (handlers, registrations) = handler_file_parts(api, webhooks);
    values.insert("markers", markers(api, &values["plural"], webhooks));
    values.insert("imports", imports(webhooks));
    values.insert("handlers", handlers);
    values.insert("registrations", registrations);
    let crate_name = package.replace('-', "_");
    let mut changes = vec![
        new_file(
            project,
            format!("src/webhook/{kind_snake}.rs"),
            render(templates::WEBHOOK, &values),
            "create webhook",
            &kind,
        )?,
        new_file(
            project,
            format!("tests/{kind_snake}_webhook.rs"),
            test_file(api, &crate_name, webhooks),
            "create webhook",
            &kind,
        )?,
    ];
    for (rel, text) in [
        ("config/webhook/service.yaml", templates::WEBHOOK_SERVICE),
        (
            "config/webhook/kustomization.yaml",
            templates::WEBHOOK_KUSTOMIZATION,
        ),
        (
            "config/certmanager/certificate.yaml",
            templates::CERTIFICATE,
        ),
        (
            "config/certmanager/kustomization.yaml",
            templates::CERTMANAGER_KUSTOMIZATION,
        ),
        (
            "config/certmanager/kustomizeconfig.yaml",
            templates::CERTMANAGER_KUSTOMIZECONFIG,
        ),
    ] {
        if !project.join(rel).exists() {
            let new = render(text, &values).into();
            changes.push((rel.into(), Change::Create { new }));
        }
    }
    changes.extend(deployed_with_webhooks(project, &values)?);
    let module = "src/webhook/mod.rs";
    let old_module = std::fs::read_to_string(project.join(module)).ok();
    let module_text = old_module
        .clone()
        .unwrap_or_else(|| render(templates::WEBHOOK_MOD, &values));
    let mut registration = format!("    let webhooks = {kind_snake}::register(webhooks);\n");
    let converts = format!(
        "webhooks.converter({:?}, crate::client::apis::convert)",
        naming::CONVERSION_PATH
    );
    if webhooks.conversion && !module_text.contains(&converts) {
        let _ = writeln!(registration, "    let webhooks = {converts};");
    }
    let module_text = with_module(
        &module_text.replace(
            "    // crdgen:add-webhooks",
            &format!("{registration}    // crdgen:add-webhooks"),
        ),
        &kind_snake,
    );
    changes.extend(rewritten(module, old_module, module_text));
    changes.extend(appended(project, "src/lib.rs", "pub mod webhook;\n", None)?);
    changes.extend(appended(project, "README.md", RUNNING_WITH_WEBHOOKS, None)?);
    let served = with_server(&main, &crate_name);
    changes.extend(rewritten(main_rel, Some(main), served));
    if webhooks.conversion && !types.contains("+crdgen:conversion:webhook") {
        // The kind's own markers, the first of which `create api` wrote.
        let marked = types.replacen(
            "/// +genclient\n",
            "/// +genclient\n/// +crdgen:conversion:webhook\n/// +kubebuilder:storageversion\n",
            1,
        );
        changes.extend(rewritten(&types_rel, Some(types), marked));
    }
    let cargo = std::fs::read_to_string(project.join("Cargo.toml")).map_err(Error::Io)?;
    let with_feature = with_webhook_feature(&cargo);
    changes.extend(rewritten("Cargo.toml", Some(cargo), with_feature));
    plan.changes.extend(changes);
    write_and_regenerate(project, &plan)
}

/// `config/default/kustomization.yaml` deploying the webhooks too: their Service and
/// certificate, and where cert-manager injects its CA.
fn deployed_with_webhooks(
    project: &Path,
    values: &BTreeMap<&str, String>,
) -> Result<Option<(PathBuf, Change<'static>)>, Error> {
    inserted_at_marker(
        project,
        "config/default/kustomization.yaml",
        "# crdgen:webhooks\n",
        &render(templates::DEFAULT_WEBHOOKS, values),
        "\n- ../webhook\n",
    )
}

/// What the project's README says of running with webhooks, once they are there.
const RUNNING_WITH_WEBHOOKS: &str = "## Running with webhooks\n\nThe operator serves its webhooks beside its controllers and needs their serving certificate: locally, `cargo run -- --leader-elect=false --no-webhooks` (or `ENABLE_WEBHOOKS=false`), or `--cert-dir DIR` with `tls.crt` and `tls.key` in `DIR`; in the cluster, cert-manager issues it (`config/certmanager/`).\n";

/// The webhook module's text with `pub mod {module};` among its module declarations
/// (before its `use` items).
fn with_module(text: &str, module: &str) -> String {
    let declaration = format!("pub mod {module};\n");
    let at = text
        .match_indices("\npub mod ")
        .last()
        .map(|(i, _)| i + 1 + text[i + 1..].find('\n').map_or(0, |n| n + 1))
        .or_else(|| text.find("\nuse ").map(|i| i + 1));
    match at {
        Some(at) if text[..at].ends_with(";\n") => {
            format!("{}{declaration}{}", &text[..at], &text[at..])
        }
        Some(at) => format!("{}{declaration}\n{}", &text[..at], &text[at..]),
        None => format!("{text}{declaration}"),
    }
}

/// `rel`, now reading `text`: an update of `old` (none when it reads so already), or a
/// new file.
fn rewritten(rel: &str, old: Option<String>, text: String) -> Option<(PathBuf, Change<'static>)> {
    let change = match old {
        Some(old) if old == text => return None,
        Some(old) => Change::Update {
            old,
            new: text.into(),
        },
        None => Change::Create { new: text.into() },
    };
    Some((rel.into(), change))
}

/// The webhook markers, one per webhook, as `//!` lines.
fn markers(api: &Api, plural: &str, webhooks: WebhookKinds) -> String {
    let mut out = String::new();
    let (group, version, kind) = (&api.group, &api.version, &api.kind);
    for (on, action, prefix, mutating) in [
        (webhooks.defaulting, "mutate", "m", true),
        (webhooks.validation, "validate", "v", false),
    ] {
        if on {
            let _ = writeln!(
                out,
                "//! +kubebuilder:webhook:path={},mutating={mutating},failurePolicy=fail,sideEffects=None,groups={group},resources={plural},verbs=create;update,versions={version},name={},admissionReviewVersions=v1",
                names::webhook_path(action, group, version, kind),
                names::webhook_name(prefix, group, version, kind),
            );
        }
    }
    if out.is_empty() {
        out.push_str(
            "//! Conversion only: `+crdgen:conversion:webhook` on the kind turns it on.\n",
        );
    }
    out
}

fn imports(webhooks: WebhookKinds) -> String {
    let mut names = Vec::new();
    if webhooks.defaulting {
        names.push("Defaulter");
    }
    names.push("Denial");
    if webhooks.validation {
        names.extend(["Validator", "Warnings"]);
    }
    names.push("Webhooks");
    if webhooks.validation {
        names.push("field");
    }
    format!("{{{}}}", names.join(", "))
}

/// The handler types with their example logic, and the builder calls that register them.
fn handler_file_parts(api: &Api, webhooks: WebhookKinds) -> (String, String) {
    let (group, version, kind) = (&api.group, &api.version, &api.kind);
    let mut handlers = String::new();
    let mut registrations = String::new();
    if webhooks.defaulting {
        let _ = write!(
            handlers,
            r#"
/// Sets defaults on `{kind}` objects before the apiserver stores them; the JSON patch
/// is computed from what `default` changes.
pub struct {kind}Defaulter;

impl Defaulter<{kind}> for {kind}Defaulter {{
    async fn default(&self, object: &mut {kind}) -> Result<(), Denial> {{
        // The example default: a `foo` when none is given. Write your own.
        object.spec.foo.get_or_insert_with(|| "bar".to_owned());
        Ok(())
    }}
}}
"#
        );
        let _ = write!(
            registrations,
            "\n        .defaulter::<{kind}, _>({:?}, {kind}Defaulter)",
            names::webhook_path("mutate", group, version, kind)
        );
    }
    if webhooks.validation {
        let _ = write!(
            handlers,
            r#"
/// Allows or denies writes of `{kind}` objects.
pub struct {kind}Validator;

impl Validator<{kind}> for {kind}Validator {{
    async fn validate_create(&self, object: &{kind}) -> Result<Warnings, Denial> {{
        validate(object)
    }}

    async fn validate_update(&self, _old: &{kind}, new: &{kind}) -> Result<Warnings, Denial> {{
        validate(new)
    }}
}}

/// The example rule: `foo` is at most 63 characters. Write your own: each error names
/// its field, as the apiserver's own validation does (`field::invalid`, `required`…).
fn validate(object: &{kind}) -> Result<Warnings, Denial> {{
    let mut errors = Vec::new();
    if object.spec.foo.as_ref().is_some_and(|value| value.len() > 63) {{
        errors.push(field::too_long(&field::Path::new("spec").child("foo"), 63));
    }}
    match errors.is_empty() {{
        true => Ok(Warnings::new()),
        false => Err(Denial::invalid::<{kind}>(object.metadata.name.as_deref().unwrap_or_default(), &errors)),
    }}
}}
"#
        );
        let _ = write!(
            registrations,
            "\n        .validator::<{kind}, _>({:?}, {kind}Validator)",
            names::webhook_path("validate", group, version, kind)
        );
    }
    (handlers, registrations)
}

/// The webhook server started beside the controllers (once), with its flags.
fn with_server(main: &str, crate_name: &str) -> String {
    if main.contains("no_webhooks: bool") {
        return main.to_owned();
    }
    main.replace(
        "    // crdgen:args",
        r#"    /// Port of the webhook server.
    #[arg(long, default_value_t = 9443)]
    webhook_port: u16,
    /// Directory of the webhook server's certificate (`tls.crt`, `tls.key`).
    #[arg(long, default_value = "/tmp/k8s-webhook-server/serving-certs")]
    cert_dir: std::path::PathBuf,
    /// Run without the webhook server, e.g. on a workstation without its certificate
    /// (or set kubebuilder's `ENABLE_WEBHOOKS=false`).
    #[arg(long)]
    no_webhooks: bool,
    // crdgen:args"#,
    )
    .replace(
        "    // crdgen:start-webhooks",
        &format!(
            r#"    // The webhook server, beside the controllers until shutdown.
    let mut webhooks = None;
    if !args.no_webhooks && std::env::var("ENABLE_WEBHOOKS").as_deref() != Ok("false") {{
        let address = std::net::SocketAddr::from(([0, 0, 0, 0], args.webhook_port));
        match {crate_name}::webhook::webhooks().bind(address, &args.cert_dir).await {{
            Ok(server) => webhooks = Some(tokio::spawn(server.run(shutdown.clone()))),
            Err(e) => {{
                tracing::error!(error = %e, "cannot start the webhook server (--no-webhooks runs without it)");
                return ExitCode::FAILURE;
            }}
        }}
    }}
    // crdgen:start-webhooks"#
        ),
    )
    .replace(
        "    // crdgen:stop-webhooks",
        r#"    if let Some(webhooks) = webhooks
        && let Ok(Err(e)) = webhooks.await
    {
        tracing::error!(error = %e, "the webhook server failed");
    }
    // crdgen:stop-webhooks"#,
    )
}

/// Cargo.toml with crdgen-runtime's `webhook` feature on its dependency.
fn with_webhook_feature(cargo: &str) -> String {
    let mut out = String::new();
    let mut done = false;
    for line in cargo.split_inclusive('\n') {
        let is_dependency = line.starts_with("crdgen-runtime = {") && !done;
        if is_dependency && !line.contains("\"webhook\"") {
            done = true;
            let line = match line.find("features = [") {
                Some(at) => {
                    let at = at + "features = [".len();
                    format!("{}\"webhook\", {}", &line[..at], &line[at..])
                }
                None => line.replacen(" }", ", features = [\"webhook\"] }", 1),
            };
            out.push_str(&line);
            continue;
        }
        done |= is_dependency;
        out.push_str(line);
    }
    out
}

/// Tests of the new handlers, called with a review as the apiserver sends it.
fn test_file(api: &Api, crate_name: &str, webhooks: WebhookKinds) -> String {
    let (group, version, kind) = (&api.group, &api.version, &api.kind);
    let mut out = format!(
        r#"//! The {kind} webhooks, called with AdmissionReviews as the apiserver sends them (no
//! cluster needed).

use serde_json::{{json, Value}};

fn review(object: Value) -> Vec<u8> {{
    serde_json::to_vec(&json!({{
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {{
            "uid": "1", "kind": {{"group": "{group}", "version": "{version}", "kind": "{kind}"}},
            "resource": {{"group": "{group}", "version": "{version}", "resource": "{plural}"}},
            "name": "sample", "namespace": "default", "operation": "CREATE",
            "userInfo": {{"username": "admin"}}, "object": object, "dryRun": false
        }}
    }}))
    .unwrap()
}}

fn object(spec: Value) -> Value {{
    json!({{"apiVersion": "{group}/{version}", "kind": "{kind}",
            "metadata": {{"name": "sample", "namespace": "default"}}, "spec": spec}})
}}

async fn answer(path: &str, spec: Value) -> Value {{
    let reply = {crate_name}::webhook::webhooks().call(path, &review(object(spec))).await;
    assert_eq!(reply.status, 200);
    serde_json::from_slice::<Value>(&reply.body).unwrap()["response"].clone()
}}
"#,
        plural = naming::plural(kind, &naming::default_plural_exceptions()),
    );
    if webhooks.defaulting {
        let _ = write!(
            out,
            r#"
#[tokio::test]
async fn the_defaulter_sets_foo() {{
    let response = answer({:?}, json!({{}})).await;
    assert_eq!(response["allowed"], true);
    let patch: Vec<u8> = serde_json::from_value(response["patch"].clone()).unwrap();
    let patch: Value = serde_json::from_slice(&patch).unwrap();
    assert_eq!(patch, json!([{{"op": "add", "path": "/spec/foo", "value": "bar"}}]));
}}
"#,
            names::webhook_path("mutate", group, version, kind)
        );
    }
    if webhooks.validation {
        let _ = write!(
            out,
            r#"
#[tokio::test]
async fn the_validator_denies_a_long_foo() {{
    let path = {:?};
    assert_eq!(answer(path, json!({{"foo": "short"}})).await["allowed"], true);
    let denied = answer(path, json!({{"foo": "x".repeat(64)}})).await;
    assert_eq!(denied["allowed"], false);
    assert_eq!(denied["status"]["code"], 422);
    assert_eq!(denied["status"]["details"]["causes"][0]["field"], "spec.foo");
    assert!(denied["status"]["message"].as_str().unwrap().ends_with("spec.foo: Too long: may not be more than 63 bytes"));
}}
"#,
            names::webhook_path("validate", group, version, kind)
        );
    }
    if webhooks.conversion {
        let _ = write!(
            out,
            r#"
#[test]
fn the_hub_converts_to_itself() {{
    let object = object(json!({{"foo": "bar"}}));
    let converted = {crate_name}::client::apis::convert(object.clone(), "{group}/{version}").unwrap();
    assert_eq!(converted["spec"], object["spec"]);
}}
"#
        );
    }
    out
}
