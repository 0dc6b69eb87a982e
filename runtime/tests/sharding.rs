//! Sharded controllers: three replicas share 3,000 objects (each owning a Secret);
//! every object is reconciled, never by two replicas at once, and each replica caches
//! only its own objects and what they own; a killed replica's objects go to the others
//! once its Lease expires; an added replica takes about a third and no object moves
//! between the replicas that were there; a rolling restart moves only the restarted
//! replica's objects. On the in-memory server on a paused clock, and on a real
//! apiserver.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::cache::{Store, key_of};
use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
use crdgen_runtime::owner::set_controller_reference;
use crdgen_runtime::sharding::{Assigner, Ring, ring};
use crdgen_runtime::testing::{ApiServer, cluster};
use futures_util::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::api::{DeleteParams, PostParams};
use kube::{Api, ResourceExt};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::time::Instant;

const LEASE: Duration = Duration::from_secs(3);
const RENEW: Duration = Duration::from_secs(2);
const RETRY: Duration = Duration::from_millis(500);
/// Each replica's sync: its length and how many run at once.
const SYNC: Duration = Duration::from_millis(10);
const WORKERS: usize = 4;
/// The writes the test and the assigner have in flight at most.
const CONCURRENCY: usize = 16;

/// Where one run of the scenario happens: its namespace holds the objects and Leases,
/// and names its ring, so that runs do not see each other's.
struct Setup {
    client: kube::Client,
    namespace: String,
    objects: usize,
    /// The test's own view of the objects and Secrets (an informer each), read as
    /// often as the scenario waits, instead of a list each time.
    observed: (Store<ConfigMap>, Store<Secret>),
    _observer: InformerFactory,
}

impl Setup {
    async fn new(
        client: kube::Client,
        namespace: &str,
        objects: usize,
        shutdown: &CancellationToken,
    ) -> Self {
        let observer = InformerFactory::new(
            client.clone(),
            FactoryOptions::default().namespace(namespace),
        );
        let observed = (
            observer.informer::<ConfigMap>().store().clone(),
            observer.informer::<Secret>().store().clone(),
        );
        observer.start(shutdown);
        observer.wait_for_cache_sync().await;
        Setup {
            client,
            namespace: namespace.to_owned(),
            objects,
            observed,
            _observer: observer,
        }
    }

    fn ring(&self) -> Ring {
        Ring::new(&self.namespace, &self.namespace).timings(LEASE, RENEW, RETRY)
    }
}

/// One sync: which key, on which replica, from when to when.
#[derive(Clone, Debug)]
struct Interval {
    key: String,
    replica: String,
    start: Instant,
    end: Instant,
}

type Log = Arc<Mutex<Vec<Interval>>>;

/// A sync that takes [`SYNC`] and records itself.
struct Recording {
    replica: String,
    log: Log,
}

impl SyncHandler for Recording {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let start = Instant::now();
        tokio::time::sleep(SYNC).await;
        self.log.lock().unwrap().push(Interval {
            key: key.to_string(),
            replica: self.replica.clone(),
            start,
            end: Instant::now(),
        });
        Ok(Action::Done)
    }
}

/// A running replica: a member of the ring (its controller runs while it holds its
/// member Lease) and a candidate to lead it (its assigner runs while it leads).
struct Replica {
    name: String,
    things: Store<ConfigMap>,
    secrets: Store<Secret>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Replica {
    async fn start(setup: &Setup, name: &str, log: &Log) -> Replica {
        let (client, ring) = (&setup.client, setup.ring());
        let factory = InformerFactory::new(
            client.clone(),
            FactoryOptions::default()
                .namespace(&setup.namespace)
                .shard(ring.shard(name)),
        );
        let things = factory.informer::<ConfigMap>();
        let secrets = factory.informer::<Secret>();
        let recording = Recording {
            replica: name.to_owned(),
            log: log.clone(),
        };
        let controller = QueueController::builder::<ConfigMap>("things", recording)
            .for_kind(&things)
            .owns(&secrets)
            .build();
        let shutdown = CancellationToken::new();
        factory.start(&shutdown);
        assert!(factory.wait_for_cache_sync().await.values().all(|s| *s));
        let assigner = Assigner::<ConfigMap>::new(client.clone(), ring.clone())
            .namespace(&setup.namespace)
            .concurrency(CONCURRENCY)
            .owns::<Secret>();
        let (client, identity, stop) = (client.clone(), name.to_owned(), shutdown.clone());
        let replica = tokio::spawn(async move {
            let work = |term| async move { controller.run_leading(WORKERS, &term).await };
            let _ = ring.run(&client, &identity, &assigner, &stop, work).await;
        });
        Replica {
            name: name.to_owned(),
            things: things.store().clone(),
            secrets: secrets.store().clone(),
            shutdown,
            task: replica,
        }
    }

    /// Killed: its tasks dropped where they stand, no Lease released.
    fn kill(self) {
        self.task.abort();
        self.shutdown.cancel();
    }

    /// Stopped as on SIGTERM: its syncs drain and its Leases are released.
    async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap();
    }
}

/// Each object's member, from its label, as the test's informer saw it last.
fn members(setup: &Setup) -> BTreeMap<String, Option<String>> {
    labelled(&setup.observed.0.list(), &setup.ring().shard_label())
}

fn labelled<K: kube::Resource>(
    objects: &[Arc<K>],
    label: &str,
) -> BTreeMap<String, Option<String>> {
    objects
        .iter()
        .filter(|o| {
            o.meta()
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("thing-"))
        })
        .map(|o| {
            (
                key_of(o.as_ref()),
                o.meta().labels.as_ref().and_then(|l| l.get(label)).cloned(),
            )
        })
        .collect()
}

/// Waits until every object carries the member the ring assigns it among `replicas`, its
/// last sync ran on that member and its Secret carries the same label; how long that
/// took from `since`.
async fn settled(setup: &Setup, log: &Log, replicas: &[&str], since: Instant) -> Duration {
    let shard = setup.ring().shard_label();
    for attempt in 0..600 {
        let assigned = members(setup);
        let secrets = labelled(&setup.observed.1.list(), &shard);
        let log = log.lock().unwrap().clone();
        let mut last: BTreeMap<&str, &Interval> = BTreeMap::new();
        for interval in &log {
            let latest = last.entry(&interval.key).or_insert(interval);
            if interval.start > latest.start {
                *latest = interval;
            }
        }
        let pending: Vec<_> = assigned
            .iter()
            .filter(|(key, member)| {
                let due = ring::assign(key, replicas.iter().copied());
                member.as_deref() != due
                    || last.get(key.as_str()).map(|i| i.replica.as_str()) != due
                    || secrets.get(*key).map(Option::as_deref) != Some(due)
            })
            .map(|(key, member)| (key.clone(), member.clone()))
            .collect();
        if assigned.len() == setup.objects && pending.is_empty() {
            return Instant::now() - since;
        }
        if attempt == 599 {
            panic!(
                "{} objects not on their member among {replicas:?}, synced there and their Secret labelled for it, within two minutes: {:?}…",
                pending.len(),
                &pending[..pending.len().min(5)]
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    unreachable!("the last attempt panics")
}

/// No two syncs of one key on different replicas overlap in time.
fn no_overlap(log: &Log) {
    let mut by_key: BTreeMap<String, Vec<Interval>> = BTreeMap::new();
    for interval in log.lock().unwrap().iter() {
        by_key
            .entry(interval.key.clone())
            .or_default()
            .push(interval.clone());
    }
    for (key, mut intervals) in by_key {
        intervals.sort_by_key(|i| i.start);
        for pair in intervals.windows(2) {
            if pair[0].replica != pair[1].replica {
                assert!(
                    pair[0].end <= pair[1].start,
                    "{key}: syncs on {} and {} overlap",
                    pair[0].replica,
                    pair[1].replica
                );
            }
        }
    }
}

/// Each replica's caches hold its own objects and their Secrets only, about its share
/// (a real apiserver's namespace has a ConfigMap of its own, kube-root-ca.crt, which the
/// ring shares out too).
fn caches_hold_their_shares(setup: &Setup, replicas: &[&Replica]) {
    let shard = setup.ring().shard_label();
    for replica in replicas {
        let mut things = replica.things.list();
        things.retain(|o| o.name_any().starts_with("thing-"));
        for object in things
            .iter()
            .map(|o| o.labels())
            .chain(replica.secrets.list().iter().map(|o| o.labels()))
        {
            assert_eq!(object.get(&shard), Some(&replica.name));
        }
        let share = setup.objects / replicas.len();
        assert!(
            things.len() > share * 8 / 10 && things.len() < share * 12 / 10,
            "{} caches {} of {}",
            replica.name,
            things.len(),
            setup.objects
        );
        assert_eq!(
            replica.secrets.len(),
            things.len(),
            "{}'s Secrets",
            replica.name
        );
    }
}

/// The keys whose member differs between two readings.
fn moved(
    before: &BTreeMap<String, Option<String>>,
    after: &BTreeMap<String, Option<String>>,
) -> Vec<(String, Option<String>, Option<String>)> {
    before
        .iter()
        .filter(|(key, member)| after.get(*key) != Some(*member))
        .map(|(key, member)| {
            (
                key.clone(),
                member.clone(),
                after.get(key).cloned().flatten(),
            )
        })
        .collect()
}

/// The assigner's metrics as a scrape of `/metrics` would read them, by name and member
/// (empty for the ring-wide ones).
fn ring_metrics(setup: &Setup) -> BTreeMap<(String, String), f64> {
    static RECORDER: OnceLock<PrometheusHandle> = OnceLock::new();
    let scrape = RECORDER.get_or_init(|| {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::set_global_recorder(recorder).expect("the only global recorder");
        handle
    });
    let mut found = BTreeMap::new();
    for line in scrape.render().lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let (name, labels) = series.split_once('{').unwrap_or((series, "}"));
        let labels: BTreeMap<&str, &str> = labels
            .trim_end_matches('}')
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k, v.trim_matches('"')))
            .collect();
        if labels.get("ring") != Some(&setup.namespace.as_str()) {
            continue;
        }
        let member = labels.get("member").unwrap_or(&"").to_string();
        found.insert((name.to_owned(), member), value.parse().unwrap());
    }
    found
}

/// The ring-wide metric `name`, once the assigner has recorded it.
fn ring_metric(setup: &Setup, name: &str) -> Option<f64> {
    ring_metrics(setup)
        .get(&(name.to_owned(), String::new()))
        .copied()
}

/// Waits until `done` holds of the assigner's metrics, which follow its own cache (a
/// watch of its own, which may run behind the test's); panics with them after `within`.
async fn metrics_reach(
    setup: &Setup,
    within: Duration,
    what: &str,
    done: impl Fn(&BTreeMap<(String, String), f64>) -> bool,
) {
    let deadline = Instant::now() + within;
    loop {
        let metrics = ring_metrics(setup);
        if done(&metrics) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {within:?}: {metrics:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Creates the objects and their Secrets, [`CONCURRENCY`] objects at a time, as the
/// assigner relabels them; how long that took, which measures the apiserver's write rate
/// at that concurrency.
async fn create_objects(setup: &Setup) -> Duration {
    let things: Api<ConfigMap> = Api::namespaced(setup.client.clone(), &setup.namespace);
    let secrets: Api<Secret> = Api::namespaced(setup.client.clone(), &setup.namespace);
    let start = Instant::now();
    futures_util::stream::iter(0..setup.objects)
        .for_each_concurrent(CONCURRENCY, |i| {
            let (things, secrets) = (things.clone(), secrets.clone());
            async move {
                let mut thing = ConfigMap::default();
                thing.metadata.name = Some(format!("thing-{i:04}"));
                let thing = things.create(&PostParams::default(), &thing).await.unwrap();
                let mut secret = Secret::default();
                secret.metadata.name = thing.metadata.name.clone();
                secret.metadata.namespace = Some(setup.namespace.clone());
                set_controller_reference(&thing, &mut secret).unwrap();
                secrets
                    .create(&PostParams::default(), &secret)
                    .await
                    .unwrap();
            }
        })
        .await;
    Instant::now() - start
}

/// The bound on a dead member's objects reaching their new members that the book's
/// sharding chapter states: the Lease's duration (the assigner wakes at its deadline),
/// then each moved object and its Secret relabelled at the apiserver's write rate (two
/// writes an object, as many as creating it took), their syncs shared by the members
/// left, and one retry period for the watches that carry each step.
fn failover_bound(moved: usize, objects: usize, created_in: Duration, members: usize) -> Duration {
    let relabelling = created_in.mul_f64(moved as f64 / objects as f64);
    let syncing = SYNC * u32::try_from(moved.div_ceil(members * WORKERS)).unwrap();
    LEASE + relabelling + syncing + RETRY
}

async fn scenario(setup: Setup) {
    // Installed before any metric is registered, so that the assigner's are recorded.
    ring_metrics(&setup);
    let log: Log = Arc::default();
    let start = Instant::now();
    let mut replicas = Vec::new();
    for name in ["a", "b", "c"] {
        replicas.push(Replica::start(&setup, name, &log).await);
    }
    // The objects come once the ring has its members: then none has to move later.
    metrics_reach(&setup, LEASE * 4, "three members", |_| {
        ring_metric(&setup, "sharding_ring_members") == Some(3.0)
    })
    .await;
    let created_in = create_objects(&setup).await;
    settled(&setup, &log, &["a", "b", "c"], start).await;
    no_overlap(&log);
    caches_hold_their_shares(&setup, &replicas.iter().collect::<Vec<_>>());
    assert_eq!(
        ring_metric(&setup, "sharding_handovers_total").unwrap_or(0.0),
        0.0,
        "no handover while no member joined or left"
    );
    // Each member's gauge counts what the test sees labelled for it (every ConfigMap of
    // the namespace, as the assigner shares them all out).
    let shard = setup.ring().shard_label();
    let mut labelled_for: BTreeMap<String, f64> = BTreeMap::new();
    for object in setup.observed.0.list() {
        if let Some(member) = object.labels().get(&shard) {
            *labelled_for.entry(member.clone()).or_default() += 1.0;
        }
    }
    assert_eq!(labelled_for.len(), 3, "{labelled_for:?}");
    metrics_reach(&setup, LEASE, "the assigned-objects gauges", |metrics| {
        labelled_for.iter().all(|(member, count)| {
            metrics.get(&("sharding_assigned_objects".into(), member.clone())) == Some(count)
        })
    })
    .await;

    // A replica killed: its objects go to the others once its Lease expires.
    let c = replicas.pop().unwrap();
    let before = members(&setup);
    let killed = Instant::now();
    c.kill();
    let took = settled(&setup, &log, &["a", "b"], killed).await;
    let moved_from_c = before
        .values()
        .filter(|m| m.as_deref() == Some("c"))
        .count();
    let bound = failover_bound(moved_from_c, setup.objects, created_in, 2);
    println!(
        "failover: {moved_from_c} objects moved in {took:?} (bound {bound:?}; creating {} took {created_in:?})",
        setup.objects
    );
    assert!(
        took <= bound,
        "{took:?} to reconcile c's {moved_from_c} objects elsewhere, over the bound {bound:?}"
    );
    for (key, from, _) in moved(&before, &members(&setup)) {
        assert_eq!(
            from.as_deref(),
            Some("c"),
            "{key} moved though its member lived"
        );
    }
    no_overlap(&log);
    let handovers = ring_metrics(&setup)[&("sharding_handovers_total".into(), String::new())];
    assert!(handovers > 0.0, "handovers counted: {handovers}");

    // A replica added: it takes about a third, each from whichever member had it.
    let before = members(&setup);
    let added = Instant::now();
    replicas.push(Replica::start(&setup, "d", &log).await);
    settled(&setup, &log, &["a", "b", "d"], added).await;
    let moved_to_d = moved(&before, &members(&setup));
    for (key, _, to) in &moved_to_d {
        assert_eq!(to.as_deref(), Some("d"), "{key} moved between old members");
    }
    let third = setup.objects / 3;
    assert!(
        moved_to_d.len() > third * 8 / 10 && moved_to_d.len() < third * 12 / 10,
        "{} of {} moved to d",
        moved_to_d.len(),
        setup.objects
    );
    no_overlap(&log);
    caches_hold_their_shares(&setup, &replicas.iter().collect::<Vec<_>>());

    // A rolling restart: each replica stopped (its Lease released) and started again
    // under its name; only its own objects move, and back to it.
    let names = ["a", "b", "d"];
    for name in names {
        let before = members(&setup);
        let at = replicas.iter().position(|r| r.name == name).unwrap();
        replicas.remove(at).stop().await;
        let others: Vec<&str> = names.iter().copied().filter(|n| *n != name).collect();
        settled(&setup, &log, &others, Instant::now()).await;
        for (key, from, _) in moved(&before, &members(&setup)) {
            assert_eq!(
                from.as_deref(),
                Some(name),
                "{key} moved while {name} restarted"
            );
        }
        replicas.push(Replica::start(&setup, name, &log).await);
        settled(&setup, &log, &names, Instant::now()).await;
        assert_eq!(
            moved(&before, &members(&setup)),
            vec![],
            "after {name} restarted"
        );
    }
    no_overlap(&log);
    caches_hold_their_shares(&setup, &replicas.iter().collect::<Vec<_>>());
    for replica in replicas {
        replica.kill();
    }
}

#[tokio::test(start_paused = true)]
async fn three_replicas_share_the_objects_and_hand_them_over_in_memory() {
    let server = ApiServer::new();
    server
        .register::<ConfigMap>()
        .register::<Secret>()
        .register::<Lease>();
    let observing = CancellationToken::new();
    scenario(Setup::new(server.client(), "sharding", 3_000, &observing).await).await;
    observing.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_share_the_objects_and_hand_them_over_on_a_real_apiserver() {
    let Some(cluster) = cluster::connect("sharding").await else {
        return;
    };
    let namespace = format!("sharding-{}", std::process::id());
    let namespaces: Api<Namespace> = Api::all(cluster.client.clone());
    let mut created = Namespace::default();
    created.metadata.name = Some(namespace.clone());
    namespaces
        .create(&PostParams::default(), &created)
        .await
        .unwrap();
    let observing = CancellationToken::new();
    scenario(Setup::new(cluster.client.clone(), &namespace, 3_000, &observing).await).await;
    observing.cancel();
    namespaces
        .delete(&namespace, &DeleteParams::default())
        .await
        .unwrap();
}
