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
    /// +kubebuilder:validation:Pattern=`^(a|b`
    pub name: String,
    /// +kubebuilder:validation:MaxLength=-1
    pub note: String,
    /// +kubebuilder:validation:MinItems=-2
    pub items: Vec<String>,
}
