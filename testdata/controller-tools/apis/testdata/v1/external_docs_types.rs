//! controller-tools' `pkg/crd/testdata/external_docs`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// ExternalDocSpec defines the desired state of ExternalDoc
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalDocSpec {
    /// This tests that external documentation can be attached to a field with url and description.
    /// +kubebuilder:externalDocs:url="https://example.com/docs",description="external docs description"
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field_with_external_doc: String,

    /// This tests that external documentation can be attached with only url.
    /// +kubebuilder:externalDocs:url="https://example.com/docs"
    #[serde(
        rename = "fieldWithExternalDocURLOnly",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub field_with_external_doc_url_only: String,

    /// This tests that external documentation from a type is propagated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_with_external_doc: Option<TypeWithExternalDoc>,
}

/// TypeWithExternalDoc is a type with external documentation.
/// +kubebuilder:externalDocs:url="https://example.com/type-docs",description="type-level external docs"
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct TypeWithExternalDoc(pub String);

/// +kubebuilder:object:root=true
///
/// ExternalDoc is the Schema for the external docs API
#[derive(Serialize, Deserialize)]
pub struct ExternalDoc {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ExternalDocSpec>,
}
