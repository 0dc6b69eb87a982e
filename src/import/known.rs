//! Kubernetes' own types, recognised in an imported schema by their shape: a node whose
//! schema, descriptions aside, is the one crdgen writes for a k8s-openapi type in some
//! Kubernetes version crdgen knows is written as that type, as a person would write it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::known::{KubeVersion, Options};

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

/// The recognised types' schemas (descriptions kept, and left out), each computed on
/// first need; the names not to recognise (a kind's own); and the Kubernetes versions
/// whose types match every use so far, structurally and exactly.
#[derive(Default)]
pub struct Shapes {
    schemas: BTreeMap<(&'static str, u16), Option<(Value, Value)>>,
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
    /// the field's own keywords) is a recognised type's in some version.
    pub fn recognise(&mut self, node: &Value) -> Option<&'static str> {
        let mut shape = node.clone();
        if let Some(map) = shape.as_object_mut() {
            map.retain(|k, _| !FIELD_KEYWORDS.contains(&k.as_str()));
        }
        let mut bare = shape.clone();
        strip_descriptions(&mut bare);
        let keys = property_names(&bare)?;
        let versions: Vec<KubeVersion> = crate::known::versions().collect();
        let mut candidates = Vec::new();
        for (name, path) in TYPES {
            if self.excluded.contains(*name) {
                continue;
            }
            let (mut structural, mut exact) = (BTreeSet::new(), BTreeSet::new());
            for version in &versions {
                let schema = self
                    .schemas
                    .entry((name, version.minor()))
                    .or_insert_with(|| {
                        let options = Options {
                            version: *version,
                            embedded_object_meta: false,
                        };
                        let mut schema =
                            crate::known::schema(path, None, options).ok().flatten()?;
                        // The type's own description shows where a field has none.
                        schema.as_object_mut()?.remove("description");
                        let mut bare = schema.clone();
                        strip_descriptions(&mut bare);
                        Some((schema, bare))
                    });
                let Some((full, stripped)) = schema else {
                    continue;
                };
                if property_names(stripped).as_ref() == Some(&keys) && *stripped == bare {
                    structural.insert(version.minor());
                    if *full == shape {
                        exact.insert(version.minor());
                    }
                }
            }
            if !structural.is_empty() {
                candidates.push((*name, structural, exact));
            }
        }
        // Two types of one shape (a Secret's key selector and a ConfigMap's) are told
        // apart by their descriptions where they can be.
        let best = candidates
            .iter()
            .position(|(_, _, exact)| !exact.is_empty())
            .unwrap_or(0);
        let (name, structural, exact) =
            (candidates.len() > best).then(|| candidates.swap_remove(best))?;
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
