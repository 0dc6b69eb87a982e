//! controller-tools' `pkg/crd/testdata/unserved`: the CronJob's v1beta1, not served.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// CronJobSpec defines the desired state of CronJob
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// This tests that markers that are allowed on both fields and types are applied to fields
    /// +kubebuilder:validation:MinLength=4
    pub two_of_a_kind_part0: String,

    /// +kubebuilder:validation:Minimum=-2
    /// +kubebuilder:validation:Maximum=2
    /// +kubebuilder:validation:MultipleOf=2
    pub int32_with_validations: i32,
}

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:singular=mycronjob
/// +kubebuilder:unservedversion
///
/// CronJob is the Schema for the cronjobs API
#[derive(Serialize, Deserialize)]
pub struct CronJob {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<CronJobSpec>,
}
