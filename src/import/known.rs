//! Kubernetes' own types, recognised in an imported schema by their shape: a node whose
//! schema, descriptions aside, is the one crdgen writes for a k8s-openapi type in some
//! Kubernetes version crdgen knows is written as that type, as a person would write it.
//!
//! The shapes are read from an index (`known.jsonl`: each type's property names and
//! fingerprints of its schema in each version), not built from the facts of every
//! version: a run then pays for the Kubernetes types it uses, not for all of them. A
//! unit test holds the index to what the schemas give.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::known::KubeVersion;

/// The types recognised, by the name a file imports them as, and their path.
pub const TYPES: &[(&str, &str)] = &[
    ("Affinity", "k8s_openapi::api::core::v1::Affinity"),
    (
        "Condition",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
    ),
    (
        "ConfigMapKeySelector",
        "k8s_openapi::api::core::v1::ConfigMapKeySelector",
    ),
    ("Container", "k8s_openapi::api::core::v1::Container"),
    ("EnvFromSource", "k8s_openapi::api::core::v1::EnvFromSource"),
    ("EnvVar", "k8s_openapi::api::core::v1::EnvVar"),
    ("HostAlias", "k8s_openapi::api::core::v1::HostAlias"),
    (
        "LabelSelector",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector",
    ),
    (
        "LocalObjectReference",
        "k8s_openapi::api::core::v1::LocalObjectReference",
    ),
    (
        "ObjectReference",
        "k8s_openapi::api::core::v1::ObjectReference",
    ),
    (
        "OwnerReference",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference",
    ),
    (
        "PersistentVolumeClaimSpec",
        "k8s_openapi::api::core::v1::PersistentVolumeClaimSpec",
    ),
    (
        "PodSecurityContext",
        "k8s_openapi::api::core::v1::PodSecurityContext",
    ),
    ("PodSpec", "k8s_openapi::api::core::v1::PodSpec"),
    (
        "PodTemplateSpec",
        "k8s_openapi::api::core::v1::PodTemplateSpec",
    ),
    ("Probe", "k8s_openapi::api::core::v1::Probe"),
    (
        "ResourceRequirements",
        "k8s_openapi::api::core::v1::ResourceRequirements",
    ),
    (
        "SecretKeySelector",
        "k8s_openapi::api::core::v1::SecretKeySelector",
    ),
    (
        "SecretReference",
        "k8s_openapi::api::core::v1::SecretReference",
    ),
    (
        "SecurityContext",
        "k8s_openapi::api::core::v1::SecurityContext",
    ),
    ("Toleration", "k8s_openapi::api::core::v1::Toleration"),
    (
        "TopologySpreadConstraint",
        "k8s_openapi::api::core::v1::TopologySpreadConstraint",
    ),
    (
        "TypedLocalObjectReference",
        "k8s_openapi::api::core::v1::TypedLocalObjectReference",
    ),
    ("Volume", "k8s_openapi::api::core::v1::Volume"),
    ("VolumeMount", "k8s_openapi::api::core::v1::VolumeMount"),
];

/// The keywords a field may add to a Kubernetes type's schema where it uses one: its
/// description and what markers on the field write.
pub const FIELD_KEYWORDS: &[&str] = &[
    "description",
    "nullable",
    "default",
    "example",
    "title",
    "externalDocs",
    "x-kubernetes-validations",
];

/// One recognised type's schema in one Kubernetes version, as the index has it.
#[derive(Deserialize, Serialize, PartialEq, Debug)]
struct Known {
    name: String,
    minor: u16,
    /// Its property names, to pass it over at a glance.
    keys: Vec<String>,
    /// The fingerprint of the schema without any description.
    bare: u64,
    /// The fingerprint of the schema but its own top-level description (a field's
    /// shows in its place).
    full: u64,
}

const INDEX: &str = include_str!("known.jsonl");

/// The index, by type in table order, each type's versions oldest first.
fn index() -> &'static [Known] {
    static INDEXED: OnceLock<Vec<Known>> = OnceLock::new();
    INDEXED.get_or_init(|| {
        INDEX
            .lines()
            .map(|line| serde_json::from_str(line).expect("src/import/known.jsonl is valid"))
            .collect()
    })
}

/// The names not to recognise (a kind's own), and the Kubernetes versions whose types
/// match every use so far, structurally and exactly.
#[derive(Default)]
pub struct Shapes {
    excluded: BTreeSet<String>,
    structural: Option<BTreeSet<u16>>,
    exact: Option<BTreeSet<u16>>,
}

impl Shapes {
    /// Recognises no type of these names: a package whose kind is `Probe` has its own.
    pub fn exclude<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        self.excluded = names.into_iter().map(str::to_owned).collect();
    }

    /// The name of the Kubernetes type `node` is, if it is one: its object schema (but
    /// the field's own keywords) is a recognised type's in some version. Two types of
    /// one shape (a Secret's key selector and a ConfigMap's) are told apart by their
    /// descriptions where they can be.
    pub fn recognise(&mut self, node: &Value) -> Option<&'static str> {
        let keys = property_names(node)?;
        let excluded = &self.excluded;
        let mut same_keys = index()
            .iter()
            .filter(|k| k.keys == keys && !excluded.contains(&k.name))
            .peekable();
        // Most objects are none of them: nothing is copied for those.
        same_keys.peek()?;
        let mut shape = node.clone();
        if let Some(map) = shape.as_object_mut() {
            map.retain(|k, _| !FIELD_KEYWORDS.contains(&k.as_str()));
        }
        let mut bare = shape.clone();
        strip_descriptions(&mut bare);
        let (shape, bare) = (fingerprint(&shape), fingerprint(&bare));
        // Per type, in table order: the versions it matches in, and exactly in.
        let mut candidates: Vec<(&'static str, BTreeSet<u16>, BTreeSet<u16>)> = Vec::new();
        for k in same_keys.filter(|k| k.bare == bare) {
            if candidates.last().is_none_or(|(name, ..)| *name != k.name) {
                candidates.push((&k.name, BTreeSet::new(), BTreeSet::new()));
            }
            if let Some((_, structural, exact)) = candidates.last_mut() {
                structural.insert(k.minor);
                if k.full == shape {
                    exact.insert(k.minor);
                }
            }
        }
        let best = candidates
            .iter()
            .position(|(_, _, exact)| !exact.is_empty())
            .unwrap_or(0);
        let (name, structural, exact) =
            (best < candidates.len()).then(|| candidates.swap_remove(best))?;
        narrow(&mut self.structural, structural);
        narrow(&mut self.exact, exact);
        Some(name)
    }

    /// The Kubernetes version the recognised types are written for: the newest whose
    /// types match every use, descriptions too if one does; `None` if none was used.
    pub fn version(&self) -> Option<KubeVersion> {
        let structural = self.structural.as_ref()?;
        let exact = self
            .exact
            .iter()
            .flatten()
            .filter(|v| structural.contains(v))
            .max();
        let minor = exact.or(structural.iter().max())?;
        format!("1.{minor}").parse().ok()
    }
}

/// A fingerprint of a schema, the same for equal values (`==`) in every build: 64 bits
/// of FNV-1a over its JSON, each value tagged with its type and length, object keys in
/// order. The index stands for each schema by it.
fn fingerprint(value: &Value) -> u64 {
    struct Fnv(u64);
    impl Fnv {
        fn bytes(&mut self, bytes: &[u8]) {
            for byte in bytes {
                self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        fn tagged(&mut self, tag: u8, text: &str) {
            self.bytes(&[tag]);
            self.bytes(&(text.len() as u64).to_le_bytes());
            self.bytes(text.as_bytes());
        }
        fn value(&mut self, value: &Value) {
            match value {
                Value::Null => self.bytes(b"n"),
                Value::Bool(b) => self.bytes(if *b { b"t" } else { b"f" }),
                // 1 and 1.0 are not equal in serde_json, and print apart.
                Value::Number(n) => self.tagged(b'#', &n.to_string()),
                Value::String(s) => self.tagged(b's', s),
                Value::Array(items) => {
                    self.tagged(b'a', "");
                    self.bytes(&(items.len() as u64).to_le_bytes());
                    items.iter().for_each(|item| self.value(item));
                }
                Value::Object(map) => {
                    self.tagged(b'o', "");
                    self.bytes(&(map.len() as u64).to_le_bytes());
                    let mut entries: Vec<_> = map.iter().collect();
                    entries.sort_unstable_by_key(|(k, _)| *k);
                    for (key, value) in entries {
                        self.tagged(b'k', key);
                        self.value(value);
                    }
                }
            }
        }
    }
    let mut fnv = Fnv(0xcbf2_9ce4_8422_2325);
    fnv.value(value);
    fnv.0
}

/// `versions` narrowed to those also in `more`.
fn narrow(versions: &mut Option<BTreeSet<u16>>, more: BTreeSet<u16>) {
    *versions = Some(match versions.take() {
        Some(so_far) => so_far.intersection(&more).copied().collect(),
        None => more,
    });
}

/// The names of an object schema's properties, sorted; `None` for no object.
fn property_names(schema: &Value) -> Option<Vec<String>> {
    let properties = schema.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect())
}

/// `schema` without any `description`, at any depth.
fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.remove("description");
            // Property names are data, not keywords: a property named `description` stays.
            for (key, value) in map.iter_mut() {
                if key == "properties" {
                    if let Value::Object(properties) = value {
                        properties.values_mut().for_each(strip_descriptions);
                    }
                } else {
                    strip_descriptions(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bless;
    use crate::known::Options;

    /// Every recognised type in every version crdgen knows it in, by type in table
    /// order, as the index has it.
    fn all_known() -> Vec<Known> {
        let versions: Vec<KubeVersion> = crate::known::versions().collect();
        let mut out = Vec::new();
        for (name, path) in TYPES {
            for version in &versions {
                let options = Options {
                    version: *version,
                    embedded_object_meta: false,
                };
                let Ok(Some(mut full)) = crate::known::schema(path, None, options) else {
                    continue;
                };
                let Some(keys) = property_names(&full) else {
                    continue;
                };
                if let Some(map) = full.as_object_mut() {
                    map.remove("description");
                }
                let mut bare = full.clone();
                strip_descriptions(&mut bare);
                out.push(Known {
                    name: (*name).to_owned(),
                    minor: version.minor(),
                    keys,
                    bare: fingerprint(&bare),
                    full: fingerprint(&full),
                });
            }
        }
        out
    }

    #[test]
    fn the_index_is_what_the_schemas_of_the_types_give() {
        let lines: String = all_known()
            .iter()
            .map(|k| serde_json::to_string(k).unwrap() + "\n")
            .collect();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/import/known.jsonl");
        bless::file(&path, &lines);
    }

    #[test]
    fn fingerprints_tell_values_apart_as_equality_does() {
        let same = [(
            serde_json::json!({"a": 1, "b": [true]}),
            serde_json::json!({"b": [true], "a": 1}),
        )];
        for (a, b) in &same {
            assert_eq!(fingerprint(a), fingerprint(b));
        }
        let apart = [
            (serde_json::json!(1), serde_json::json!(1.0)),
            (serde_json::json!(["ab"]), serde_json::json!(["a", "b"])),
            (serde_json::json!({"a": "b"}), serde_json::json!({"ab": ""})),
            (serde_json::json!([[], []]), serde_json::json!([[[]]])),
            (serde_json::json!(null), serde_json::json!({})),
        ];
        for (a, b) in &apart {
            assert_ne!(fingerprint(a), fingerprint(b), "{a} and {b}");
        }
    }
}
