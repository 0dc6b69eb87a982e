//! controller-tools' `pkg/crd/testdata/multiple_versions/v1beta2`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

use crate::apis::testdata::v1beta1::multiple_versions as multiver;

#[derive(Serialize, Deserialize)]
pub struct VersionedResourceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#struct: Option<multiver::OuterStruct>,
}

/// +kubebuilder:storageversion
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:singular=versionedresource
#[derive(Serialize, Deserialize)]
pub struct VersionedResource {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: VersionedResourceSpec,
}
