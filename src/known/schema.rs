//! The schema controller-gen (v0.18) writes for a Kubernetes Go type, built from the
//! facts the hack step read from its source: struct fields by JSON tag, required unless
//! `omitempty`, `inline` or `+optional`; Go's basic types with controller-gen's formats;
//! its built-in schemas for the apimachinery types it knows (`Time`, `Quantity`,
//! `IntOrString`, `RawExtension`, `ObjectMeta`…); the type's doc as its description, a
//! field's own doc over it; and the Go markers (`+listType`, `+default`,
//! `+structType`…) applied with crdgen's meaning of each, which is controller-gen's.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use serde_json::{Map, Value, json};

use super::data::{self, GoField, GoTypeFacts};
use super::go::{GoType, short_name};
use super::version::KubeVersion;
use crate::diag::Diagnostics;
use crate::markers::{self, Marker, Target};

/// What shapes the schemas of Kubernetes' types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    pub version: KubeVersion,
    /// controller-gen's `crd:generateEmbeddedObjectMeta`: an embedded `ObjectMeta` gets
    /// its name, namespace, labels, annotations and finalizers, not a bare object.
    pub embedded_object_meta: bool,
}

/// Why a Kubernetes type has no schema.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The type exists, but not in the version being generated for.
    NotInVersion {
        name: String,
        version: KubeVersion,
        available: String,
    },
    /// A Go type the facts do not have (`time.Time`, the `runtime.Object` interface).
    NoFacts {
        name: String,
        within: String,
    },
    Recursive {
        cycle: Vec<String>,
    },
    /// A field controller-gen cannot place: no JSON tag.
    NoJsonTag {
        name: String,
        field: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotInVersion {
                name,
                version,
                available,
            } => write!(
                f,
                "`{name}` is not in Kubernetes {version}; k8s-openapi has it in {available}"
            ),
            Problem::NoFacts { name, within } if within.is_empty() => write!(
                f,
                "`{name}` is not in the Kubernetes source crdgen's types were read from"
            ),
            Problem::NoFacts { name, within } => {
                write!(f, "`{within}` uses `{name}`, which has no CRD schema")
            }
            Problem::Recursive { cycle } => write!(
                f,
                "`{}` is recursive ({}), which a CRD schema cannot express",
                cycle[0],
                cycle.join(" → ")
            ),
            Problem::NoJsonTag { name, field } => {
                write!(f, "field `{field}` of `{name}` has no JSON tag")
            }
        }
    }
}

/// The pattern controller-gen gives `resource.Quantity`.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

const META: &str = "k8s.io/apimachinery/pkg/apis/meta/v1";

/// The schema of the Go type `name` (`k8s.io/api/core/v1.PodSpec`), flattened.
pub fn go_type(name: &str, options: Options) -> Result<Value, Problem> {
    Translator::new(options).named(name)
}

/// The Go markers left out of `name`'s schema for not fitting their type.
#[cfg(test)]
pub fn misplaced_markers(name: &str, options: Options) -> Vec<String> {
    let mut translator = Translator::new(options);
    let _ = translator.named(name);
    translator.misplaced
}

/// Flattened schemas of named types, with the markers they left out, made once a
/// process: the same few (`ObjectMeta`, `Container`) recur in every kind.
type Cache = HashMap<(String, Options), (Value, Vec<String>)>;

fn cache() -> MutexGuard<'static, Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

struct Translator {
    options: Options,
    /// The named types being built, outermost first.
    stack: Vec<String>,
    /// The Go markers left out for not fitting, as `Type: why`.
    misplaced: Vec<String>,
}

impl Translator {
    fn new(options: Options) -> Self {
        Translator {
            options,
            stack: Vec::new(),
            misplaced: Vec::new(),
        }
    }

    fn named(&mut self, name: &str) -> Result<Value, Problem> {
        if let Some(schema) = basic(name).or_else(|| self.built_in(name)) {
            return Ok(schema);
        }
        // A type met inside itself is refused whatever the cache holds (a test builds
        // such a stack by hand, and another may have cached the type).
        if let Some(start) = self.stack.iter().position(|n| n == name) {
            let mut cycle: Vec<String> = self.stack[start..]
                .iter()
                .map(|n| short_name(n).to_owned())
                .collect();
            cycle.push(short_name(name).to_owned());
            return Err(Problem::Recursive { cycle });
        }
        let key = (name.to_owned(), self.options);
        if let Some((schema, misplaced)) = cache().get(&key) {
            self.misplaced.extend(misplaced.iter().cloned());
            return Ok(schema.clone());
        }
        let within = self.stack.last().cloned().unwrap_or_default();
        let facts = data::go_type(name).ok_or_else(|| Problem::NoFacts {
            name: name.to_owned(),
            within: within.clone(),
        })?;
        let version = self.options.version;
        let Some(facts) = facts.into_iter().find(|f| f.versions.contains(version)) else {
            return Err(Problem::NotInVersion {
                name: name.to_owned(),
                version,
                available: available(name),
            });
        };
        self.stack.push(name.to_owned());
        let misplaced_before = self.misplaced.len();
        let built = self.facts(name, &facts);
        self.stack.pop();
        // Problems inside a type depend on where it is used from (recursion): only
        // schemas are kept.
        if let Ok(schema) = &built {
            let misplaced = self.misplaced[misplaced_before..].to_vec();
            cache().insert(key, (schema.clone(), misplaced));
        }
        built
    }

    /// controller-gen's `infoToSchema` and `typeToSchema` for a named type.
    fn facts(&mut self, name: &str, facts: &GoTypeFacts) -> Result<Value, Problem> {
        let type_markers = parse_markers(&facts.markers, Target::Type);
        let marshals = |m: &str| facts.marshals.iter().any(|x| x == m);
        // A type with its own JSON form is what its markers say, if they say a type.
        if marshals("MarshalJSON") {
            let mut schema = json!({});
            self.apply(&mut schema, &type_markers);
            if schema.get("type").is_some() {
                return Ok(schema);
            }
        } else if marshals("MarshalText") {
            let mut schema = json!({"type": "string"});
            self.apply(&mut schema, &type_markers);
            return Ok(schema);
        }
        let mut schema = match (&facts.fields, &facts.underlying) {
            (Some(fields), _) => self.structure(name, fields)?,
            (None, Some(underlying)) => self.expression(underlying)?,
            (None, None) => json!({}),
        };
        if !facts.doc.is_empty() {
            schema["description"] = json!(facts.doc);
        }
        self.apply(&mut schema, &type_markers);
        Ok(schema)
    }

    fn expression(&mut self, text: &str) -> Result<Value, Problem> {
        let ty = GoType::parse(text).ok_or_else(|| Problem::NoFacts {
            name: text.to_owned(),
            within: self.stack.last().cloned().unwrap_or_default(),
        })?;
        self.go(&ty)
    }

    fn go(&mut self, ty: &GoType<'_>) -> Result<Value, Problem> {
        Ok(match ty {
            GoType::Named(name) => self.named(name)?,
            GoType::Pointer(inner) => self.go(inner)?,
            // Byte slices go on the wire base64-encoded.
            GoType::Slice(inner) if matches!(**inner, GoType::Named("byte" | "uint8")) => {
                json!({"type": "string", "format": "byte"})
            }
            GoType::Slice(inner) | GoType::Array(inner) => {
                json!({"type": "array", "items": self.go(inner)?})
            }
            GoType::Map(_, value) => {
                json!({"type": "object", "additionalProperties": self.go(value)?})
            }
        })
    }

    /// controller-gen's `structToSchema`, with embedded (`inline`) fields flattened in.
    fn structure(&mut self, name: &str, fields: &[GoField]) -> Result<Value, Problem> {
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut embedded = Vec::new();
        for field in fields {
            let Some(tag) = &field.json else {
                return Err(Problem::NoJsonTag {
                    name: name.to_owned(),
                    field: field.go.clone(),
                });
            };
            if tag == "-" {
                continue;
            }
            let mut options = tag.split(',');
            let wire = options.next().unwrap_or_default();
            let options: Vec<&str> = options.collect();
            let inline = options.contains(&"inline") || wire.is_empty();
            let omit_empty = options.contains(&"omitempty");
            let field_markers = parse_markers(&field.markers, Target::Field);
            let has = |marker: &markers::MarkerDef| marker.is_present(&field_markers);
            let is_required = if has(&markers::OPTIONAL_BY_DEFAULT) {
                false
            } else if has(&markers::REQUIRED_BY_DEFAULT) {
                true
            } else if has(&markers::OPTIONAL) {
                false
            } else {
                has(&markers::REQUIRED) || (!inline && !omit_empty)
            };
            let mut schema = if has(&markers::SCHEMALESS) {
                json!({})
            } else {
                self.expression(&field.ty)?
            };
            if !field.doc.is_empty() {
                schema["description"] = json!(field.doc);
            }
            self.apply(&mut schema, &field_markers);
            if is_required {
                required.push(wire.to_owned());
            }
            if inline {
                embedded.push(schema);
            } else {
                properties.insert(wire.to_owned(), schema);
            }
        }
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        if !properties.is_empty() {
            schema.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        for inner in embedded {
            if let Value::Object(inner) = inner {
                flatten_into(&mut schema, &inner);
            }
        }
        sort_required(&mut schema);
        Ok(Value::Object(schema))
    }

    /// Applies the Go markers that fit. Kubernetes' source misplaces a few (`+listType`
    /// on the `[]byte` of CertificateSigningRequestSpec.request and on metav1.Status's
    /// details, up to 1.34), for which controller-gen refuses the whole type; the
    /// apiserver's own schemas leave them out, and so does crdgen.
    fn apply(&mut self, schema: &mut Value, markers: &[Marker]) {
        let mut diags = Diagnostics::default();
        markers::schema::apply(schema, markers, "", &mut diags);
        let within = self.stack.last().map_or("", |n| short_name(n));
        self.misplaced.extend(
            diags
                .into_sorted()
                .into_iter()
                .map(|d| format!("{within}: {}", d.message)),
        );
    }

    /// controller-gen's own schemas for the apimachinery types it knows.
    fn built_in(&self, name: &str) -> Option<Value> {
        let (package, short) = name.rsplit_once('.')?;
        let int_or_string = || json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true});
        Some(match (package, short) {
            (META, "ObjectMeta") if self.options.embedded_object_meta => {
                let strings = json!({"type": "object", "additionalProperties": {"type": "string"}});
                json!({"type": "object", "properties": {
                    "annotations": strings,
                    "finalizers": {"type": "array", "items": {"type": "string"}},
                    "labels": strings,
                    "name": {"type": "string"},
                    "namespace": {"type": "string"},
                }})
            }
            (META, "ObjectMeta") => json!({"type": "object"}),
            (META, "Time" | "MicroTime") => json!({"type": "string", "format": "date-time"}),
            (META, "Duration") => json!({"type": "string"}),
            // Recursive: any map.
            (META, "Fields") => json!({"type": "object", "additionalProperties": true}),
            ("k8s.io/apimachinery/pkg/apis/meta/v1/unstructured", "Unstructured") => {
                json!({"type": "object"})
            }
            ("k8s.io/apimachinery/pkg/api/resource", "Quantity") => {
                let mut schema = int_or_string();
                schema["pattern"] = json!(QUANTITY_PATTERN);
                schema
            }
            ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString") => int_or_string(),
            ("k8s.io/apimachinery/pkg/runtime", "RawExtension") => {
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
            }
            (
                "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
                | "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1",
                "JSON",
            ) => json!({"x-kubernetes-preserve-unknown-fields": true}),
            _ => return None,
        })
    }
}

/// Go's basic types as controller-gen writes them (floats as with
/// `crd:allowDangerousTypes=true`: crdgen allows them).
fn basic(name: &str) -> Option<Value> {
    Some(match name {
        "bool" => json!({"type": "boolean"}),
        "string" => json!({"type": "string"}),
        "int32" | "uint32" | "rune" => json!({"type": "integer", "format": "int32"}),
        "int64" | "uint64" => json!({"type": "integer", "format": "int64"}),
        "int" | "int8" | "int16" | "uint" | "uint8" | "uint16" | "byte" | "uintptr" => {
            json!({"type": "integer"})
        }
        "float32" | "float64" => json!({"type": "number"}),
        _ => return None,
    })
}

/// The versions any run of `name`'s facts covers.
fn available(name: &str) -> String {
    let runs: Vec<String> = data::go_type(name)
        .unwrap_or_default()
        .iter()
        .map(|f| f.versions.to_string())
        .collect();
    runs.join(", ")
}

/// Markers of the facts, as crdgen reads them. The hack step keeps only markers
/// controller-gen gives a schema meaning, and a test parses them all.
fn parse_markers(texts: &[String], target: Target) -> Vec<Marker> {
    texts
        .iter()
        .filter_map(|text| markers::parse(text, target).ok().flatten())
        .collect()
}

/// controller-gen's `flattenAllOfInto`: `src`'s keys into `dst`. Properties merge,
/// `required` lists join, the preserve-unknown-fields and map-type flags of `src` win,
/// docs stay `dst`'s, and any other disagreement is kept as an `allOf` of both.
fn flatten_into(dst: &mut Map<String, Value>, src: &Map<String, Value>) {
    let mut dst_rest = Map::new();
    let mut src_rest = Map::new();
    for (key, value) in src {
        if matches!(
            key.as_str(),
            "allOf" | "title" | "description" | "example" | "externalDocs"
        ) {
            continue;
        }
        let Some(existing) = dst.get_mut(key) else {
            dst.insert(key.clone(), value.clone());
            continue;
        };
        if existing == value {
            continue;
        }
        match (key.as_str(), existing, value) {
            ("properties", Value::Object(mine), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    match (mine.get_mut(name), schema) {
                        (Some(Value::Object(mine)), Value::Object(theirs)) => {
                            flatten_into(mine, theirs)
                        }
                        _ => {
                            mine.insert(name.clone(), schema.clone());
                        }
                    }
                }
            }
            ("required", Value::Array(mine), Value::Array(theirs)) => {
                mine.extend(theirs.iter().cloned())
            }
            ("type", ..) => {}
            ("additionalProperties", Value::Object(mine), Value::Object(theirs)) => {
                flatten_into(mine, theirs)
            }
            (
                "x-kubernetes-preserve-unknown-fields" | "x-kubernetes-map-type",
                existing,
                theirs,
            ) => *existing = theirs.clone(),
            ("x-kubernetes-validations", Value::Array(mine), Value::Array(theirs)) => {
                let mut joined = theirs.clone();
                joined.append(mine);
                *mine = joined;
            }
            (_, existing, theirs) => {
                dst_rest.insert(key.clone(), existing.clone());
                src_rest.insert(key.clone(), theirs.clone());
            }
        }
    }
    if !dst_rest.is_empty() {
        for key in dst_rest.keys() {
            dst.remove(key);
        }
        let all_of = dst.entry("allOf").or_insert_with(|| json!([]));
        if let Value::Array(all_of) = all_of {
            all_of.push(Value::Object(dst_rest));
            all_of.push(Value::Object(src_rest));
        }
    }
    sort_required(dst);
}

fn sort_required(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        let mut names: Vec<String> = required
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        names.sort();
        names.dedup();
        *required = names.into_iter().map(Value::String).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_met_inside_itself_is_refused_naming_the_cycle() {
        let pod_spec = "k8s.io/api/core/v1.PodSpec";
        let mut translator = Translator::new(Options {
            version: KubeVersion::latest(),
            embedded_object_meta: false,
        });
        translator.stack = vec![
            pod_spec.to_owned(),
            "k8s.io/api/core/v1.PodTemplateSpec".to_owned(),
        ];
        let err = translator.named(pod_spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`PodSpec` is recursive (PodSpec → PodTemplateSpec → PodSpec), which a CRD schema cannot express"
        );
    }

    #[test]
    fn embedded_fields_flatten_as_controller_gen_flattens_them() {
        let mut dst = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "maxProperties": 3});
        let src = json!({"type": "object", "description": "kept out", "properties": {"b": {"type": "integer"}}, "required": ["b", "a"], "maxProperties": 4, "x-kubernetes-map-type": "atomic"});
        flatten_into(dst.as_object_mut().unwrap(), src.as_object().unwrap());
        assert_eq!(
            dst,
            json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "x-kubernetes-map-type": "atomic",
                "allOf": [{"maxProperties": 3}, {"maxProperties": 4}],
            })
        );
    }
}
