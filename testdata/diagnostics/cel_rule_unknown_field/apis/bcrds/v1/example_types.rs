use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

/// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicsa",message="min must not exceed max"
#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    pub min_replicas: i32,
    pub max_replicas: i32,
}
