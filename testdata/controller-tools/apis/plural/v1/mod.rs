//! controller-tools' `pkg/crd/testdata/plural`: a kind whose plural flect gives as
//! `testquotas`.
//!
//! +groupName=plural.example.com

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct TestQuota {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub test: String,
}
