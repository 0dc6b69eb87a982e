//! controller-tools' `pkg/crd/testdata/enum`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +k8s:enum
#[derive(Serialize, Deserialize)]
pub enum EnumType {
    Value1,
    Value2,
}

/// +kubebuilder:object:root=true
///
/// Enum is a test CRD that contains an enum.
#[derive(Serialize, Deserialize)]
pub struct Enum {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<EnumSpec>,
}

/// EnumSpec defines the desired state of Enum
#[derive(Serialize, Deserialize)]
pub struct EnumSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<EnumType>,
}
