//! controller-tools' `pkg/crd/testdata/job`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

use super::unserved_types;

/// JobSpec is the spec for the jobs API.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    /// FriendlyName is the friendly name for the job.
    ///
    /// +kubebuilder:validation:MinLength=5
    pub friendly_name: String,

    /// Count is the number of times a job may be executed.
    ///
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:validation:Maximum=10
    pub count: i32,

    /// CronJob is the spec for the related CrongJob.
    #[serde(rename = "crongJob")]
    pub cronn_job: unserved_types::CronJobSpec,
}

/// +kubebuilder:object:root=true
///
/// Job is the Schema for the jobs API
#[derive(Serialize, Deserialize)]
pub struct Job {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: JobSpec,
}
