// ANCHOR: all
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

// ANCHOR: kind
/// A CronJob runs a Job on a schedule: Kubernetes' own CronJob, written again as an
/// operator (kubebuilder's tutorial kind).
///
/// +genclient
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name=Schedule,type=string,JSONPath=.spec.schedule
/// +kubebuilder:printcolumn:name=Last Schedule,type=date,JSONPath=.status.lastScheduleTime
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CronJob {
    /// apiVersion and kind; absent on list items, set by `CronJob::new`.
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: CronJobSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CronJobStatus>,
}
// ANCHOR_END: kind

// ANCHOR: spec
/// What the user asks for: when to run, what to run, and how many finished Jobs to keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// How often a Job runs: `@every <duration>`, the duration in hours, minutes and
    /// seconds (`@every 1h30m`, `@every 45s`), as cron's `@every` reads it.
    ///
    /// +kubebuilder:validation:MinLength=1
    pub schedule: String,
    /// How late, in seconds, a Job may still start after its time; a run missed by
    /// more is skipped.
    ///
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,
    /// What to do when a run comes while the last one's Job is still active: `Allow`
    /// another, `Forbid` it (skip the run), or `Replace` the active Job. Defaulted to
    /// `Allow` by the webhook.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,
    /// No new Jobs while true; running ones are left alone.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// The Job every run creates.
    pub job_template: JobTemplateSpec,
    /// How many succeeded Jobs to keep (defaulted to 3).
    ///
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,
    /// How many failed Jobs to keep (defaulted to 1).
    ///
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

/// What to do with a run that comes while a Job is still active.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConcurrencyPolicy {
    /// Start another Job beside it.
    #[default]
    Allow,
    /// Skip the run.
    Forbid,
    /// Delete the active Job, then start the new one.
    Replace,
}
// ANCHOR_END: spec

// ANCHOR: status
/// What the controller observed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// The Jobs still running.
    ///
    /// +optional
    /// +listType=atomic
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,
    /// When the last Job was scheduled to run.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
    /// The generation the controller last acted on.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
// ANCHOR_END: status
// ANCHOR_END: all
