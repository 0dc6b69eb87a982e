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
    /// +kubebuilder:validation:MaxItems=30
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('a'))",message="no a in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('b'))",message="no b in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('c'))",message="no c in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('d'))",message="no d in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('e'))",message="no e in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('f'))",message="no f in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('g'))",message="no g in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('h'))",message="no h in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('i'))",message="no i in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('j'))",message="no j in names"
    /// +kubebuilder:validation:XValidation:rule="self.all(n, !n.contains('k'))",message="no k in names"
    pub names: Vec<String>,
}
