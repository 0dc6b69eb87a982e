use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// An RBAC marker may stand in the apis tree too: the rbac generator reads it, the
/// others pass it by.
///
/// +genclient
/// +kubebuilder:rbac:groups=bcrds.example.com,resources=examples,verbs=create
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ExampleSpec {
    pub replicas: i32,
}
