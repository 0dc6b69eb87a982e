//! +groupName=versions.crdgen.dev

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// Multi in v1alpha1.
///
/// +genclient
/// +kubebuilder:deprecatedversion:warning="versions.crdgen.dev/v1alpha1 Multi is deprecated; use v1"
#[derive(Debug, Serialize, Deserialize)]
pub struct Multi {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: MultiSpec,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct MultiSpec {
    pub v1alpha1: String,
}
