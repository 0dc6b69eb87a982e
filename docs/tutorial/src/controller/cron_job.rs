//! The `CronJob` controller: informer events queue `namespace/name` keys (a CronJob's
//! own, and its owner's when one of its Jobs changes); `sync` runs the Jobs the schedule
//! calls for, keeps the history the spec asks for, and reports in the status.

use std::time::Duration;

use crdgen_runtime::cache::Store;
use crdgen_runtime::conditions::set_status_condition;
use crdgen_runtime::controller::{
    Action, ObjectKey, QueueController, SyncError, SyncHandler, owner_index,
};
use crdgen_runtime::owner::set_controller_reference;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, PropagationPolicy};

use crate::apis::batch::v1::{ConcurrencyPolicy, CronJob, CronJobStatus};
use crate::client::clientset::Clientset;
use crate::client::informers::SharedInformerFactory;
use crate::client::listers::batch::v1::CronJobLister;
use crate::schedule;

/// The annotation each Job carries with the time it was scheduled for, as Kubernetes'
/// own CronJob controller writes it.
pub const SCHEDULED_AT: &str = "batch.tutorial.crdgen.dev/scheduled-at";

// ANCHOR: sync_struct
/// Reconciles `CronJob` objects from two caches: theirs, and the Jobs they own.
///
/// +kubebuilder:rbac:groups=batch.tutorial.crdgen.dev,resources=cronjobs,verbs=get;list;watch;update;patch
/// +kubebuilder:rbac:groups=batch.tutorial.crdgen.dev,resources=cronjobs/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
pub struct CronJobSync {
    cron_jobs: CronJobLister,
    /// Every Job the informer sees, indexed by its controlling CronJob.
    jobs: Store<Job>,
    clientset: Clientset,
}
// ANCHOR_END: sync_struct

// ANCHOR: new
/// Builds the controller on the factory's shared informers: a change to a CronJob queues
/// its key, and so does a change to a Job it controls (`owns`, which also indexes the
/// Jobs' cache by their controller).
pub fn new(clientset: &Clientset, factory: &SharedInformerFactory) -> QueueController<CronJobSync> {
    let cron_jobs = factory.batch().v1().cron_jobs();
    let jobs = factory.informer::<Job>();
    let sync = CronJobSync {
        cron_jobs: cron_jobs.lister(),
        jobs: jobs.store().clone(),
        clientset: clientset.clone(),
    };
    QueueController::builder::<CronJob>("cronjobs", sync)
        .for_kind(&cron_jobs)
        .owns(&jobs)
        .build()
}
// ANCHOR_END: new

/// How a Job ended, when it has.
fn finished(job: &Job) -> Option<&'static str> {
    let conditions = job.status.as_ref()?.conditions.as_ref()?;
    conditions
        .iter()
        .filter(|c| c.status == "True")
        .find_map(|c| match c.type_.as_str() {
            "Complete" => Some("Complete"),
            "Failed" => Some("Failed"),
            _ => None,
        })
}

/// When a Job was scheduled for, from its annotation.
fn scheduled_at(job: &Job) -> Option<Timestamp> {
    job.annotations().get(SCHEDULED_AT)?.parse().ok()
}

fn reference(job: &Job) -> ObjectReference {
    ObjectReference {
        api_version: Some("batch/v1".into()),
        kind: Some("Job".into()),
        name: job.metadata.name.clone(),
        namespace: job.metadata.namespace.clone(),
        uid: job.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}

/// Deletes `job`; one gone already is fine.
async fn delete(api: &Api<Job>, job: &Job, params: &DeleteParams) -> Result<(), kube::Error> {
    match api.delete(&job.name_any(), params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}

/// How long from `now` until `at`, at least a second (the queue's unit of patience).
fn until(at: Timestamp, now: Timestamp) -> Duration {
    let wait = at.duration_since(now).max(SignedDuration::from_secs(1));
    Duration::try_from(wait).unwrap_or(Duration::from_secs(1))
}

impl SyncHandler for CronJobSync {
    // ANCHOR: sync
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let namespace = key.namespace.unwrap_or_default();
        let Some(cron_job) = self.cron_jobs.cron_jobs(namespace).get(key.name) else {
            // Deleted since it was queued: its Jobs go with it (garbage collection).
            return Ok(Action::Done);
        };
        let spec = &cron_job.spec;
        // The webhook refuses a bad schedule; one written around it is not retried.
        let period = schedule::period(&spec.schedule).map_err(SyncError::ignore)?;
        let jobs_api: Api<Job> = Api::namespaced(self.clientset.client().clone(), namespace);

        // 1. The Jobs this CronJob controls, from the Jobs' cache, by its owner index.
        let mut jobs = self
            .jobs
            .by_index(&owner_index::<CronJob>(), &key.to_string())
            .unwrap_or_default();
        jobs.sort_by_cached_key(|job| scheduled_at(job));
        let (finished_jobs, active): (Vec<_>, Vec<_>) =
            jobs.iter().partition(|job| finished(job).is_some());

        // 2. History: the oldest finished Jobs past each limit go.
        for (outcome, limit) in [
            ("Complete", spec.successful_jobs_history_limit.unwrap_or(3)),
            ("Failed", spec.failed_jobs_history_limit.unwrap_or(1)),
        ] {
            let ended: Vec<_> = finished_jobs
                .iter()
                .filter(|job| finished(job) == Some(outcome))
                .collect();
            let excess = ended
                .len()
                .saturating_sub(usize::try_from(limit).unwrap_or(0));
            let background = DeleteParams {
                propagation_policy: Some(PropagationPolicy::Background),
                ..DeleteParams::default()
            };
            for job in &ended[..excess] {
                delete(&jobs_api, job, &background).await?;
            }
        }

        let mut status = cron_job.status.clone().unwrap_or_default();
        status.active = active.iter().map(|job| reference(job)).collect();
        let now = Timestamp::now();

        // 3. The run the schedule calls for: the latest time due since the last one.
        let last = status
            .last_schedule_time
            .as_ref()
            .map(|t| t.0)
            .or_else(|| cron_job.metadata.creation_timestamp.as_ref().map(|t| t.0))
            .unwrap_or(now);
        let period_signed = SignedDuration::try_from(period).map_err(SyncError::ignore)?;
        let mut next = last + period_signed;
        let mut requeue = until(next, now);
        if spec.suspend != Some(true) && next <= now {
            let missed = (now.duration_since(last).as_secs() / period_signed.as_secs()).max(1);
            let due = last + period_signed * i32::try_from(missed).unwrap_or(i32::MAX);
            next = due + period_signed;
            requeue = until(next, now);
            let too_late = spec
                .starting_deadline_seconds
                .is_some_and(|deadline| now.duration_since(due).as_secs() > deadline);
            let policy = spec.concurrency_policy.unwrap_or_default();
            // Skipped when missed by more than the deadline, or forbidden while the last
            // run goes on.
            let skipped = too_late || (policy == ConcurrencyPolicy::Forbid && !active.is_empty());
            if !skipped {
                if policy == ConcurrencyPolicy::Replace {
                    for job in &active {
                        delete(&jobs_api, job, &DeleteParams::foreground()).await?;
                    }
                    status.active.clear();
                }
                let job = self.job(&cron_job, due)?;
                let created = match jobs_api.create(&PostParams::default(), &job).await {
                    Ok(created) => created,
                    // Created by an earlier try whose status write failed.
                    Err(kube::Error::Api(e)) if e.code == 409 => job,
                    Err(e) => return Err(e.into()),
                };
                status.active.push(reference(&created));
            }
            // Run or skipped, this time is done: the next one is awaited.
            status.last_schedule_time = Some(Time(due));
        }

        // 4. The status, written only when it changed.
        status.observed_generation = cron_job.metadata.generation;
        set_status_condition(
            &mut status.conditions,
            Condition {
                type_: "Ready".into(),
                status: "True".into(),
                reason: "Scheduled".into(),
                message: format!("next run at {next}"),
                observed_generation: cron_job.metadata.generation,
                last_transition_time: Time(now),
            },
        );
        if cron_job.status.as_ref() != Some(&status) {
            self.write_status(&cron_job, status, namespace).await?;
        }
        Ok(Action::RequeueAfter(requeue))
    }
    // ANCHOR_END: sync
}

impl CronJobSync {
    // ANCHOR: job
    /// The Job for the run due at `due`: the template's, named after the CronJob and the
    /// time (so a retry cannot start it twice), controlled by the CronJob.
    fn job(&self, cron_job: &CronJob, due: Timestamp) -> Result<Job, SyncError> {
        let template = &cron_job.spec.job_template;
        let mut metadata = template.metadata.clone().unwrap_or_default();
        metadata.name = Some(format!("{}-{}", cron_job.name_any(), due.as_second()));
        metadata.namespace = cron_job.namespace();
        metadata
            .annotations
            .get_or_insert_default()
            .insert(SCHEDULED_AT.into(), due.to_string());
        let mut job = Job {
            metadata,
            spec: template.spec.clone(),
            status: None,
        };
        set_controller_reference(cron_job, &mut job).map_err(SyncError::ignore)?;
        Ok(job)
    }
    // ANCHOR_END: job

    async fn write_status(
        &self,
        cron_job: &CronJob,
        status: CronJobStatus,
        namespace: &str,
    ) -> Result<(), SyncError> {
        // A merge patch leaves out what it does not name: an emptied list of active
        // Jobs is written as an empty list, not left out.
        let mut status = serde_json::to_value(status).map_err(SyncError::ignore)?;
        status["active"] = status
            .get("active")
            .cloned()
            .unwrap_or_else(|| serde_json::json!([]));
        let patch = Patch::Merge(serde_json::json!({ "status": status }));
        self.clientset
            .batch_v1()
            .cron_jobs(namespace)
            .patch_status(&cron_job.name_any(), &PatchParams::default(), &patch)
            .await?;
        Ok(())
    }
}
