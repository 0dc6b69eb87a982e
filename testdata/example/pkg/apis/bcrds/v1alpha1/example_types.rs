use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

// ANCHOR: kind
/// Example is a specification for an Example resource.
///
/// +genclient
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas"
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// apiVersion and kind; absent on list items, always set by `Example::new`.
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ExampleStatus>,
}
// ANCHOR_END: kind

/// ExampleSpec is the desired state of an Example.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    /// Number of workers the example runs.
    ///
    /// +kubebuilder:validation:Minimum=1
    pub replicas: i32,
    /// Container image the workers run.
    pub image: String,
    /// Stops reconciliation while true.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
}

/// ExampleStatus is the observed state of an Example.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleStatus {
    /// The generation the controller last acted on.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
