use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    /// Settings kept as written; only `mode` is declared.
    ///
    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +kubebuilder:validation:XValidation:rule="self.mode != 'fast' || self.threads > 1"
    pub settings: Settings,
}

pub struct Settings {
    pub mode: String,
}
