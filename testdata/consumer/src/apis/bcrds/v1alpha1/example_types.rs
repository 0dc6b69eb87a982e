use k8s_openapi::apimachinery::pkg::apis::meta::v1::{self as metav1, Condition};
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// An Example, named through a module alias (`metav1::ObjectMeta`).
///
/// +genclient
/// +kubebuilder:subresource:status
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: metav1::ObjectMeta,
    pub spec: ExampleSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ExampleStatus>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    pub replicas: i32,
    pub worker_image: String,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}
