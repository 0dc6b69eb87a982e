use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
/// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
/// +kubebuilder:selectablefield:JSONPath=`.spec.replics`
/// +kubebuilder:selectablefield:JSONPath=`.spec.ports[0]`
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
    pub status: Option<ExampleStatus>,
}

pub struct ExampleSpec {
    pub replicas: i32,
    pub ports: Vec<i32>,
}

pub struct ExampleStatus {
    pub replicas: i32,
}
