use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

pub struct ExampleSpec {
    pub replicas: i32,
}
