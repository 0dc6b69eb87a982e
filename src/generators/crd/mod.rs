//! `crd`: one `apiextensions.k8s.io/v1` CustomResourceDefinition per group and kind,
//! statically from source, with controller-gen's markers and kube-derive's attributes.
//! All versions of a kind merge into one CRD, listed by name as controller-gen lists them.

mod cel;
mod defaults;
mod ecosystem;
mod jsonpath;
mod structural;
mod types;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::known;
use crate::markers::{self, Value as MarkerValue};
use crate::model::{Group, Kind, KindStyle, Model, Version};
use crate::naming;
use crate::options::{Options, WebhookService};
use types::{Builder, Site};

use super::{Context, Definition, ManifestDir, Output};

/// The `crd` generator.
pub(super) const GENERATOR: Definition = Definition::manifests(
    "crd",
    ManifestDir {
        flag: "--crd-dir",
        // As in kubebuilder projects.
        default: "config/crd/bases",
        build: naming::BUILD_CRD_DIR,
    },
    generate,
);

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let (files, found) = ctx.crd_files();
    out.manifests = files.into_iter().collect();
    diags.extend(found.into_sorted());
}

/// A CRD's file: its name and YAML, with a warning in `found` when it is too large for
/// `kubectl apply`. Written as soon as it is built: a CRD's JSON tree is many times the
/// size of its text.
pub(super) fn file(
    crd: &Value,
    (group, _, kind): KindVersion<'_>,
    found: &mut Diagnostics,
) -> (String, String) {
    let text = crate::yaml::to_string(crd);
    warn_when_too_large(crd, &text, kind, found);
    (naming::crd_file(&group.name, &kind.plural), text)
}

/// `f` of every CRD of the model as JSON, on all cores, with what building them found:
/// what the `crd` generator writes as YAML (`crdgen import`'s round trip compares each
/// with what it read, and lets it go).
pub(crate) fn each_value<R: Send>(
    model: &Model,
    opts: &Options,
    diags: &mut Diagnostics,
    f: impl Fn(Value) -> R + Sync,
) -> Vec<R> {
    each_crd(model, opts, diags, |crd, _, _| f(crd))
}

/// One version of a kind, with its group and version.
pub(super) type KindVersion<'a> = (&'a Group, &'a Version, &'a Kind);

/// `finish` of every CRD of the model (with the kind's first version in Kubernetes'
/// order, and where to add what it finds), built on all cores, by group and kind.
pub(super) fn each_crd<R: Send>(
    model: &Model,
    opts: &Options,
    diags: &mut Diagnostics,
    finish: impl Fn(Value, KindVersion<'_>, &mut Diagnostics) -> R + Sync,
) -> Vec<R> {
    let max_description = opts.max_description_len;
    let known = known::Options {
        version: opts.kube_version,
        embedded_object_meta: opts.embedded_object_meta,
    };
    let service = &opts.webhook_service;
    let mut by_kind: BTreeMap<(&str, &str), Vec<KindVersion<'_>>> = BTreeMap::new();
    for group in model.groups.values() {
        for version in group.versions.values() {
            for kind in version.kinds.values() {
                by_kind
                    .entry((group.name.as_str(), kind.name.as_str()))
                    .or_default()
                    .push((group, version, kind));
            }
        }
    }
    let by_kind: Vec<_> = by_kind
        .into_iter()
        .map(|(key, mut versions)| {
            versions.sort_by_key(|(_, v, _)| std::cmp::Reverse(version_priority(&v.name)));
            (key, versions)
        })
        .collect();
    let built = crate::parallel::map(&by_kind, |((group_name, _), versions)| {
        let mut found = Diagnostics::default();
        let built = crd(
            model,
            group_name,
            versions,
            max_description,
            known,
            service,
            &mut found,
        );
        let finished = built.map(|crd| finish(crd, versions[0], &mut found));
        (finished, found)
    });
    let mut out = Vec::new();
    for (finished, found) in built {
        diags.extend(found.into_sorted());
        out.extend(finished);
    }
    out
}

/// A JSON object of `entries`, moved in. `json!` copies every value placed in it (it
/// serializes them): for nested schemas that was about a tenth of a large run.
pub(super) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// The most a client-side `kubectl apply` can store: it keeps the whole object as JSON in
/// the `kubectl.kubernetes.io/last-applied-configuration` annotation, and the apiserver
/// refuses annotations larger than this.
const LAST_APPLIED_LIMIT: usize = 262_144;

/// Warns when `kubectl apply -f` would fail on this CRD (written as `yaml`) for its size.
fn warn_when_too_large(crd: &Value, yaml: &str, kind: &Kind, diags: &mut Diagnostics) {
    // Most CRDs are far below the limit, and their YAML shows it without the JSON.
    if yaml.len() * crate::yaml::MAX_JSON_PER_YAML_BYTE + 2 <= LAST_APPLIED_LIMIT {
        return;
    }
    // Counted as serde_json writes it, without keeping the text.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let size = serde_json::to_writer(&mut count, crd).map_or(0, |()| count.0);
    if size > LAST_APPLIED_LIMIT {
        diags.push(
            Diagnostic::warning(
                Code::LargeCrd,
                format!(
                    "the CRD for `{}` is {size} bytes as JSON, more than the {LAST_APPLIED_LIMIT} a client-side `kubectl apply` can keep in its last-applied annotation",
                    kind.name
                ),
            )
            .at(&kind.file, kind.pos)
            .hint("apply it with `kubectl apply --server-side` (or `kubectl create`), or shorten descriptions with --max-description-len"),
        );
    }
}

/// Kubernetes' version order: GA before beta before alpha, higher numbers first.
fn version_priority(version: &str) -> (u8, u64, u64) {
    let rest = version.trim_start_matches('v');
    let major_len = rest.chars().take_while(char::is_ascii_digit).count();
    let major = rest[..major_len].parse().unwrap_or(0);
    let stage = &rest[major_len..];
    for (prefix, rank) in [("beta", 2), ("alpha", 1)] {
        if let Some(n) = stage.strip_prefix(prefix) {
            return (rank, major, n.parse().unwrap_or(0));
        }
    }
    (3, major, 0)
}

fn args(value: &MarkerValue) -> BTreeMap<String, Value> {
    let MarkerValue::Args(args) = value else {
        return BTreeMap::new();
    };
    args.iter()
        .map(|(k, v)| {
            let v = match v {
                MarkerValue::String(s) => json!(s),
                MarkerValue::Int(i) => json!(i),
                MarkerValue::Bool(b) => json!(b),
                MarkerValue::Number(n) => json!(n),
                MarkerValue::List(l) => json!(l),
                MarkerValue::Args(_) => Value::Null,
            };
            (k.clone(), v)
        })
        .collect()
}

fn crd(
    model: &Model,
    group: &str,
    versions: &[(&Group, &Version, &Kind)],
    max_description: Option<usize>,
    known: known::Options,
    service: &WebhookService,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let (_, _, first) = versions[0];
    for (_, version, kind) in &versions[1..] {
        if kind.plural != first.plural || kind.namespaced != first.namespaced {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "the versions of kind `{}` disagree on its plural or scope ({} in {})",
                        kind.name, kind.plural, version.name
                    ),
                )
                .at(&kind.file, kind.pos)
                .hint(
                    "every version of a kind is one resource: give them the same plural and scope",
                ),
            );
            return None;
        }
    }
    let served_versions: Vec<_> = versions.iter().filter(|(.., k)| k.is_served()).collect();
    let named: Vec<(&str, &Kind)> = served_versions
        .iter()
        .map(|(_, v, k)| (v.name.as_str(), *k))
        .collect();
    let storage = match crate::model::storage_version(&named)? {
        Ok(index) => named[index].0.to_owned(),
        Err(d) => {
            diags.push(d);
            return None;
        }
    };

    let mut metadata = json!({"name": format!("{}.{group}", first.plural)});
    let mut out_versions = Vec::new();
    for (_, version, kind) in served_versions {
        let errors_before = diags.error_count();
        let mut builder = Builder::new(model, known, diags);
        builder.optional_by_default = markers::OPTIONAL_BY_DEFAULT.is_set(&version.markers);
        let mut schema = root_schema(&mut builder, kind);
        cel::check(&mut schema, kind, &version.name, known.version, diags);
        defaults::check(
            &mut schema,
            kind,
            &version.name,
            known.version.minor(),
            diags,
        );
        if let Some(max) = max_description {
            truncate_descriptions(&mut schema, max);
        }
        // A schema with errors in it is not worth checking further.
        let violations = if diags.error_count() == errors_before {
            structural::violations(&schema)
        } else {
            Vec::new()
        };
        for violation in violations {
            diags.push(
                Diagnostic::error(Code::Unsupported, format!("the schema of `{}` in {} is not structural: {violation}", kind.name, version.name))
                    .at(&kind.file, kind.pos)
                    .hint("a marker on that field overrides what the type gives; see the Kubernetes structural schema rules"),
            );
        }
        jsonpath::check(kind, &schema, &version.name, known.version, diags);
        let kind_markers = &kind.markers;
        let mut entry = object([
            ("name", version.name.clone().into()),
            (
                "served",
                (!markers::UNSERVED_VERSION.is_set(kind_markers)).into(),
            ),
            ("storage", (version.name == storage).into()),
            ("schema", object([("openAPIV3Schema", schema)])),
        ]);
        if let Some(deprecated) = markers::DEPRECATED_VERSION.value(kind_markers) {
            entry["deprecated"] = json!(true);
            if let Some(warning) = args(deprecated).get("warning") {
                entry["deprecationWarning"] = warning.clone();
            }
        }
        let mut subresources = Map::new();
        if kind.status_subresource {
            subresources.insert("status".into(), json!({}));
        }
        if let Some(scale) = kind.scale() {
            let mut s = json!({
                "specReplicasPath": scale.spec_replicas,
                "statusReplicasPath": scale.status_replicas,
            });
            if let Some(selector) = scale.label_selector {
                s["labelSelectorPath"] = json!(selector);
            }
            subresources.insert("scale".into(), s);
        }
        if !subresources.is_empty() {
            entry["subresources"] = Value::Object(subresources);
        }
        let columns: Vec<Value> = markers::PRINT_COLUMN
            .all(kind_markers)
            .map(|m| {
                let a = args(&m.value);
                let mut column =
                    json!({"name": a["name"], "type": a["type"], "jsonPath": a["JSONPath"]});
                for key in ["description", "format", "priority"] {
                    if let Some(v) = a.get(key) {
                        column[key] = v.clone();
                    }
                }
                column
            })
            .collect();
        if !columns.is_empty() {
            entry["additionalPrinterColumns"] = json!(columns);
        }
        let selectable: Vec<Value> = markers::SELECTABLE_FIELD
            .all(kind_markers)
            .map(|m| json!({"jsonPath": args(&m.value)["JSONPath"]}))
            .collect();
        if !selectable.is_empty() {
            entry["selectableFields"] = json!(selectable);
        }
        if let Some(meta) = markers::METADATA.all(kind_markers).last() {
            for key in ["annotations", "labels"] {
                let Some(Value::Array(pairs)) = args(&meta.value).get(key).cloned() else {
                    continue;
                };
                for pair in pairs.iter().filter_map(Value::as_str) {
                    let Some((k, v)) = pair.split_once('=') else {
                        diags.push(
                            Diagnostic::error(
                                Code::BadMarkerArgument,
                                format!("`{pair}` in `+{}` {key} is not `key=value`", meta.name),
                            )
                            .at(&kind.file, meta.pos)
                            .hint("write each entry as `key=value`: `annotations=\"example.com/owner=team-a\"`"),
                        );
                        continue;
                    };
                    metadata[key][k] = json!(v);
                }
            }
        }
        out_versions.push(entry);
    }
    // Listed by name, as controller-gen lists them (the apiserver orders them itself).
    out_versions.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));

    let mut names = json!({
        "kind": first.name,
        "listKind": format!("{}List", first.name),
        "plural": first.plural,
        "singular": first.singular,
    });
    if !first.short_names.is_empty() {
        names["shortNames"] = json!(first.short_names);
    }
    if !first.categories.is_empty() {
        names["categories"] = json!(first.categories);
    }
    let scope = if first.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    };
    let mut spec = object([
        ("group", group.into()),
        ("names", names),
        ("scope", scope.into()),
        ("versions", Value::Array(out_versions)),
    ]);
    if versions.iter().any(|(.., k)| k.converts_by_webhook()) {
        spec["conversion"] = conversion(service);
        if let Some(certificate) = &service.inject_ca_from {
            metadata["annotations"][naming::INJECT_CA_FROM] = certificate.as_str().into();
        }
    }
    Some(object([
        ("apiVersion", "apiextensions.k8s.io/v1".into()),
        ("kind", "CustomResourceDefinition".into()),
        ("metadata", metadata),
        ("spec", spec),
    ]))
}

/// Webhook conversion as kubebuilder's `webhook_in_<kind>` patch configures it: the
/// webhook Service at `/convert`, reviews in v1.
fn conversion(service: &WebhookService) -> Value {
    object([
        ("strategy", "Webhook".into()),
        (
            "webhook",
            object([
                (
                    "clientConfig",
                    object([(
                        "service",
                        object([
                            ("name", service.name.as_str().into()),
                            ("namespace", service.namespace.as_str().into()),
                            ("path", naming::CONVERSION_PATH.into()),
                        ]),
                    )]),
                ),
                ("conversionReviewVersions", Value::Array(vec!["v1".into()])),
            ]),
        ),
    ])
}

/// Cuts every description longer than `max` characters, at the last sentence end
/// within the limit when there is one, as controller-gen's `maxDescLen` does.
/// Cuts every description to `max` bytes as controller-gen's `maxDescLen` does: after
/// the last sentence end within them, else at the last space with `...`; 0 drops them.
fn truncate_descriptions(schema: &mut Value, max: usize) {
    match schema {
        Value::Object(map) => {
            if max == 0 && map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" && text.len() > max => {
                        *text = truncated(text, max);
                    }
                    other => truncate_descriptions(other, max),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| truncate_descriptions(v, max)),
        _ => {}
    }
}

fn truncated(text: &str, max: usize) -> String {
    let end = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let cut = &text[..end];
    // Unicode's sentence terminals that docs use; controller-gen takes all of STerm.
    let sentence_end = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '．' | '｡');
    let last = |is: &dyn Fn(char) -> bool| cut.char_indices().rev().find(|&(i, c)| i > 0 && is(c));
    if let Some((i, c)) = last(&sentence_end) {
        cut[..i + c.len_utf8()].to_owned()
    } else if let Some((i, _)) = last(&char::is_whitespace) {
        format!("{}...", &cut[..i])
    } else {
        format!("{cut}...")
    }
}

/// The schema of the whole object: apiVersion, kind, metadata (as the apiserver wants
/// it at the root: just an object), spec, status.
fn root_schema(builder: &mut Builder<'_>, kind: &Kind) -> Value {
    let site = Site {
        file: &kind.file,
        pos: kind.pos,
    };
    let version = builder
        .model
        .groups
        .get(&kind.root.group)
        .and_then(|g| g.versions.get(&kind.root.version));
    let mut schema = match kind.style {
        KindStyle::Markers => {
            let Some(def) = version.and_then(|v| v.types.get(&kind.root.id())) else {
                return json!({});
            };
            builder.type_def(def, &[], &BTreeMap::new())
        }
        KindStyle::KubeDerive => {
            let mut properties = Map::new();
            let spec_def = kind
                .spec_key()
                .and_then(|k| version.and_then(|v| v.types.get(&k.id())));
            if let Some(def) = spec_def {
                properties.insert("spec".into(), builder.type_def(def, &[], &BTreeMap::new()));
            }
            // Not nullable: the root kube-derive writes skips a `None` status
            // (`skip_serializing_if`), so no null is ever sent (crdgen's rule for Option).
            if let Some(status) = &kind.status {
                let s = builder.type_ref(status, &BTreeMap::new(), site);
                properties.insert("status".into(), s);
            }
            let spec_name = spec_def.map(|d| d.key.name.as_str()).unwrap_or_default();
            // kube-derive's `doc = ".."`, else the description kube-derive gives.
            let description = spec_def
                .and_then(|d| d.kube.as_ref())
                .and_then(|k| k.doc.clone())
                .unwrap_or_else(|| {
                    format!("Auto-generated derived type for {spec_name} via `CustomResource`")
                });
            object([
                ("type", "object".into()),
                ("description", description.into()),
                ("properties", Value::Object(properties)),
                ("required", json!(["spec"])),
            ])
        }
    };
    for rule in &kind.root_rules {
        let mut entry = json!({"rule": rule.rule});
        if let Some(message) = &rule.message {
            entry["message"] = json!(message);
        }
        crate::markers::schema::push_rule(&mut schema, entry);
    }
    let root = schema.as_object_mut().expect("an object schema");
    let properties = root.entry("properties").or_insert_with(|| json!({}));
    // metav1.TypeMeta's fields, as a Go kind embeds them.
    if let (Value::Object(properties), Value::Object(type_meta)) =
        (&mut *properties, known::type_meta(builder.known))
    {
        properties.extend(type_meta);
    }
    properties["metadata"] = json!({"type": "object"});
    // Every object has metadata, so a kind's is required only where its field says so
    // (controller-gen's, for a Go `metadata` field without omitempty).
    let metadata_required = version
        .and_then(|v| v.types.get(&kind.root.id()))
        .is_some_and(metadata_marked_required);
    if let Some(Value::Array(required)) = root.get_mut("required") {
        required.retain(|r| r != "metadata" || metadata_required);
        if required.is_empty() {
            root.remove("required");
        }
    }
    schema
}

/// Whether a kind's `metadata` field carries `+required` (or `+k8s:required`).
fn metadata_marked_required(def: &crate::model::TypeDef) -> bool {
    let crate::model::Body::Struct(fields) = &def.body else {
        return false;
    };
    fields.all().iter().any(|f| {
        f.wire_name.as_deref().unwrap_or(&f.name) == "metadata"
            && (crate::markers::REQUIRED.is_present(&f.markers)
                || crate::markers::K8S_REQUIRED.is_present(&f.markers))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_as_kubernetes_sorts_them() {
        let mut versions = vec![
            "v1alpha1", "v1beta1", "v2", "v1", "v1beta2", "v2alpha1", "v10",
        ];
        versions.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
        assert_eq!(
            versions,
            [
                "v10", "v2", "v1", "v1beta2", "v1beta1", "v2alpha1", "v1alpha1"
            ]
        );
    }
}
