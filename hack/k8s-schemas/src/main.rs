//! Writes `src/known/k8s.json`: the OpenAPI schemas of the Kubernetes types crdgen
//! knows, as k8s-openapi's schemars support describes them. crdgen embeds the file and
//! inlines the definitions when a CRD uses one of these types.
//!
//! Run through `hack/update-k8s-schemas.sh`; the output is committed, never edited.

use std::collections::BTreeMap;

use serde_json::{Value, json};

macro_rules! known {
    ($($path:path),* $(,)?) => {
        vec![$((stringify!($path).replace(' ', ""), serde_json::to_value(schemars::schema_for!($path)).unwrap())),*]
    };
}

fn main() {
    let roots = known![
        k8s_openapi::apimachinery::pkg::api::resource::Quantity,
        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
        k8s_openapi::api::core::v1::Affinity,
        k8s_openapi::api::core::v1::ConfigMapKeySelector,
        k8s_openapi::api::core::v1::Container,
        k8s_openapi::api::core::v1::ContainerPort,
        k8s_openapi::api::core::v1::EnvFromSource,
        k8s_openapi::api::core::v1::EnvVar,
        k8s_openapi::api::core::v1::LocalObjectReference,
        k8s_openapi::api::core::v1::ObjectReference,
        k8s_openapi::api::core::v1::PersistentVolumeClaimSpec,
        k8s_openapi::api::core::v1::PodSecurityContext,
        k8s_openapi::api::core::v1::PodSpec,
        k8s_openapi::api::core::v1::PodTemplateSpec,
        k8s_openapi::api::core::v1::Probe,
        k8s_openapi::api::core::v1::ResourceRequirements,
        k8s_openapi::api::core::v1::SecretKeySelector,
        k8s_openapi::api::core::v1::SecretReference,
        k8s_openapi::api::core::v1::SecurityContext,
        k8s_openapi::api::core::v1::ServicePort,
        k8s_openapi::api::core::v1::ServiceSpec,
        k8s_openapi::api::core::v1::Toleration,
        k8s_openapi::api::core::v1::TopologySpreadConstraint,
        k8s_openapi::api::core::v1::TypedLocalObjectReference,
        k8s_openapi::api::core::v1::Volume,
        k8s_openapi::api::core::v1::VolumeMount,
        k8s_openapi::api::apps::v1::DeploymentSpec,
        k8s_openapi::api::apps::v1::DeploymentStrategy,
        k8s_openapi::api::apps::v1::StatefulSetSpec,
    ];
    let mut types = BTreeMap::new();
    let mut definitions = BTreeMap::new();
    for (path, mut schema) in roots {
        let object = schema.as_object_mut().expect("a schema is an object");
        let name = object
            .remove("title")
            .and_then(|t| t.as_str().map(str::to_owned))
            .expect("k8s-openapi titles its schemas");
        if let Some(Value::Object(defs)) = object.remove("$defs") {
            definitions.extend(defs);
        }
        object.remove("$schema");
        definitions.insert(name.clone(), schema);
        types.insert(path, name);
    }
    // Every type a root uses is known too, under the Rust path k8s-openapi gives it
    // (its definition name, re-rooted): a field may name `ContainerPort` directly.
    for name in definitions.keys() {
        types.entry(rust_path(name)).or_insert_with(|| name.clone());
    }
    for (path, name) in &types {
        assert_eq!(
            &rust_path(name),
            path,
            "k8s-openapi names {path} after {name}"
        );
    }
    let out = json!({
        "generatedBy": "hack/update-k8s-schemas.sh from k8s-openapi's schemars support",
        "types": types,
        "definitions": definitions,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}

/// `io.k8s.api.core.v1.PodSpec` → `k8s_openapi::api::core::v1::PodSpec`.
fn rust_path(definition: &str) -> String {
    let inside = definition
        .strip_prefix("io.k8s.")
        .expect("a Kubernetes definition");
    format!("k8s_openapi::{}", inside.replace('.', "::"))
}
