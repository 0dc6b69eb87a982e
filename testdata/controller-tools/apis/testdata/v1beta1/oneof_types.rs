//! controller-tools' `pkg/crd/testdata/oneof`. Go's `*string` with `omitempty` or
//! `omitzero` is an `Option<String>` skipped when `None`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// OneofSpec is the spec for the oneofs API.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OneofSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_type_with_oneof: Option<TypeWithOneofs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_type_with_oneof: Option<TypeWithMultipleOneofs>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_type_with_exact_oneof: Option<TypeWithExactOneofs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_type_with_exact_oneof: Option<TypeWithMultipleExactOneofs>,

    #[serde(
        rename = "typeWithMultipleAtLeastOneOf",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub type_with_multiple_at_least_oneofs: Option<TypeWithMultipleAtLeastOneofs>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_with_all_one_of: Option<TypeWithAllOneofs>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_with_omit_zero: Option<TypeWithOmitZero>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_with_omit_zero_exact: Option<TypeWithOmitZeroExact>,
    #[serde(
        rename = "typeWithOmitZeroAtLeastOneOf",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub type_with_omit_zero_at_least_one_of: Option<TypeWithOmitZeroAtLeastOneOf>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_custom_type_alias: CustomTypeAlias,
    /// This verifies if the custom type alias XValidation is not duplicated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_custom_type_alias: CustomTypeAlias,
}

/// +kubebuilder:validation:XValidation:message="only one of foo|bar may be set",rule="!(has(self.foo) && has(self.bar))"
/// +kubebuilder:validation:AtMostOneOf=foo;bar
#[derive(Serialize, Deserialize)]
pub struct TypeWithOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar: Option<String>,
}

/// +kubebuilder:validation:AtMostOneOf=a;b
/// +kubebuilder:validation:AtMostOneOf=c;d
#[derive(Serialize, Deserialize)]
pub struct TypeWithMultipleOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
}

/// +kubebuilder:validation:ExactlyOneOf=foo;bar
#[derive(Serialize, Deserialize)]
pub struct TypeWithExactOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar: Option<String>,
}

/// +kubebuilder:validation:ExactlyOneOf=a;b
/// +kubebuilder:validation:ExactlyOneOf=c;d
#[derive(Serialize, Deserialize)]
pub struct TypeWithMultipleExactOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
}

/// +kubebuilder:validation:AtLeastOneOf=a;b
/// +kubebuilder:validation:AtLeastOneOf=c;d
#[derive(Serialize, Deserialize)]
pub struct TypeWithMultipleAtLeastOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
}

/// +kubebuilder:validation:AtMostOneOf=a;b
/// +kubebuilder:validation:ExactlyOneOf=c;d
/// +kubebuilder:validation:AtLeastOneOf=e;f
#[derive(Serialize, Deserialize)]
pub struct TypeWithAllOneofs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f: Option<String>,
}

/// +kubebuilder:validation:AtMostOneOf=foo;bar
#[derive(Serialize, Deserialize)]
pub struct TypeWithOmitZero {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar: Option<String>,
}

/// +kubebuilder:validation:ExactlyOneOf=a;b
#[derive(Serialize, Deserialize)]
pub struct TypeWithOmitZeroExact {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

/// +kubebuilder:validation:AtLeastOneOf=c;d
#[derive(Serialize, Deserialize)]
pub struct TypeWithOmitZeroAtLeastOneOf {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
}

/// CustomTypeAlias is a custom alias
/// +kubebuilder:validation:XValidation:rule="self >= 100 && self <= 1000",message="invalid CustomTypeAlias value"
pub type CustomTypeAlias = Option<i32>;

/// +kubebuilder:object:root=true
///
/// Oneof is the Schema for the Oneof API
#[derive(Serialize, Deserialize)]
pub struct Oneof {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: OneofSpec,
}
