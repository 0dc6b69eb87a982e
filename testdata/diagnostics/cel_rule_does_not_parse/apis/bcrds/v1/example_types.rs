use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

/// +kubebuilder:validation:XValidation:rule="self.replicas >",message="replicas must be set"
pub struct ExampleSpec {
    pub replicas: i32,
}
