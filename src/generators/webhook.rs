//! Webhooks from markers, as controller-gen's `webhook` generator makes them:
//! `+kubebuilder:webhook:path=…,mutating=…,failurePolicy=…,sideEffects=…,groups=…,
//! resources=…,verbs=…,versions=…,name=…,admissionReviewVersions=…[,matchPolicy=…]
//! [,timeoutSeconds=…][,reinvocationPolicy=…][,patch=`{…}`]` gives one webhook of the
//! `mutating-webhook-configuration` or the `validating-webhook-configuration` (after
//! `--webhook-name-prefix`, the project's kustomize `namePrefix`), served by
//! the webhook Service (`--webhook-service`, by default controller-gen's `webhook-service`
//! in `system`, kustomize's placeholders) at the marker's path.

use serde_json::{Map, Value};

use super::{Context, Definition, ManifestDir, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{Marker, Value as MarkerValue};
use crate::naming::{self, INJECT_CA_FROM};
use crate::options::WebhookService;
use crate::scan::Found;

/// The markers it reads: they belong to no type.
const MARKERS: &[&crate::markers::MarkerDef] = &[&crate::markers::WEBHOOK];

/// The `webhook` generator: `manifests.yaml`, one YAML document per configuration, as
/// controller-gen writes it.
pub(super) const GENERATOR: Definition = Definition::manifests(
    "webhook",
    ManifestDir {
        flag: "--webhook-dir",
        // As in kubebuilder projects.
        default: "config/webhook",
        build: naming::BUILD_WEBHOOK_DIR,
    },
    generate,
)
.reads(MARKERS, check);

/// Checks the markers with the parsing, reporting each mistake at its marker.
fn check(found: &[Found], diags: &mut Diagnostics) {
    webhooks(found, diags);
}

fn generate(ctx: &Context<'_>, out: &mut Output, _: &mut Diagnostics) {
    // Checked, and mistakes reported, with the parsing (`check_markers`).
    let webhooks = webhooks(ctx.markers, &mut Diagnostics::default());
    let configurations = configurations(&webhooks, &ctx.opts.webhook_service);
    super::add_yaml_documents(out, naming::WEBHOOK_FILE, &configurations);
}

const API_VERSION: &str = "admissionregistration.k8s.io/v1";

/// One `+kubebuilder:webhook` marker, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Webhook {
    pub name: String,
    pub path: String,
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: String,
    /// `None` or `NoneOnDryRun`: what an admissionregistration/v1 webhook may declare.
    pub side_effects: String,
    /// `core` is written as the core group's `""` already.
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub operations: Vec<String>,
    pub versions: Vec<String>,
    pub admission_review_versions: Vec<String>,
    pub match_policy: Option<String>,
    pub timeout_seconds: Option<i64>,
    pub reinvocation_policy: Option<String>,
    /// `patch=`: a strategic merge patch applied to the webhook last, as controller-gen
    /// applies it (controller-tools 87f7c33), for the fields no argument sets.
    pub patch: Option<Map<String, Value>>,
}

/// The fields of an admissionregistration/v1 webhook, which a `patch` may set.
const WEBHOOK_FIELDS: &[&str] = &[
    "admissionReviewVersions",
    "clientConfig",
    "failurePolicy",
    "matchConditions",
    "matchPolicy",
    "name",
    "namespaceSelector",
    "objectSelector",
    "reinvocationPolicy",
    "rules",
    "sideEffects",
    "timeoutSeconds",
];

/// The webhooks of the markers `found`, in file order; each mistake is reported at its
/// marker, as is a name two webhooks of one configuration share.
fn webhooks(found: &[Found], diags: &mut Diagnostics) -> Vec<Webhook> {
    let mut out: Vec<Webhook> = Vec::new();
    for f in found
        .iter()
        .filter(|f| f.marker.def == &crate::markers::WEBHOOK)
    {
        match webhook(&f.marker) {
            Ok(hook)
                if out
                    .iter()
                    .any(|o| o.name == hook.name && o.mutating == hook.mutating) =>
            {
                diags.push(refused(
                    f,
                    format!(
                        "a second webhook named `{}` in one configuration",
                        hook.name
                    ),
                    "every webhook of a configuration has a name of its own",
                ));
            }
            Ok(hook) => out.push(hook),
            Err((message, hint)) => diags.push(refused(f, message, hint)),
        }
    }
    out
}

fn refused(found: &Found, message: String, hint: &str) -> Diagnostic {
    Diagnostic::error(Code::BadMarkerArgument, message)
        .at(&found.file, found.marker.pos)
        .hint(hint.to_owned())
}

/// A marker's webhook, or why the apiserver would refuse it (controller-gen refuses
/// some of these, passes the others on to fail at `kubectl apply`).
fn webhook(marker: &Marker) -> Result<Webhook, (String, &'static str)> {
    let MarkerValue::Args(args) = &marker.value else {
        return Err((
            "it needs arguments".into(),
            "write it as `+kubebuilder:webhook:path=…,mutating=…,…`; `crdgen markers` lists its arguments",
        ));
    };
    let text = |key: &str| {
        args.get(key)
            .and_then(MarkerValue::as_str)
            .map(str::to_owned)
    };
    let list = |key: &str| match args.get(key) {
        Some(MarkerValue::List(items)) => items.clone(),
        _ => Vec::new(),
    };
    let mutating = matches!(args.get("mutating"), Some(MarkerValue::Bool(true)));
    let failure_policy = one_of(
        &text("failurePolicy").unwrap_or_default(),
        &["Fail", "Ignore"],
    )
    .ok_or((
        "`failurePolicy` is `Fail` or `Ignore`".into(),
        "write `failurePolicy=fail`",
    ))?;
    let side_effects = text("sideEffects")
        .and_then(|s| one_of(&s, &["None", "NoneOnDryRun"]))
        .ok_or((
            "an admissionregistration/v1 webhook declares `sideEffects=None` or `sideEffects=NoneOnDryRun`".into(),
            "a webhook with side effects must skip dry runs: write `sideEffects=NoneOnDryRun` and look at the review's `dryRun`",
        ))?;
    let match_policy = match text("matchPolicy") {
        None => None,
        Some(p) => Some(one_of(&p, &["Exact", "Equivalent"]).ok_or((
            format!("unknown value `{p}` for `matchPolicy`"),
            "`matchPolicy` is `Exact` or `Equivalent`",
        ))?),
    };
    let reinvocation_policy = match text("reinvocationPolicy") {
        None => None,
        Some(_) if !mutating => {
            return Err((
                "`reinvocationPolicy` is for mutating webhooks only".into(),
                "drop it, or set `mutating=true`",
            ));
        }
        Some(p) => Some(one_of(&p, &["Never", "IfNeeded"]).ok_or((
            format!("unknown value `{p}` for `reinvocationPolicy`"),
            "`reinvocationPolicy` is `Never` or `IfNeeded`",
        ))?),
    };
    let timeout_seconds = match args.get("timeoutSeconds") {
        Some(MarkerValue::Int(t)) if !(1..=30).contains(t) => {
            return Err((
                format!("`timeoutSeconds={t}` is outside 1 to 30"),
                "the apiserver waits 1 to 30 seconds for a webhook (10 by default)",
            ));
        }
        Some(MarkerValue::Int(t)) => Some(*t),
        _ => None,
    };
    let operations = list("verbs")
        .iter()
        .map(|v| {
            one_of(v, &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"]).ok_or((
                format!("`{v}` is not an admission operation"),
                "verbs are `create`, `update`, `delete`, `connect` or `*`",
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let path = text("path").unwrap_or_default();
    if !path.starts_with('/') {
        return Err((
            format!("`path={path}` is not a URL path"),
            "kubebuilder's paths read `/mutate-<group with dashes>-<version>-<kind>`, e.g. `/validate-bcrds-example-com-v1alpha1-example`",
        ));
    }
    let name = text("name").unwrap_or_default();
    if crdgen_apimachinery::names::subdomain(&name).is_err() || name.split('.').count() < 3 {
        return Err((
            format!("`name={name}` is not a fully qualified webhook name"),
            "a webhook's name is a DNS subdomain of at least three labels, e.g. `vexample.kb.io`",
        ));
    }
    let patch = text("patch").map(|text| patch(&text)).transpose()?;
    Ok(Webhook {
        name,
        path,
        mutating,
        failure_policy,
        side_effects,
        groups: list("groups")
            .into_iter()
            .map(|g| if g == "core" { String::new() } else { g })
            .collect(),
        resources: list("resources"),
        operations,
        versions: list("versions"),
        admission_review_versions: list("admissionReviewVersions"),
        match_policy,
        timeout_seconds,
        reinvocation_policy,
        patch,
    })
}

/// A `patch=` argument: a JSON object of webhook fields.
fn patch(text: &str) -> Result<Map<String, Value>, (String, &'static str)> {
    const HINT: &str = "write the patch as a JSON object in backticks: patch=`{\"namespaceSelector\":{\"matchLabels\":{\"webhook-enabled\":\"true\"}}}`";
    let patch = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(patch)) => patch,
        Ok(_) => return Err(("`patch` is not a JSON object".into(), HINT)),
        Err(e) => return Err((format!("`patch` is not JSON: {e}"), HINT)),
    };
    if let Some(unknown) = patch.keys().find(|k| !WEBHOOK_FIELDS.contains(&k.as_str())) {
        return Err((
            format!("`patch` sets `{unknown}`, which is not a field of a webhook"),
            "a webhook's fields are admissionReviewVersions, clientConfig, failurePolicy, matchConditions, matchPolicy, name, namespaceSelector, objectSelector, reinvocationPolicy, rules, sideEffects and timeoutSeconds",
        ));
    }
    Ok(patch)
}

/// `patch` merged into `target` with strategic-merge-patch semantics for a webhook:
/// objects merge key by key, `null` removes a key, lists are replaced, but for
/// `matchConditions`, merged by `name` (its patch strategy).
fn strategic_merge(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        match (target.get_mut(key), value) {
            (_, Value::Null) => {
                target.remove(key);
            }
            (Some(Value::Object(ours)), Value::Object(theirs)) => strategic_merge(ours, theirs),
            (Some(Value::Array(ours)), Value::Array(theirs)) if key == "matchConditions" => {
                for item in theirs {
                    let name = item.get("name");
                    let same = ours
                        .iter_mut()
                        .find(|o| name.is_some() && o.get("name") == name);
                    match (same, item) {
                        (Some(Value::Object(existing)), Value::Object(item)) => {
                            strategic_merge(existing, item);
                        }
                        _ => ours.push(item.clone()),
                    }
                }
            }
            _ => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
}

/// `value` spelled as the API spells it, compared without regard to case, as
/// controller-gen compares them.
fn one_of(value: &str, allowed: &[&str]) -> Option<String> {
    allowed
        .iter()
        .find(|a| a.eq_ignore_ascii_case(value))
        .map(|a| (*a).to_owned())
}

/// The mutating and the validating configuration, each when it has a webhook, in
/// controller-gen's order and with its names.
fn configurations(webhooks: &[Webhook], service: &WebhookService) -> Vec<Value> {
    [
        (true, "MutatingWebhookConfiguration"),
        (false, "ValidatingWebhookConfiguration"),
    ]
    .into_iter()
    .filter_map(|(mutating, kind)| {
        let name = crate::naming::webhook_configuration(&service.name_prefix, mutating);
        let hooks: Vec<Value> = webhooks
            .iter()
            .filter(|w| w.mutating == mutating)
            .map(|hook| webhook_object(hook, service))
            .collect();
        (!hooks.is_empty()).then(|| {
            let mut metadata = Map::new();
            if let Some(certificate) = &service.inject_ca_from {
                let mut annotations = Map::new();
                annotations.insert(INJECT_CA_FROM.into(), certificate.as_str().into());
                metadata.insert("annotations".into(), annotations.into());
            }
            metadata.insert("name".into(), name.into());
            let mut object = Map::new();
            object.insert("apiVersion".into(), API_VERSION.into());
            object.insert("kind".into(), kind.into());
            object.insert("metadata".into(), metadata.into());
            object.insert("webhooks".into(), hooks.into());
            object.into()
        })
    })
    .collect()
}

/// One webhook, its keys in the order sigs.k8s.io/yaml writes them (alphabetical).
fn webhook_object(hook: &Webhook, service: &WebhookService) -> Value {
    let mut reference = Map::new();
    reference.insert("name".into(), service.name.as_str().into());
    reference.insert("namespace".into(), service.namespace.as_str().into());
    reference.insert("path".into(), hook.path.clone().into());
    let mut client_config = Map::new();
    client_config.insert("service".into(), reference.into());
    let mut rule = Map::new();
    rule.insert("apiGroups".into(), hook.groups.clone().into());
    rule.insert("apiVersions".into(), hook.versions.clone().into());
    rule.insert("operations".into(), hook.operations.clone().into());
    rule.insert("resources".into(), hook.resources.clone().into());
    let mut out = Map::new();
    out.insert(
        "admissionReviewVersions".into(),
        hook.admission_review_versions.clone().into(),
    );
    out.insert("clientConfig".into(), client_config.into());
    out.insert("failurePolicy".into(), hook.failure_policy.clone().into());
    if let Some(policy) = &hook.match_policy {
        out.insert("matchPolicy".into(), policy.clone().into());
    }
    out.insert("name".into(), hook.name.clone().into());
    if let Some(policy) = &hook.reinvocation_policy {
        out.insert("reinvocationPolicy".into(), policy.clone().into());
    }
    out.insert("rules".into(), vec![Value::from(rule)].into());
    out.insert("sideEffects".into(), hook.side_effects.clone().into());
    if let Some(seconds) = hook.timeout_seconds {
        out.insert("timeoutSeconds".into(), seconds.into());
    }
    if let Some(patch) = &hook.patch {
        strategic_merge(&mut out, patch);
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn merged(target: Value, patch: Value) -> Value {
        let (Value::Object(mut target), Value::Object(patch)) = (target, patch) else {
            unreachable!("objects")
        };
        strategic_merge(&mut target, &patch);
        Value::Object(target)
    }

    #[test]
    fn a_patch_merges_objects_replaces_lists_and_removes_what_is_null() {
        let hook = json!({"name": "v.kb.io", "timeoutSeconds": 5, "rules": [{"operations": ["CREATE"]}],
            "namespaceSelector": {"matchLabels": {"a": "1"}}});
        let patch = json!({"timeoutSeconds": null, "rules": [{"operations": ["UPDATE"]}],
            "namespaceSelector": {"matchLabels": {"b": "2"}}});
        assert_eq!(
            merged(hook, patch),
            json!({"name": "v.kb.io", "rules": [{"operations": ["UPDATE"]}],
                "namespaceSelector": {"matchLabels": {"a": "1", "b": "2"}}})
        );
    }

    #[test]
    fn match_conditions_merge_by_name() {
        let hook = json!({"matchConditions": [{"name": "a", "expression": "true"}]});
        let patch = json!({"matchConditions": [{"name": "a", "expression": "false"}, {"name": "b", "expression": "true"}]});
        assert_eq!(
            merged(hook, patch)["matchConditions"],
            json!([{"name": "a", "expression": "false"}, {"name": "b", "expression": "true"}])
        );
    }

    #[test]
    fn a_patch_must_be_an_object_of_webhook_fields() {
        assert!(patch(r#"{"objectSelector": {}}"#).is_ok());
        for (text, problem) in [
            ("[1]", "is not a JSON object"),
            ("{nope", "is not JSON"),
            (
                r#"{"namespaceSelecter": {}}"#,
                "`namespaceSelecter`, which is not a field",
            ),
        ] {
            let (message, _) = patch(text).unwrap_err();
            assert!(message.contains(problem), "{text}: {message}");
        }
    }
}
