use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

/// +kubebuilder:validation:ExactlyOneOf=http;grpc
pub struct ExampleSpec {
    pub http: String,
    pub grpc: Option<String>,
}
