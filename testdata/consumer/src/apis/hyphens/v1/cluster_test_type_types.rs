use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// A multi-word, cluster-scoped kind: its accessors are `cluster_test_types()`.
///
/// +genclient
/// +genclient:nonNamespaced
/// +kubebuilder:resource:scope=Cluster
/// +kubebuilder:subresource:status
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterTestType {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ClusterTestTypeSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ClusterTestTypeStatus>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterTestTypeSpec {
    pub replicas: i32,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterTestTypeStatus {
    pub ready: bool,
}
