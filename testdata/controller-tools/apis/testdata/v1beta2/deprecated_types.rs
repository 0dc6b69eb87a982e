//! controller-tools' `pkg/crd/testdata/deprecated`: the CronJob's v1beta2, deprecated.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:singular=mycronjob
/// +kubebuilder:deprecatedversion:warning="use v1 instead, this version causes your data center to catch fire when used on Tuesdays"
///
/// CronJob is the Schema for the cronjobs API
#[derive(Serialize, Deserialize)]
pub struct CronJob {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
}
