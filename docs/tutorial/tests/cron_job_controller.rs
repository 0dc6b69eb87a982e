//! The CronJob controller against crdgen-runtime's in-memory API server (no cluster),
//! and on a real control plane as kubebuilder's suite_test.go runs it: envtest when
//! KUBEBUILDER_ASSETS names its binaries, or the cluster CRDGEN_E2E_KUBECONFIG names.
//! Schedules run every second, on the wall clock, so each test takes a few seconds.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::{
    Action, Controller, ObjectKey, QueueController, SyncError, SyncHandler,
};
use crdgen_runtime::testing::{ApiServer, cluster};
use cronjob_operator::apis::batch::v1::{ConcurrencyPolicy, CronJob, CronJobSpec};
use cronjob_operator::client::clientset::Clientset;
use cronjob_operator::client::informers::SharedInformerFactory;
use cronjob_operator::controller::cron_job::{self, SCHEDULED_AT};
use k8s_openapi::api::batch::v1::{Job, JobTemplateSpec};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};

// ANCHOR: in_memory
/// An in-memory server with the CronJob resource (`in_memory` registers the kinds of
/// this crate) and the Jobs it owns (a built-in kind: registered here).
fn in_memory() -> Clientset {
    let server = ApiServer::new();
    server.register::<Job>();
    Clientset::in_memory(&server)
}
// ANCHOR_END: in_memory

/// Starts the informers and the controller made by `build` over a fresh in-memory server.
async fn start<S: SyncHandler>(
    build: impl FnOnce(&Clientset, &SharedInformerFactory) -> QueueController<S>,
) -> (Clientset, CancellationToken) {
    start_on(in_memory(), build).await
}

/// Starts the informers and the controller made by `build` on `clientset`'s server.
async fn start_on<S: SyncHandler>(
    clientset: Clientset,
    build: impl FnOnce(&Clientset, &SharedInformerFactory) -> QueueController<S>,
) -> (Clientset, CancellationToken) {
    let factory = SharedInformerFactory::new(clientset.client().clone());
    let controller = Arc::new(build(&clientset, &factory));
    let shutdown = CancellationToken::new();
    factory.start(&shutdown);
    assert!(
        factory
            .wait_for_cache_sync()
            .await
            .values()
            .all(|synced| *synced)
    );
    let running = shutdown.clone();
    tokio::spawn(async move { controller.run(2, running).await });
    (clientset, shutdown)
}

/// A CronJob running `busybox` every second, as `change` makes it.
async fn create(clientset: &Clientset, change: impl FnOnce(&mut CronJobSpec)) {
    let template = JobTemplateSpec {
        metadata: None,
        spec: serde_json::from_value(serde_json::json!({
            "template": {"spec": {
                "containers": [{"name": "hello", "image": "busybox:1.36"}],
                "restartPolicy": "OnFailure",
            }}
        }))
        .unwrap(),
    };
    let mut spec = CronJobSpec {
        schedule: "@every 1s".into(),
        job_template: template,
        ..CronJobSpec::default()
    };
    change(&mut spec);
    let mut object = CronJob::new("demo", spec);
    object.metadata.namespace = Some("default".into());
    clientset
        .batch_v1()
        .cron_jobs("default")
        .create(&PostParams::default(), &object)
        .await
        .unwrap();
}

/// Whether `check` comes true within `limit`, asked every 100 ms.
async fn within<F: Future<Output = bool>>(limit: Duration, mut check: impl FnMut() -> F) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

fn jobs_api(clientset: &Clientset) -> Api<Job> {
    Api::namespaced(clientset.client().clone(), "default")
}

/// The Jobs in `default`, oldest first.
async fn jobs(clientset: &Clientset) -> Vec<Job> {
    let mut jobs = jobs_api(clientset)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items;
    jobs.sort_by_key(|job| {
        job.metadata
            .annotations
            .as_ref()
            .map(|a| a[SCHEDULED_AT].clone())
    });
    jobs
}

/// Waits up to `seconds` for at least `count` Jobs.
async fn at_least(clientset: &Clientset, count: usize, seconds: u64) -> bool {
    within(Duration::from_secs(seconds), || async {
        jobs(clientset).await.len() >= count
    })
    .await
}

async fn cron_job(clientset: &Clientset) -> CronJob {
    clientset
        .batch_v1()
        .cron_jobs("default")
        .get("demo")
        .await
        .unwrap()
}

/// config/samples holds a CronJob as this version of the type reads it.
#[test]
fn the_sample_reads_as_a_cron_job() {
    let text = include_str!("../config/samples/batch_v1_cron_job.yaml");
    let sample: CronJob = serde_yaml_ng::from_str(text).unwrap();
    assert_eq!(sample.metadata.name.as_deref(), Some("cron-job-sample"));
    assert_eq!(sample.spec.schedule, "@every 1m");
    let types = sample.types.unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("batch.tutorial.crdgen.dev/v1", "CronJob")
    );
}

// ANCHOR: runs_on_schedule
/// A run comes due: its Job is the template's, named for its time, controlled by the
/// CronJob, and the status lists it as active with the time it ran for.
#[tokio::test]
async fn a_job_runs_on_schedule() {
    let (clientset, shutdown) = start(cron_job::new).await;
    create(&clientset, |_| {}).await;
    assert!(at_least(&clientset, 1, 10).await, "no Job within 10 s");
    let job = jobs(&clientset).await.remove(0);
    let owner = &job.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("CronJob", "demo")
    );
    assert_eq!(owner.controller, Some(true));
    let scheduled = &job.metadata.annotations.as_ref().unwrap()[SCHEDULED_AT];
    let name = job.metadata.name.clone().unwrap();
    let due: k8s_openapi::jiff::Timestamp = scheduled.parse().unwrap();
    assert_eq!(name, format!("demo-{}", due.as_second()));
    let pod = job.spec.unwrap().template.spec.unwrap();
    assert_eq!(pod.containers[0].image.as_deref(), Some("busybox:1.36"));
    let listed = within(Duration::from_secs(5), || async {
        let status = cron_job(&clientset).await.status.unwrap_or_default();
        status
            .active
            .iter()
            .any(|r| r.name.as_deref() == Some(name.as_str()))
            && status.last_schedule_time.is_some()
    });
    assert!(listed.await, "the status lists the active Job");
    shutdown.cancel();
}
// ANCHOR_END: runs_on_schedule

/// `Forbid` skips runs while a Job is active (in memory, Jobs never finish); `Allow`
/// starts them beside it.
#[tokio::test]
async fn concurrency_policies_decide_about_an_active_job() {
    for (policy, more_than_one) in [
        (ConcurrencyPolicy::Forbid, false),
        (ConcurrencyPolicy::Allow, true),
    ] {
        let (clientset, shutdown) = start(cron_job::new).await;
        create(&clientset, |spec| spec.concurrency_policy = Some(policy)).await;
        assert!(at_least(&clientset, 1, 10).await);
        tokio::time::sleep(Duration::from_millis(3500)).await;
        let count = jobs(&clientset).await.len();
        assert_eq!(count > 1, more_than_one, "{policy:?}: {count} Jobs");
        shutdown.cancel();
    }
}

/// Finished Jobs past the history limit are deleted, oldest first; active ones stay.
#[tokio::test]
async fn finished_jobs_past_the_history_limit_are_deleted() {
    let (clientset, shutdown) = start(cron_job::new).await;
    create(&clientset, |spec| {
        spec.successful_jobs_history_limit = Some(1)
    })
    .await;
    assert!(at_least(&clientset, 3, 15).await);
    let done = jobs(&clientset).await;
    let complete = Patch::Merge(serde_json::json!({"status": {"conditions": [
        {"type": "Complete", "status": "True"}
    ]}}));
    for job in &done[..3] {
        jobs_api(&clientset)
            .patch(
                job.metadata.name.as_deref().unwrap(),
                &PatchParams::default(),
                &complete,
            )
            .await
            .unwrap();
    }
    let newest = done[2].metadata.name.clone();
    let pruned = within(Duration::from_secs(10), || async {
        let names: Vec<_> = jobs(&clientset)
            .await
            .into_iter()
            .map(|j| j.metadata.name)
            .collect();
        !names.contains(&done[0].metadata.name)
            && !names.contains(&done[1].metadata.name)
            && names.contains(&newest)
    });
    assert!(
        pruned.await,
        "the two oldest finished Jobs are gone, the newest kept"
    );
    shutdown.cancel();
}

/// A suspended CronJob starts nothing, and says when it would.
#[tokio::test]
async fn a_suspended_cron_job_starts_nothing() {
    let (clientset, shutdown) = start(cron_job::new).await;
    create(&clientset, |spec| spec.suspend = Some(true)).await;
    let ready = within(Duration::from_secs(5), || async {
        let status = cron_job(&clientset).await.status.unwrap_or_default();
        status
            .conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True")
    });
    assert!(ready.await);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(jobs(&clientset).await.is_empty());
    shutdown.cancel();
}

/// The controller on a real apiserver, with the CRD from config/crd/bases installed: a
/// run comes due and its Job is created there.
#[tokio::test]
async fn a_job_runs_on_a_real_control_plane() {
    let Some(cluster) = cluster::connect("CronJob controller on a real control plane").await else {
        return;
    };
    let crd = cluster::read_crd(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/crd/bases/batch.tutorial.crdgen.dev_cronjobs.yaml"
    )))
    .unwrap();
    cluster::install_crds(&cluster.client, &[crd], "cron-job-controller-tests")
        .await
        .unwrap();
    let (clientset, shutdown) = start_on(Clientset::new(cluster.client), cron_job::new).await;
    create(&clientset, |_| {}).await;
    let ran = at_least(&clientset, 1, 30).await;
    shutdown.cancel();
    let _ = clientset
        .batch_v1()
        .cron_jobs("default")
        .delete("demo", &Default::default())
        .await;
    for job in jobs(&clientset).await {
        let _ = jobs_api(&clientset)
            .delete(job.metadata.name.as_deref().unwrap(), &Default::default())
            .await;
    }
    assert!(ran, "no Job within 30 s");
}

/// Wraps the real sync: fails `failures` times first, or ignores every key.
struct Scripted<S> {
    inner: S,
    failures: u32,
    ignore: bool,
    calls: Arc<AtomicU32>,
    times: Times,
}

impl<S: SyncHandler> SyncHandler for Scripted<S> {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        self.times.lock().unwrap().push(tokio::time::Instant::now());
        if self.ignore {
            return Err(SyncError::ignore("nothing to do here"));
        }
        if call < self.failures {
            return Err(SyncError::requeue(std::io::Error::other("not yet")));
        }
        self.inner.sync(key).await
    }
}

/// When each sync started.
type Times = Arc<std::sync::Mutex<Vec<tokio::time::Instant>>>;
/// The real controller's wiring around a scripted sync.
type ScriptedController = QueueController<Scripted<Arc<cron_job::CronJobSync>>>;

fn scripted(
    failures: u32,
    ignore: bool,
) -> (
    impl FnOnce(&Clientset, &SharedInformerFactory) -> ScriptedController,
    Arc<AtomicU32>,
    Times,
) {
    let (calls, times) = (
        Arc::new(AtomicU32::new(0)),
        Arc::new(std::sync::Mutex::new(Vec::new())),
    );
    let (c, t) = (calls.clone(), times.clone());
    let build = move |clientset: &Clientset, factory: &SharedInformerFactory| {
        // The real controller's wiring, around a sync that fails first.
        let real = cron_job::new(clientset, factory);
        let queue = real.queue().clone();
        let inner = real.handler().clone();
        QueueController::with_queue(
            "scripted",
            queue,
            Scripted {
                inner,
                failures,
                ignore,
                calls: c,
                times: t,
            },
        )
    };
    (build, calls, times)
}

#[tokio::test(start_paused = true)]
async fn a_sync_that_fails_twice_backs_off_then_succeeds() {
    let (build, calls, times) = scripted(2, false);
    let (clientset, shutdown) = start(build).await;
    create(&clientset, |spec| spec.schedule = "@every 1h".into()).await;
    let ready = within(Duration::from_secs(30), || async {
        let status = cron_job(&clientset).await.status.unwrap_or_default();
        status.conditions.iter().any(|c| c.type_ == "Ready")
    });
    assert!(ready.await);
    let times = times.lock().unwrap().clone();
    assert!(calls.load(Ordering::SeqCst) >= 3);
    assert_eq!(
        (times[1] - times[0], times[2] - times[1]),
        (Duration::from_millis(5), Duration::from_millis(10)),
        "client-go's 5 ms, 10 ms backoff"
    );
    shutdown.cancel();
}

#[tokio::test(start_paused = true)]
async fn an_ignored_error_is_not_retried() {
    let (build, calls, _) = scripted(0, true);
    let (clientset, shutdown) = start(build).await;
    create(&clientset, |_| {}).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    shutdown.cancel();
}
