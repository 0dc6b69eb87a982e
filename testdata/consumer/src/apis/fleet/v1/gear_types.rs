use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// The hub: the storage version, which every other version converts to and from.
///
/// +genclient
/// +kubebuilder:storageversion
/// +crdgen:conversion:webhook
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gear {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: GearSpec,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GearSpec {
    pub teeth: i32,
    pub build: Build,
}

/// What v1alpha1 had as a flat `material` field.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub material: String,
}
