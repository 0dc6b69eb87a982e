//! controller-tools' `pkg/crd/testdata/gen`: Go names the version after its
//! package, `foo`; a crdgen version is a Kubernetes version, here `v1`.
//!
//! +groupName=bar.example.com

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// This tests that defaulted fields are stripped for v1beta1,
    /// but not for v1
    /// +kubebuilder:default=fooDefaultString
    /// +kubebuilder:example=fooExampleString
    pub defaulted_string: String,
}

#[derive(Default, Serialize, Deserialize)]
pub struct FooStatus {}

/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct Foo {
    // TypeMeta comments should NOT appear in the CRD spec
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    // ObjectMeta comments should NOT appear in the CRD spec
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// Spec comments SHOULD appear in the CRD spec
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<FooSpec>,
    /// Status comments SHOULD appear in the CRD spec
    #[serde(default)]
    pub status: FooStatus,
}
