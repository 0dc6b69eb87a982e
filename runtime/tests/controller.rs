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
async fn each_error_class_is_handled_as_its_name_says() {
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

/// A Deployment (or its ReplicaSet) the apiserver takes: a selector and a template.
fn workload<K: serde::de::DeserializeOwned>(name: &str, owners: serde_json::Value) -> K {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "ownerReferences": owners},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}
        }
    }))
    .unwrap()
}

/// The builder: `for_kind` queues the primary's changes, `owns` its controller's key for
/// an owned object (not for a mere owner reference) and indexes the owned cache by it,
/// `watches` what a map gives; informers come from the factory, one watch per kind.
/// Returns what differs from that.
async fn builder_checks(client: kube::Client, ns: &str) -> Vec<String> {
    use crdgen_runtime::controller::owner_index;
    use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Api, PostParams};

    let mut wrong = Vec::new();
    let pp = PostParams::default();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), ns);
    let web = deployments
        .create(&pp, &workload("web", serde_json::json!([])))
        .await
        .unwrap();
    let owner = |name: &str, uid: &str, controller: bool| {
        serde_json::json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                            "uid": uid, "controller": controller}])
    };
    let replica_sets: Api<ReplicaSet> = Api::namespaced(client.clone(), ns);
    let uid = web.metadata.uid.clone().unwrap_or_default();
    replica_sets
        .create(&pp, &workload("web-7d9f", owner("web", &uid, true)))
        .await
        .unwrap();
    replica_sets
        .create(
            &pp,
            &workload(
                "shared-1",
                owner("other", "00000000-0000-0000-0000-000000000001", false),
            ),
        )
        .await
        .unwrap();
    let config: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "settings", "labels": {"app": "api"}}
    }))
    .unwrap();
    Api::<ConfigMap>::namespaced(client.clone(), ns)
        .create(&pp, &config)
        .await
        .unwrap();

    let factory = InformerFactory::new(client, FactoryOptions::default().namespace(ns));
    let owned = factory.informer::<ReplicaSet>();
    let namespace = ns.to_owned();
    let controller = QueueController::builder::<Deployment>("deployments", Scripted::default())
        .for_kind(&factory.informer::<Deployment>())
        .owns(&owned)
        .watches(&factory.informer::<ConfigMap>(), move |cm: &ConfigMap| {
            let app = cm.metadata.labels.as_ref().and_then(|l| l.get("app"));
            app.map(|app| vec![format!("{namespace}/{app}")])
                .unwrap_or_default()
        })
        .build();
    let shutdown = CancellationToken::new();
    factory.start(&shutdown);
    if !factory
        .wait_for_cache_sync()
        .await
        .values()
        .all(|synced| *synced)
    {
        wrong.push("the caches did not sync".to_owned());
    }
    let (web_key, api_key, other_key) = (
        format!("{ns}/web"),
        format!("{ns}/api"),
        format!("{ns}/other"),
    );
    let mut keys = Vec::new();
    while ![&web_key, &api_key].iter().all(|k| keys.contains(*k)) {
        match tokio::time::timeout(Duration::from_secs(10), controller.queue().get()).await {
            Ok(Some(key)) => {
                controller.queue().done(&key);
                keys.push(key);
            }
            _ => {
                wrong.push(format!("only {keys:?} were queued"));
                break;
            }
        }
    }
    while let Ok(Some(key)) =
        tokio::time::timeout(Duration::from_millis(300), controller.queue().get()).await
    {
        controller.queue().done(&key);
        keys.push(key);
    }
    if keys.contains(&other_key) {
        wrong.push(format!("a mere owner reference was followed: {keys:?}"));
    }
    let mine: Vec<String> = owned
        .store()
        .by_index(&owner_index::<Deployment>(), &web_key)
        .unwrap_or_default()
        .iter()
        .filter_map(|rs| rs.metadata.name.clone())
        .collect();
    if !mine.contains(&"web-7d9f".to_owned()) || mine.contains(&"shared-1".to_owned()) {
        wrong.push(format!("the owner index of web holds {mine:?}"));
    }
    shutdown.cancel();
    factory.shutdown().await;
    wrong
}

#[tokio::test]
async fn the_builder_watches_the_primary_what_it_owns_and_what_it_maps() {
    use crdgen_runtime::testing::ApiServer;
    let server = ApiServer::new();
    server.register::<Deployment>();
    server.register::<ReplicaSet>();
    server.register::<k8s_openapi::api::core::v1::ConfigMap>();
    let wrong = builder_checks(server.client(), "prod").await;
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(server.watch_count::<ReplicaSet>(), 1, "one watch per kind");
}

#[tokio::test]
async fn the_builder_on_a_real_apiserver() {
    use crdgen_runtime::testing::cluster;
    let Some(cluster::Connection { client, .. }) = cluster::connect("controller builder").await
    else {
        return;
    };
    let ns = format!(
        "crdgen-builder-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> =
        kube::Api::all(client.clone());
    let object = serde_json::from_value(serde_json::json!({"metadata": {"name": ns}})).unwrap();
    namespaces
        .create(&Default::default(), &object)
        .await
        .unwrap();
    let wrong = builder_checks(client, &ns).await;
    let _ = namespaces.delete(&ns, &Default::default()).await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}
