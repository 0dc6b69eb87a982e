//! The Kubernetes types crdgen knows the schemas of: `k8s.json`, written by
//! `hack/update-k8s-schemas.sh` from k8s-openapi's schemars support, with the
//! kubebuilder validation markers of their Go source on top (`validations.json`, written
//! by `hack/update-known-validations.sh`: what controller-gen reads from the same types,
//! such as metav1.Condition's patterns and lengths), and a few the Kubernetes OpenAPI
//! document has no type for.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::Target;

#[derive(Deserialize)]
struct Data {
    /// Rust path → definition name.
    types: BTreeMap<String, String>,
    /// Definition name → schema, referring to others by `$ref: #/$defs/<name>`.
    definitions: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct Validations {
    /// Definition name → JSON field name → markers (without their `+`).
    definitions: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// Where diagnostics about the overlay point.
const VALIDATIONS_FILE: &str = "src/known/validations.json";

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut data: Data = serde_json::from_str(include_str!("k8s.json"))
            .expect("src/known/k8s.json is generated valid");
        // A marker that does not apply would be a bug in the hack step, which a test
        // rules out; here it is left out.
        with_validations(&mut data, &mut Diagnostics::default());
        data
    })
}

/// Puts the Go source's validation markers on the definitions' fields, with crdgen's
/// own meaning of each marker. A field that refers to another definition gets that
/// definition inlined first, so that the markers apply to its type.
fn with_validations(data: &mut Data, diags: &mut Diagnostics) {
    let overlay: Validations = serde_json::from_str(include_str!("validations.json"))
        .expect("src/known/validations.json is generated valid");
    for (definition, fields) in overlay.definitions {
        for (field, texts) in fields {
            let schema = data
                .definitions
                .get(&definition)
                .and_then(|d| d.get("properties")?.get(&field))
                .map(|s| inline(s, &data.definitions));
            let Some(mut schema) = schema else {
                diags.push(
                    Diagnostic::error(
                        Code::Bug,
                        format!("`{definition}` has no field `{field}` in k8s.json"),
                    )
                    .at_path(VALIDATIONS_FILE)
                    .hint("run hack/update-known-validations.sh after hack/update-k8s-schemas.sh"),
                );
                continue;
            };
            let mut markers = Vec::new();
            for text in &texts {
                match crate::markers::parse(text, Target::Field) {
                    Ok(Some(marker)) => markers.push(marker),
                    _ => diags.push(
                        Diagnostic::error(
                            Code::Bug,
                            format!("`+{text}` is not a marker crdgen reads"),
                        )
                        .at_path(VALIDATIONS_FILE)
                        .hint("the hack step keeps only `+kubebuilder:validation:` markers"),
                    ),
                }
            }
            crate::markers::schema::apply(&mut schema, &markers, VALIDATIONS_FILE, diags);
            data.definitions
                .get_mut(&definition)
                .and_then(|d| d.get_mut("properties"))
                .and_then(|p| p.as_object_mut())
                .map(|p| p.insert(field, schema));
        }
    }
}

/// Whether `path` (absolute, `k8s_openapi::api::core::v1::PodSpec`) is a known type.
pub fn knows(path: &str) -> bool {
    special(path).is_some() || data().types.contains_key(path)
}

/// The schema of a known type named by its absolute Rust path (or, when the path
/// could not be resolved, by a bare name that only one known type has), with every
/// definition it uses inlined.
pub fn schema(path: &str, bare_name: Option<&str>) -> Option<Value> {
    if let Some(special) = special(path) {
        return Some(special);
    }
    let data = data();
    let definition = match data.types.get(path) {
        Some(d) => d,
        None => {
            let name = bare_name?;
            let mut matches = data
                .types
                .iter()
                .filter(|(p, _)| p.rsplit("::").next() == Some(name));
            let (_, d) = matches.next()?;
            if matches.next().is_some() {
                return None;
            }
            d
        }
    };
    Some(inlined(definition))
}

/// The definition named `name` with every `$ref` inlined, made once a run: the same
/// few (`ObjectMeta`, `Condition`) recur in every kind.
fn inlined(name: &str) -> Value {
    static INLINED: Mutex<BTreeMap<String, Value>> = Mutex::new(BTreeMap::new());
    let mut cache = INLINED.lock().unwrap_or_else(PoisonError::into_inner);
    cache
        .entry(name.to_owned())
        .or_insert_with(|| {
            let definitions = &data().definitions;
            inline(&definitions[name], definitions)
        })
        .clone()
}

/// Types outside k8s-openapi's definitions, mapped as Kubernetes serializes them.
fn special(path: &str) -> Option<Value> {
    Some(match path {
        // metav1.Duration and kube's Duration serialize as Go duration strings.
        "kube::core::Duration" | "kube_core::Duration" | "kube::core::duration::Duration" => {
            json!({"type": "string"})
        }
        "serde_json::Value" => json!({"x-kubernetes-preserve-unknown-fields": true}),
        _ => return None,
    })
}

/// Replaces every `$ref` with the definition it names (keeping the referring schema's
/// other keys, such as its description, on top).
fn inline(schema: &Value, definitions: &BTreeMap<String, Value>) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            let target = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| definitions.get(name));
            if let Some(Value::Object(target)) = target.map(|d| inline(d, definitions)) {
                out.extend(target);
            }
            for (k, v) in map.iter().filter(|(k, _)| *k != "$ref") {
                out.insert(k.clone(), inline(v, definitions));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, definitions)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_go_validations_apply_cleanly_to_the_known_schemas() {
        let mut data: Data = serde_json::from_str(include_str!("k8s.json")).unwrap();
        let mut diags = Diagnostics::default();
        with_validations(&mut data, &mut diags);
        assert!(!diags.has_errors(), "{:?}", diags.into_sorted());
        let condition = schema(
            "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
            None,
        )
        .unwrap();
        let field = |name: &str| &condition["properties"][name];
        assert_eq!(field("type")["maxLength"], 316);
        assert_eq!(field("status")["enum"], json!(["True", "False", "Unknown"]));
        assert_eq!(field("reason")["minLength"], 1);
        assert_eq!(field("reason")["maxLength"], 1024);
        assert_eq!(
            field("reason")["pattern"],
            "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
        );
        assert_eq!(field("message")["maxLength"], 32768);
        assert_eq!(field("observedGeneration")["minimum"], 0);
        assert_eq!(field("lastTransitionTime")["format"], "date-time");
        assert!(field("lastTransitionTime").get("$ref").is_none());
    }

    #[test]
    fn known_types_inline_their_definitions() {
        let spec = schema("k8s_openapi::api::core::v1::PodSpec", None).unwrap();
        assert_eq!(spec["type"], "object");
        assert_eq!(
            spec["properties"]["containers"]["items"]["properties"]["image"]["type"],
            "string"
        );
        assert!(!serde_json::to_string(&spec).unwrap().contains("$ref"));
        let quantity = schema(
            "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
            None,
        )
        .unwrap();
        assert_eq!(quantity["x-kubernetes-int-or-string"], true);
        assert_eq!(
            schema("nowhere::Time", Some("Time")).unwrap()["format"],
            "date-time"
        );
        assert!(schema("nowhere::Nothing", Some("Nothing")).is_none());
    }
}
