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
    /// +kubebuilder:validation:MaxItems=10
    pub ports: Vec<Port>,
}

pub struct Port {
    /// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a port's number is immutable"
    pub number: i32,
}
