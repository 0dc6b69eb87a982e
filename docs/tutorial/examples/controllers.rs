//! The controller chapter's examples, compiled with the tutorial's API: a sync's
//! outcomes, and a controller built on shared informers.

use std::time::Duration;

use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
use cronjob_operator::apis::batch::v1::CronJob;
use cronjob_operator::client::informers::SharedInformerFactory;
use cronjob_operator::client::listers::batch::v1::CronJobLister;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;

// ANCHOR: sync
/// Suspends every CronJob an hour after it was made: each outcome of a sync.
pub struct Suspender {
    cron_jobs: CronJobLister,
}

impl SyncHandler for Suspender {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let Some(cron_job) = self
            .cron_jobs
            .cron_jobs(key.namespace.unwrap_or_default())
            .get(key.name)
        else {
            return Ok(Action::Done); // deleted since it was queued: forgotten
        };
        if cron_job.spec.schedule.is_empty() {
            // Retrying would not help: logged at debug level and dropped.
            return Err(SyncError::ignore("a CronJob without a schedule"));
        }
        let Some(created) = cron_job.metadata.creation_timestamp.as_ref() else {
            // Not filled in yet: retried with backoff, not logged as a failure.
            return Err(SyncError::requeue("no creation time yet"));
        };
        // `?` on any error (a failed request, an `anyhow::Error`): logged, retried.
        let age: Duration = (k8s_openapi::jiff::Timestamp::now() - created.0).try_into()?;
        match Duration::from_secs(3600).checked_sub(age) {
            // A success that comes back when the hour is up.
            Some(left) => Ok(Action::RequeueAfter(left)),
            None => Ok(Action::Done), // (suspending it is left out here)
        }
    }
}
// ANCHOR_END: sync

/// The controller of `Suspender`, on the factory's shared informers.
pub fn suspender(factory: &SharedInformerFactory) -> QueueController<Suspender> {
    let cron_jobs = factory.batch().v1().cron_jobs();
    let sync = Suspender {
        cron_jobs: cron_jobs.lister(),
    };
    // ANCHOR: builder
    QueueController::builder::<CronJob>("suspender", sync)
        // Every change of a CronJob queues its key.
        .for_kind(&cron_jobs)
        // A changed Job queues its controller's key (a CronJob's), found through
        // `owner_index::<CronJob>()` in the Jobs' cache.
        .owns(&factory.informer::<Job>())
        // A changed ConfigMap queues the CronJob of its name in its namespace.
        .watches(&factory.informer::<ConfigMap>(), |config: &ConfigMap| {
            vec![format!(
                "{}/{}",
                config.namespace().unwrap_or_default(),
                config.name_any()
            )]
        })
        .build()
    // ANCHOR_END: builder
}

/// Built and not run: the chapter shows what compiles.
fn main() {}
