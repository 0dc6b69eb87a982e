use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
/// +genclient:method=1x,verb=get,subresource=scale
/// +genclient:method=GetScale,verb=get,subresource=../x
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

pub struct ExampleSpec {
    pub replicas: i32,
}
