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
    /// +kubebuilder:validation:XValidation:rule="isSemver(self) && semver(self).major() >= 1",message="must be a released version"
    pub version: String,
}
