use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

/// controller-tools' `oneof_error`: the group names the fields of `probe`.
/// +kubebuilder:validation:AtMostOneOf=probe.http;probe.grpc
pub struct ExampleSpec {
    pub probe: Option<Probe>,
}

pub struct Probe {
    pub http: Option<String>,
    pub grpc: Option<String>,
}
