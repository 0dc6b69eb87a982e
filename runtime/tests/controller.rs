//! The controller's handling of each error class, under a paused clock; the event
//! handlers that feed its queue.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::{
    Action, Controller, ObjectKey, QueueController, SyncError, SyncHandler, enqueue, enqueue_owner,
};
use crdgen_runtime::informer::EventHandler;
use crdgen_runtime::workqueue::WorkQueue;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use tokio::time::Instant;

#[derive(Clone, Copy, Debug)]
enum Outcome {
    Ok,
    Fail,
    Requeue,
    After(Duration),
    Ignore,
    Panic,
}

/// A sync that answers from a script per key, and logs when it was called.
#[derive(Default)]
struct Scripted {
    script: Mutex<HashMap<String, VecDeque<Outcome>>>,
    calls: Arc<Mutex<Vec<(String, Duration)>>>,
    start: Option<Instant>,
}

impl SyncHandler for Scripted {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let key = key.to_string();
        let elapsed = self.start.map(|s| s.elapsed()).unwrap_or_default();
        self.calls.lock().unwrap().push((key.clone(), elapsed));
        let outcome = self
            .script
            .lock()
            .unwrap()
            .get_mut(&key)
            .and_then(VecDeque::pop_front)
            .unwrap_or(Outcome::Ok);
        match outcome {
            Outcome::Ok => Ok(Action::Done),
            Outcome::Fail => Err(std::io::Error::other("boom").into()),
            Outcome::Requeue => Err(SyncError::requeue("not yet")),
            Outcome::After(d) => Ok(Action::RequeueAfter(d)),
            Outcome::Ignore => Err(SyncError::ignore("nothing to do")),
            Outcome::Panic => panic!("sync panicked on purpose"),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn each_error_class_is_handled_as_the_seed_lays_out() {
    let script = [
        ("ok", vec![]),
        ("flaky", vec![Outcome::Fail, Outcome::Fail]),
        ("requeue", vec![Outcome::Requeue]),
        ("after", vec![Outcome::After(Duration::from_secs(2))]),
        (
            "backoff-then-after",
            vec![
                Outcome::Fail,
                Outcome::Fail,
                Outcome::After(Duration::from_secs(1)),
                Outcome::Fail,
            ],
        ),
        ("ignore", vec![Outcome::Ignore]),
        ("panic", vec![Outcome::Panic]),
    ];
    let handler = Scripted {
        script: Mutex::new(
            script
                .iter()
                .map(|(k, v)| (k.to_string(), v.iter().copied().collect()))
                .collect(),
        ),
        start: Some(Instant::now()),
        ..Default::default()
    };
    let calls = handler.calls.clone();
    let controller = Arc::new(QueueController::new("scripted", handler));
    for (key, _) in script {
        controller.queue().add(key.to_owned());
    }
    let shutdown = CancellationToken::new();
    let running = tokio::spawn({
        let (controller, shutdown) = (controller.clone(), shutdown.clone());
        async move { controller.run(2, shutdown).await }
    });
    tokio::time::sleep(Duration::from_secs(60)).await;

    let calls = calls.lock().unwrap().clone();
    let times = |key: &str| -> Vec<u128> {
        calls
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, t)| t.as_millis())
            .collect()
    };
    assert_eq!(times("ok"), [0]);
    assert_eq!(
        times("flaky"),
        [0, 5, 15],
        "fails twice, backs off 5 ms then 10 ms, then succeeds"
    );
    assert_eq!(
        controller.queue().num_requeues(&"flaky".to_owned()),
        0,
        "success forgets the backoff"
    );
    assert_eq!(times("requeue"), [0, 5]);
    assert_eq!(times("after"), [0, 2000]);
    assert_eq!(
        times("backoff-then-after"),
        [0, 5, 15, 1015, 1020],
        "a requeue after a delay forgets the backoff: the next failure waits 5 ms again"
    );
    assert_eq!(times("ignore"), [0], "an ignored error is not retried");
    assert_eq!(
        times("panic"),
        [0, 5],
        "a panic is requeued and the worker lives on"
    );

    shutdown.cancel();
    running.await.unwrap();
    assert!(controller.queue().is_shutting_down());
}

/// Runs `controller` with one worker, shuts it down after `running`, and waits for
/// `run` to return.
async fn shut_down_after<S: SyncHandler>(controller: &Arc<QueueController<S>>, running: Duration) {
    let shutdown = CancellationToken::new();
    let task = tokio::spawn({
        let (controller, shutdown) = (controller.clone(), shutdown.clone());
        async move { controller.run(1, shutdown).await }
    });
    tokio::time::sleep(running).await;
    shutdown.cancel();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn shutdown_lets_in_flight_syncs_finish_within_the_deadline() {
    struct Slow(Arc<Mutex<Vec<&'static str>>>);
    impl SyncHandler for Slow {
        async fn sync(&self, _: ObjectKey<'_>) -> Result<Action, SyncError> {
            self.0.lock().unwrap().push("started");
            tokio::time::sleep(Duration::from_secs(5)).await;
            self.0.lock().unwrap().push("finished");
            Ok(Action::Done)
        }
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    let controller = Arc::new(
        QueueController::new("slow", Slow(log.clone())).drain_deadline(Duration::from_secs(10)),
    );
    controller.queue().add("a".into());
    controller.queue().add("b".into());
    shut_down_after(&controller, Duration::from_secs(1)).await;
    // "a" was in flight and finished; "b" was still queued: handed out while draining
    // (client-go's shut down hands out what is queued) and finished too, within 10 s.
    assert_eq!(
        *log.lock().unwrap(),
        ["started", "finished", "started", "finished"]
    );
}

#[tokio::test(start_paused = true)]
async fn past_the_drain_deadline_in_flight_syncs_are_cancelled_not_left_running() {
    /// Says when the sync holding it is dropped (cancelled or finished).
    struct Dropped(Arc<Mutex<bool>>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            *self.0.lock().unwrap() = true;
        }
    }
    struct Stuck(Arc<Mutex<bool>>);
    impl SyncHandler for Stuck {
        async fn sync(&self, _: ObjectKey<'_>) -> Result<Action, SyncError> {
            let _guard = Dropped(self.0.clone());
            std::future::pending::<()>().await;
            Ok(Action::Done)
        }
    }
    let dropped = Arc::new(Mutex::new(false));
    let controller = Arc::new(
        QueueController::new("stuck", Stuck(dropped.clone()))
            .drain_deadline(Duration::from_secs(2)),
    );
    controller.queue().add("a".into());
    shut_down_after(&controller, Duration::from_secs(1)).await;
    // The abort lands at the worker's next poll.
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(
        *dropped.lock().unwrap(),
        "the stuck sync still runs after run returned"
    );
}

fn replica_set(owner: Option<&str>) -> ReplicaSet {
    let mut rs = ReplicaSet::default();
    rs.metadata.name = Some("web-7d9f".into());
    rs.metadata.namespace = Some("prod".into());
    rs.metadata.owner_references = owner.map(|name| {
        vec![OwnerReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: name.into(),
            uid: "u".into(),
            ..Default::default()
        }]
    });
    rs
}

#[tokio::test]
async fn handlers_enqueue_keys_of_objects_and_of_their_owners() {
    let queue = WorkQueue::<String>::new("handlers");
    let own = enqueue::<ReplicaSet>(&queue);
    EventHandler::on_add(&own, &Arc::new(replica_set(None)));
    let owners = enqueue_owner::<ReplicaSet, Deployment>(&queue);
    EventHandler::on_update(
        &owners,
        &Arc::new(replica_set(Some("web"))),
        &Arc::new(replica_set(Some("api"))),
    );
    EventHandler::on_delete(&owners, &Arc::new(replica_set(None)));
    // Owners match by group and kind, whatever version wrote the reference.
    let written_by = |api_version: &str, name: &str| {
        let mut rs = replica_set(Some(name));
        rs.metadata.owner_references.as_mut().unwrap()[0].api_version = api_version.into();
        Arc::new(rs)
    };
    EventHandler::on_add(&owners, &written_by("apps/v1beta2", "older"));
    EventHandler::on_add(&owners, &written_by("extensions/v1beta1", "other-group"));
    let mut keys = Vec::new();
    while !queue.is_empty() {
        let key = queue.get().await.unwrap();
        queue.done(&key);
        keys.push(key);
    }
    assert_eq!(
        keys,
        ["prod/web-7d9f", "prod/web", "prod/api", "prod/older"]
    );
}

/// `?` in a sync takes any error an operator meets: std errors, anyhow's, messages.
#[test]
fn question_mark_turns_any_error_into_a_retried_sync_error() {
    fn with_anyhow() -> Result<(), SyncError> {
        Err(anyhow::anyhow!("from anyhow"))?;
        Ok(())
    }
    fn with_io() -> Result<(), SyncError> {
        Err(std::io::Error::other("from io"))?;
        Ok(())
    }
    fn with_message() -> Result<(), SyncError> {
        Err(format!("from a {}", "message"))?;
        Ok(())
    }
    for (result, message) in [
        (with_anyhow(), "from anyhow"),
        (with_io(), "from io"),
        (with_message(), "from a message"),
    ] {
        match result {
            Err(SyncError::Other(e)) => assert_eq!(e.to_string(), message),
            other => panic!("expected SyncError::Other, got {other:?}"),
        }
    }
}

/// The builder: `for_kind` queues the primary's changes, `owns` its controller's key for
/// an owned object (not for a mere owner reference) and indexes the owned cache by it,
/// `watches` what a map gives; informers come from the factory, one watch per kind.
#[tokio::test]
async fn the_builder_watches_the_primary_what_it_owns_and_what_it_maps() {
    use crdgen_runtime::controller::owner_index;
    use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
    use crdgen_runtime::testing::ApiServer;
    use k8s_openapi::api::core::v1::ConfigMap;

    let server = ApiServer::new();
    server.register::<Deployment>(false);
    server.register::<ReplicaSet>(false);
    server.register::<ConfigMap>(false);
    let mut deployment = Deployment::default();
    deployment.metadata.name = Some("web".into());
    deployment.metadata.namespace = Some("prod".into());
    server.insert(&deployment).unwrap();
    let mut controlled = replica_set(Some("web"));
    controlled.metadata.owner_references.as_mut().unwrap()[0].controller = Some(true);
    server.insert(&controlled).unwrap();
    let mut referenced = replica_set(Some("other"));
    referenced.metadata.name = Some("shared-1".into());
    server.insert(&referenced).unwrap();
    let mut config = ConfigMap::default();
    config.metadata.name = Some("settings".into());
    config.metadata.namespace = Some("prod".into());
    config.metadata.labels = Some([("app".to_owned(), "api".to_owned())].into());
    server.insert(&config).unwrap();

    let factory = InformerFactory::new(server.client(), FactoryOptions::default());
    let replica_sets = factory.informer::<ReplicaSet>();
    let controller = QueueController::builder::<Deployment>("deployments", Scripted::default())
        .for_kind(&factory.informer::<Deployment>())
        .owns(&replica_sets)
        .watches(&factory.informer::<ConfigMap>(), |cm: &ConfigMap| {
            let app = cm
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("app"))
                .cloned();
            app.map(|app| vec![format!("prod/{app}")])
                .unwrap_or_default()
        })
        .build();
    // Asked for again: the same informer, one watch.
    assert_eq!(
        factory.informer::<ReplicaSet>().store().index_names(),
        replica_sets.store().index_names()
    );
    let shutdown = CancellationToken::new();
    factory.start(&shutdown);
    assert!(
        factory
            .wait_for_cache_sync()
            .await
            .values()
            .all(|synced| *synced)
    );
    // web: itself and its controlled ReplicaSet (one key, or twice); api: the
    // ConfigMap's map; `other`, a mere owner reference, never.
    let mut keys = Vec::new();
    let wanted = |keys: &Vec<String>| {
        ["prod/web", "prod/api"]
            .iter()
            .all(|k| keys.iter().any(|x| x == k))
    };
    while !wanted(&keys) {
        let key = tokio::time::timeout(Duration::from_secs(5), controller.queue().get())
            .await
            .unwrap_or_else(|_| panic!("only {keys:?} queued"))
            .unwrap();
        controller.queue().done(&key);
        keys.push(key);
    }
    while let Ok(Some(key)) =
        tokio::time::timeout(Duration::from_millis(200), controller.queue().get()).await
    {
        controller.queue().done(&key);
        keys.push(key);
    }
    assert!(!keys.contains(&"prod/other".to_owned()), "{keys:?}");
    let owned = replica_sets
        .store()
        .by_index(&owner_index::<Deployment>(), "prod/web")
        .unwrap_or_default();
    assert_eq!(owned.len(), 1);
    assert_eq!(owned[0].metadata.name.as_deref(), Some("web-7d9f"));
    assert_eq!(server.watch_count::<ReplicaSet>(), 1, "one watch per kind");
    shutdown.cancel();
    factory.shutdown().await;
}
