use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

pub struct ExampleSpec {
    #[cfg(feature = "a")]
    pub size: i32,
    #[cfg(not(feature = "a"))]
    pub size: String,
    pub replicas: i32,
    #[serde(rename = "replicas")]
    pub copies: i32,
}
