use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: i32,
}

/// +genclient
/// +kubebuilder:resource:path=allexamples,singular=allexample
pub struct ExampleAllNamespaces {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: i32,
}

/// +genclient
/// +kubebuilder:resource:path=foobars1,singular=foobar1
pub struct FOOBar {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: i32,
}

/// +genclient
pub struct FooBar {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: i32,
}
