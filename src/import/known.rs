//! Kubernetes' own types, recognised in an imported schema by their shape: a node whose
//! schema, descriptions aside, is the one crdgen writes for a k8s-openapi type in some
//! Kubernetes version crdgen knows is written as that type, as a person would write it.

use std::collections::BTreeMap;

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

/// The recognised types' schemas, descriptions left out, each computed on first need,
/// and the property names of each, to pass over most candidates at a glance.
#[derive(Default)]
pub struct Shapes {
    schemas: BTreeMap<(&'static str, u16), Option<Value>>,
}

impl Shapes {
    /// The name of the Kubernetes type `node` is, if it is one: its object schema (but
    /// the field's own keywords) is a recognised type's in some version.
    pub fn recognise(&mut self, node: &Value) -> Option<&'static str> {
        let mut shape = node.clone();
        if let Some(map) = shape.as_object_mut() {
            map.retain(|k, _| !FIELD_KEYWORDS.contains(&k.as_str()));
        }
        strip_descriptions(&mut shape);
        let keys = property_names(&shape)?;
        let versions: Vec<KubeVersion> = crate::known::versions().collect();
        for (name, path) in TYPES {
            for version in versions.iter().rev() {
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
                        strip_descriptions(&mut schema);
                        Some(schema)
                    });
                let Some(schema) = schema else { continue };
                if property_names(schema).as_ref() == Some(&keys) && *schema == shape {
                    return Some(name);
                }
            }
        }
        None
    }
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
