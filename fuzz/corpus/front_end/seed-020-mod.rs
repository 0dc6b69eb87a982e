//! +groupName=versions.crdgen.dev

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// Multi in v1.
///
/// +genclient
/// +kubebuilder:storageversion
#[derive(Debug, Serialize, Deserialize)]
pub struct Multi {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: MultiSpec,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct MultiSpec {
    pub v1: String,
}
