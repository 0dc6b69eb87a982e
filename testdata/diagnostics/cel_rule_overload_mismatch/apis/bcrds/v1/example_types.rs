use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

/// +kubebuilder:validation:XValidation:rule="self.name == self.replicas + '-replicas'"
#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    pub name: String,
    pub replicas: i32,
}
