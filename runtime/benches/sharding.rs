//! Sharded controllers on one machine, on the in-memory API server: for 1, 2 and 3
//! replicas with a sync that waits 10 ms (4 workers each), the objects reconciled per
//! second, the bytes one replica's cache holds, and how long a handover takes (from the
//! assigner's drain label to the new member's first sync) when a replica joins. Run
//! with `hack/bench-sharding.sh`.
//!
//! Bytes are counted exactly, with a counting allocator: the live bytes a fresh
//! informer with a member's label selector holds once synced.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::cache::key_of;
use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
use crdgen_runtime::sharding::{Assigner, Ring};
use crdgen_runtime::testing::ApiServer;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::PostParams;
use kube::{Api, ResourceExt};
use tokio::time::Instant;

#[path = "support/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const OBJECTS: usize = 3_000;
const NAMESPACE: &str = "bench";

/// When each key was first synced, and on which replica.
type Synced = Arc<Mutex<BTreeMap<String, Vec<(String, Instant)>>>>;

struct Waiting {
    replica: String,
    synced: Synced,
}

impl SyncHandler for Waiting {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        tokio::time::sleep(Duration::from_millis(10)).await;
        let mut synced = self.synced.lock().unwrap();
        let entry = synced.entry(key.to_string()).or_default();
        entry.push((self.replica.clone(), Instant::now()));
        Ok(Action::Done)
    }
}

fn ring() -> Ring {
    Ring::new("bench", NAMESPACE).timings(
        Duration::from_secs(3),
        Duration::from_secs(2),
        Duration::from_millis(500),
    )
}

/// Starts a replica named `name`; cancel the token to stop it.
async fn start(client: &kube::Client, name: &str, synced: &Synced) -> CancellationToken {
    let ring = ring();
    let factory = InformerFactory::new(
        client.clone(),
        FactoryOptions::default()
            .namespace(NAMESPACE)
            .shard(ring.shard(name)),
    );
    let informer = factory.informer::<ConfigMap>();
    let waiting = Waiting {
        replica: name.to_owned(),
        synced: synced.clone(),
    };
    let controller = QueueController::builder::<ConfigMap>("bench", waiting)
        .for_kind(&informer)
        .build();
    let shutdown = CancellationToken::new();
    factory.start(&shutdown);
    factory.wait_for_cache_sync().await;
    let assigner = Assigner::<ConfigMap>::new(client.clone(), ring.clone()).namespace(NAMESPACE);
    let (client, identity, stop) = (client.clone(), name.to_owned(), shutdown.clone());
    tokio::spawn(async move {
        let work = |term| async move { controller.run_leading(4, &term).await };
        let _ = ring.run(&client, &identity, &assigner, &stop, work).await;
        // Kept until the replica stops: its informers feed its controller.
        drop(factory);
    });
    shutdown
}

/// Waits until every object's latest sync ran on the member the ring assigns it among
/// `replicas`; when that was.
async fn all_synced(synced: &Synced, replicas: &[&str]) -> Instant {
    loop {
        let done = {
            let synced = synced.lock().unwrap();
            (0..OBJECTS).all(|i| {
                let key = format!("{NAMESPACE}/thing-{i:04}");
                let due = crdgen_runtime::sharding::ring::assign(&key, replicas.iter().copied());
                let latest = synced.get(&key).and_then(|syncs| syncs.last());
                latest.is_some_and(|(replica, _)| Some(replica.as_str()) == due)
            })
        };
        if done {
            return Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The live bytes an informer of `member`'s objects holds once synced.
async fn cached_bytes(client: &kube::Client, member: &str) -> (usize, usize) {
    let before = counting::live();
    let factory = InformerFactory::new(
        client.clone(),
        FactoryOptions::default()
            .namespace(NAMESPACE)
            .shard(ring().shard(member)),
    );
    let informer = factory.informer::<ConfigMap>();
    let stop = CancellationToken::new();
    factory.start(&stop);
    factory.wait_for_cache_sync().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let bytes = counting::live().saturating_sub(before);
    let count = informer.store().len();
    stop.cancel();
    factory.shutdown().await;
    (count, bytes)
}

async fn objects(client: &kube::Client) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    for i in 0..OBJECTS {
        let mut thing = ConfigMap::default();
        thing.metadata.name = Some(format!("thing-{i:04}"));
        thing.metadata.labels = Some(BTreeMap::from([("app".into(), "bench".into())]));
        // About a kilobyte of data, as a small custom resource's spec and status.
        thing.data = Some(BTreeMap::from([("spec".into(), "x".repeat(1_000))]));
        api.create(&PostParams::default(), &thing).await.unwrap();
    }
}

async fn replicas(count: usize) {
    let server = ApiServer::new();
    server.register::<ConfigMap>().register::<Lease>();
    let client = server.client();
    objects(&client).await;
    let synced = Synced::default();
    let names: Vec<String> = (0..count).map(|i| format!("r{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let started = Instant::now();
    let mut stops = Vec::new();
    for name in &names {
        stops.push(start(&client, name, &synced).await);
    }
    let done = all_synced(&synced, &names).await;
    let seconds = (done - started).as_secs_f64();
    let mut caches = Vec::new();
    for name in &names {
        let (objects, bytes) = cached_bytes(&client, name).await;
        caches.push(format!("{name} {objects} objects {} KiB", bytes / 1024));
    }
    println!(
        "{count} replica(s): {OBJECTS} objects reconciled in {seconds:.2} s, {:.0} objects/s (from start: Leases, assignment, syncs); caches: {}",
        OBJECTS as f64 / seconds,
        caches.join(", ")
    );
    if count < 3 {
        handover(&client, &synced, &names).await;
    }
    for stop in stops {
        stop.cancel();
    }
}

/// Adds a replica to `names` and reports how long each moved object went unreconciled:
/// from the drain label the test's watch saw to its first sync on the new member.
async fn handover(client: &kube::Client, synced: &Synced, names: &[&str]) {
    let drain = ring().drain_label();
    let drained_at: Arc<Mutex<BTreeMap<String, Instant>>> = Arc::default();
    let watch = InformerFactory::new(
        client.clone(),
        FactoryOptions::default().namespace(NAMESPACE),
    );
    let informer = watch.informer::<ConfigMap>();
    let seen = drained_at.clone();
    informer.add_event_handler(crdgen_runtime::informer::HandlerFns::new().on_update(
        move |_old: &Arc<ConfigMap>, new: &Arc<ConfigMap>| {
            if new.labels().contains_key(&drain) {
                seen.lock()
                    .unwrap()
                    .entry(key_of(new.as_ref()))
                    .or_insert_with(Instant::now);
            }
        },
    ));
    let stop = CancellationToken::new();
    watch.start(&stop);
    watch.wait_for_cache_sync().await;
    let joining = "joining";
    let started = Instant::now();
    let joined = start(client, joining, synced).await;
    let mut all: Vec<&str> = names.to_vec();
    all.push(joining);
    let done = all_synced(synced, &all).await;
    let drained = drained_at.lock().unwrap().clone();
    let synced = synced.lock().unwrap();
    let mut waits: Vec<Duration> = drained
        .iter()
        .filter_map(|(key, at)| {
            let first = synced
                .get(key)?
                .iter()
                .find(|(r, t)| r == joining && t >= at)?;
            Some(first.1 - *at)
        })
        .collect();
    waits.sort();
    if let (Some(median), Some(worst)) = (waits.get(waits.len() / 2), waits.last()) {
        println!(
            "  a replica joining {} replica(s): {} objects handed over, all reconciled {:.2} s after it started; per object, drain to first sync: median {} ms, max {} ms",
            names.len(),
            waits.len(),
            (done - started).as_secs_f64(),
            median.as_millis(),
            worst.as_millis()
        );
    }
    joined.cancel();
    stop.cancel();
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for count in 1..=3 {
            replicas(count).await;
        }
    });
}
