use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// The CronJob of kubebuilder's tutorial, with its webhooks' markers in
/// `cronjob_webhook.rs`, as the tutorial has them in `cronjob_webhook.go`.
///
/// +genclient
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct CronJob {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: CronJobSpec,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct CronJobSpec {
    pub schedule: String,
}
