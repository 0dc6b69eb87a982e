//! controller-tools' `pkg/crd/testdata/immutable`.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct ImmutableType {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ImmutableSpec,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImmutableSpec {
    /// +k8s:immutable
    pub required_string: String,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional_string: Option<String>,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub optional_literal_string: String,
    /// +k8s:immutable
    pub required_struct: NestedStruct,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional_struct: Option<NestedStruct>,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "NestedStruct::is_zero")]
    pub optional_omit_zero_struct: NestedStruct,
    /// +k8s:immutable
    pub required_slice: Vec<String>,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub optional_slice: Vec<String>,
    /// +k8s:immutable
    pub required_map: BTreeMap<String, String>,
    /// +k8s:immutable
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub optional_map: BTreeMap<String, String>,
    pub mutable_string: String,
}

#[derive(Default, PartialEq, Serialize, Deserialize)]
pub struct NestedStruct {
    pub key: String,
    pub value: String,
}

impl NestedStruct {
    /// Go's `omitzero`: every field its zero value.
    fn is_zero(&self) -> bool {
        *self == NestedStruct::default()
    }
}
