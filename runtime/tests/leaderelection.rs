//! Leader election on a Lease: exactly one of several candidates leads, another takes
//! over when it stops (at once: the lease is released) or is killed (once the lease
//! expires); a leader that cannot renew (its link cut, refused or slow) stops its work
//! at the renew deadline after its last renewal, one that finds another holder at
//! once; a shutdown keeps the lease until the work drained and releases it within a
//! bound. On the in-memory server (with a faulty link where needed) and a paused clock
//! for the timings, and on a real apiserver.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
use crdgen_runtime::leaderelection::{
    LeaderElectionConfig, LeaderElectionError, LeaderElector, LossReason,
};
use crdgen_runtime::testing::{ApiServer, Link, LinkState, cluster, eventually, link};
use crdgen_runtime::workqueue::WorkQueue;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use kube::api::PostParams;
use tokio::task::JoinHandle;
use tokio::time::Instant;

const LEASE: Duration = Duration::from_secs(3);
const RENEW: Duration = Duration::from_secs(2);
const RETRY: Duration = Duration::from_millis(500);

/// Who leads now, and the most that ever led at once.
#[derive(Default)]
struct Leaders {
    now: AtomicUsize,
    most: AtomicUsize,
    /// Which candidate leads (its number + 1), 0 for none.
    who: AtomicUsize,
}

/// A candidate's work, counted out of the leaders when it ends.
struct Leading(Arc<Leaders>);

impl Drop for Leading {
    fn drop(&mut self) {
        self.0.who.store(0, Ordering::SeqCst);
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

struct Candidate {
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), LeaderElectionError>>,
}

fn candidate(
    client: &kube::Client,
    lease: &str,
    number: usize,
    leaders: &Arc<Leaders>,
) -> Candidate {
    let mut config = LeaderElectionConfig::new("default", lease, &format!("candidate-{number}"))
        .timings(LEASE, RENEW, RETRY);
    // A shard ring finds its members' Leases by label: the Lease is created with them.
    config.labels = [("crdgen.dev/test".to_owned(), "leader-election".to_owned())].into();
    let elector = LeaderElector::new(client.clone(), config);
    let shutdown = CancellationToken::new();
    let (stop, leaders) = (shutdown.clone(), leaders.clone());
    let task = tokio::spawn(async move {
        elector
            .run(&stop, |term| async move {
                let now = leaders.now.fetch_add(1, Ordering::SeqCst) + 1;
                leaders.most.fetch_max(now, Ordering::SeqCst);
                leaders.who.store(number + 1, Ordering::SeqCst);
                // Counted out however the work ends: returning, or dropped.
                let _leading = Leading(leaders);
                term.stopping().cancelled().await;
            })
            .await
    });
    Candidate { shutdown, task }
}

/// Waits until a candidate leads, and says which and how long it took.
async fn leader(leaders: &Leaders, limit: Duration) -> Option<(usize, Duration)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        let who = leaders.who.load(Ordering::SeqCst);
        if who > 0 {
            return Some((who - 1, start.elapsed()));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    None
}

/// Two candidates, one leader; graceful stop hands over at once, a kill once the lease
/// expires. Returns the two failover times.
async fn two_candidates(client: kube::Client, lease: &str) -> (Duration, Duration) {
    let leaders = Arc::new(Leaders::default());
    let mut candidates: Vec<Option<Candidate>> = (0..2)
        .map(|n| Some(candidate(&client, lease, n, &leaders)))
        .collect();
    let (first, _) = leader(&leaders, LEASE * 2).await.expect("a leader");
    let created = Api::<Lease>::namespaced(client.clone(), "default")
        .get(lease)
        .await
        .unwrap();
    assert_eq!(
        created.metadata.labels.unwrap_or_default()["crdgen.dev/test"],
        "leader-election"
    );
    // Several renewals later, still exactly one.
    tokio::time::sleep(RETRY * 8).await;
    assert_eq!(
        leaders.who.load(Ordering::SeqCst),
        first + 1,
        "the leader keeps the lease"
    );
    assert_eq!(leaders.most.load(Ordering::SeqCst), 1, "never two leaders");

    // A graceful stop releases the lease: the other takes it at its next try.
    let stopped = candidates[first].take().unwrap();
    stopped.shutdown.cancel();
    stopped.task.await.unwrap().expect("a stop is not a loss");
    let (second, graceful) = leader(&leaders, LEASE * 2).await.expect("a new leader");
    assert_ne!(second, first);
    assert!(
        graceful < LEASE,
        "released: no need to wait out the lease ({graceful:?})"
    );

    // A third candidate, then the leader is killed: no release, the lease expires.
    candidates.push(Some(candidate(&client, lease, 2, &leaders)));
    tokio::time::sleep(RETRY * 4).await;
    assert_eq!(leaders.who.load(Ordering::SeqCst), second + 1);
    let killed = candidates[second].take().unwrap();
    killed.task.abort();
    let _ = killed.task.await;
    let (third, killed_after) = leader(&leaders, LEASE * 3)
        .await
        .expect("a leader after the kill");
    assert_eq!(third, 2);
    assert!(
        killed_after >= LEASE - RETRY * 3,
        "the lease is respected until it expires ({killed_after:?})"
    );
    assert!(
        killed_after <= LEASE + RETRY * 5,
        "taken over once the lease expired ({killed_after:?})"
    );
    assert_eq!(leaders.most.load(Ordering::SeqCst), 1, "never two leaders");
    for candidate in candidates.into_iter().flatten() {
        candidate.shutdown.cancel();
        candidate.task.await.unwrap().unwrap();
    }
    (graceful, killed_after)
}

#[tokio::test(start_paused = true)]
async fn one_leader_and_failover_on_a_paused_clock() {
    let server = ApiServer::new();
    server.register::<Lease>();
    let (graceful, killed) = two_candidates(server.client(), "paused").await;
    assert!(graceful <= RETRY.mul_f64(2.2), "{graceful:?}");
    assert!(killed <= LEASE + RETRY.mul_f64(2.2) * 2, "{killed:?}");
}

/// A leader whose renewal finds another holder stops at once (issue 31, 7: after a
/// SIGSTOP, say), not at the renew deadline: its work is cancelled, it answers `Lost`
/// naming the holder, and it does not write the lease back.
#[tokio::test(start_paused = true)]
async fn a_leader_that_finds_another_holder_stops_at_its_next_renewal() {
    let server = ApiServer::new();
    server.register::<Lease>();
    let client = server.client();
    let leaders = Arc::new(Leaders::default());
    let Candidate { task, .. } = candidate(&client, "stolen", 0, &leaders);
    leader(&leaders, LEASE).await.expect("leading");
    let leases: Api<Lease> = Api::namespaced(client, "default");
    let mut lease = leases.get("stolen").await.unwrap();
    let spec = lease.spec.as_mut().unwrap();
    spec.holder_identity = Some("usurper".into());
    spec.lease_duration_seconds = Some(3600);
    leases
        .replace("stolen", &PostParams::default(), &lease)
        .await
        .unwrap();
    let stolen = Instant::now();

    let outcome = task.await.unwrap();
    let lost_after = stolen.elapsed();
    assert!(
        matches!(&outcome, Err(LeaderElectionError::Lost { identity, reason: LossReason::TakenBy(holder), .. })
            if identity == "candidate-0" && holder == "usurper"),
        "{outcome:?}"
    );
    assert_eq!(
        leaders.now.load(Ordering::SeqCst),
        0,
        "its work was stopped"
    );
    assert!(
        lost_after <= RETRY,
        "lost at the next renewal, within a retry period: {lost_after:?}"
    );
    let lease = leases.get("stolen").await.unwrap();
    assert_eq!(
        lease.spec.unwrap().holder_identity.as_deref(),
        Some("usurper"),
        "a loser does not write the lease back"
    );
}

/// Timings that cannot keep one leader are refused before any try, as client-go does.
#[tokio::test]
async fn timings_that_cannot_keep_one_leader_are_refused() {
    let server = ApiServer::new();
    server.register::<Lease>();
    for (lease, renew, retry) in [
        (RENEW, RENEW, RETRY),
        (LEASE, RETRY, RETRY),
        (LEASE, RENEW, Duration::ZERO),
    ] {
        let config = LeaderElectionConfig::new("default", "bad", "c").timings(lease, renew, retry);
        let outcome = LeaderElector::new(server.client(), config)
            .run(&CancellationToken::new(), |_| async {})
            .await;
        assert!(
            matches!(outcome, Err(LeaderElectionError::InvalidTimings(_))),
            "{lease:?} {renew:?} {retry:?}: {outcome:?}"
        );
    }
}

/// A sync that logs when it starts, then takes `takes`.
struct Logged {
    starts: Arc<Mutex<Vec<Instant>>>,
    takes: Duration,
}

impl SyncHandler for Logged {
    async fn sync(&self, _key: ObjectKey<'_>) -> Result<Action, SyncError> {
        self.starts.lock().unwrap().push(Instant::now());
        tokio::time::sleep(self.takes).await;
        Ok(Action::Done)
    }
}

/// A replica of an operator: a candidate that runs a controller while it leads, with
/// the start of every sync logged.
struct Replica {
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), LeaderElectionError>>,
    queue: WorkQueue<String>,
    starts: Arc<Mutex<Vec<Instant>>>,
}

impl Replica {
    fn new(client: &kube::Client, lease: &str, identity: &str, takes: Duration) -> Self {
        let config =
            LeaderElectionConfig::new("default", lease, identity).timings(LEASE, RENEW, RETRY);
        let elector = LeaderElector::new(client.clone(), config);
        let starts = Arc::default();
        let sync = Logged {
            starts: Arc::clone(&starts),
            takes,
        };
        let controller = QueueController::new(identity, sync);
        let queue = controller.queue().clone();
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            elector
                .run(&stop, |term| async move {
                    controller.run_leading(2, &term).await
                })
                .await
        });
        Replica {
            shutdown,
            task,
            queue,
            starts,
        }
    }

    fn starts(&self) -> Vec<Instant> {
        self.starts.lock().unwrap().clone()
    }
}

/// Informer events on every replica: a new key for each queue every 20 ms.
fn produce(queues: Vec<WorkQueue<String>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        for n in 0.. {
            for queue in &queues {
                queue.add(format!("key-{n}"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

/// When the last successful renewal of `lease` through `link` started, at the latest:
/// the read before its write.
fn last_renewal(link: &Link, lease: &str) -> Instant {
    let requests = link.requests();
    let path = format!("/leases/{lease}");
    let lease = |r: &&link::Request| r.uri.contains(&path);
    let written = requests
        .iter()
        .rposition(|r| r.method == "PUT" && lease(&r) && r.status == Some(200))
        .expect("a renewal went through");
    requests[..written]
        .iter()
        .rfind(|r| r.method == "GET" && lease(r))
        .expect("a read before the write")
        .at
}

/// Issue 31, 2: with the leader's link to the apiserver faulty (`fault`), its term
/// ends at the renew deadline after the start of its last successful renewal, measured
/// on its own clock: no sync starts later, `run` answers `Lost` then (not after a
/// drain), and the other replica leads only after the old one stopped. `link` leads to
/// the apiserver `client` talks to; `slack` is how late a real clock may wake `run`.
async fn a_faulty_link_ends_the_term_at_the_renew_deadline(
    client: kube::Client,
    link: Link,
    lease: &str,
    fault: LinkState,
    slack: Duration,
) {
    let old = Replica::new(&link.client(), lease, "old", Duration::from_millis(50));
    leader_of(&old, LEASE).await;
    let new = Replica::new(&client, lease, "new", Duration::from_millis(50));
    let producer = produce(vec![old.queue.clone(), new.queue.clone()]);
    tokio::time::sleep(LEASE * 2).await;
    assert!(new.starts().is_empty(), "one leader");

    link.set(fault);
    let Replica { task, starts, .. } = old;
    let old_starts = || starts.lock().unwrap().clone();
    let outcome = task.await.unwrap();
    let lost = Instant::now();
    let deadline = last_renewal(&link, lease) + RENEW;
    assert!(
        matches!(
            &outcome,
            Err(LeaderElectionError::Lost {
                reason: LossReason::RenewDeadlinePassed,
                ..
            })
        ),
        "{outcome:?}"
    );
    assert!(
        lost <= deadline + slack,
        "lost {:?} after the deadline",
        lost - deadline
    );
    let last_sync = *old_starts().last().expect("the old leader synced");
    assert!(
        last_sync < deadline,
        "a sync started {:?} after the renew deadline",
        last_sync - deadline
    );
    eprintln!(
        "{fault:?}: lost {:?} after the last renewal, its last sync started {:?} before the deadline",
        lost - (deadline - RENEW),
        deadline - last_sync
    );
    let handed_out = old_starts().len();
    tokio::time::sleep(LEASE * 2).await;
    assert_eq!(
        old_starts().len(),
        handed_out,
        "no key handed out after the loss"
    );
    let first_new = *new.starts().first().expect("the other replica took over");
    assert!(first_new > lost, "never two leaders");
    producer.abort();
    new.shutdown.cancel();
    new.task.await.unwrap().unwrap();
}

/// The in-memory apiserver behind a link, on a paused clock: the term ends exactly at
/// the deadline.
async fn in_memory_with_a_faulty_link(fault: LinkState) {
    let server = ApiServer::new();
    server.register::<Lease>();
    let link = Link::new(&server);
    a_faulty_link_ends_the_term_at_the_renew_deadline(
        server.client(),
        link,
        "faulty",
        fault,
        Duration::ZERO,
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_cut_link_ends_the_term_at_the_renew_deadline() {
    in_memory_with_a_faulty_link(LinkState::Cut).await;
}

#[tokio::test(start_paused = true)]
async fn a_stopped_apiserver_ends_the_term_at_the_renew_deadline() {
    in_memory_with_a_faulty_link(LinkState::Refusing).await;
}

#[tokio::test(start_paused = true)]
async fn a_link_slower_than_the_renew_deadline_ends_the_term_at_it() {
    in_memory_with_a_faulty_link(LinkState::Slow(RENEW * 2)).await;
}

/// The same on a real apiserver, its leader's link cut: the apiserver decides who
/// holds the lease and when the new leader's write lands.
#[tokio::test]
async fn on_a_real_apiserver_a_cut_link_ends_the_term_at_the_renew_deadline() {
    let Some(cluster) = cluster::connect("leader election under a cut link").await else {
        return;
    };
    let lease = format!("crdgen-cut-{}", std::process::id());
    let link = Link::through(&cluster.client);
    // A real clock wakes `run` a little after the deadline it set.
    let slack = Duration::from_millis(200);
    a_faulty_link_ends_the_term_at_the_renew_deadline(
        cluster.client.clone(),
        link,
        &lease,
        LinkState::Cut,
        slack,
    )
    .await;
}

/// Waits until `replica` has synced a key: it leads.
async fn leader_of(replica: &Replica, limit: Duration) {
    replica.queue.add("first".to_owned());
    let leads = || !replica.starts().is_empty();
    assert!(eventually(limit, leads).await, "the replica leads");
}

/// Issue 31, 3: on shutdown the leader keeps renewing while its controllers drain
/// (here a sync longer than the lease duration), so no other replica leads before it
/// has stopped; then it releases the lease, and the other takes over at once.
#[tokio::test(start_paused = true)]
async fn shutdown_keeps_the_lease_until_the_drain_ends_then_releases() {
    let server = ApiServer::new();
    server.register::<Lease>();
    let takes = LEASE + RENEW;
    let old = Replica::new(&server.client(), "draining", "old", takes);
    leader_of(&old, LEASE).await;
    let synced = old.starts()[0];
    let new = Replica::new(&server.client(), "draining", "new", takes);
    new.queue.add("first".to_owned());
    old.shutdown.cancel();
    old.task.await.unwrap().expect("a shutdown is not a loss");
    let stopped = Instant::now();
    assert!(stopped >= synced + takes, "the in-flight sync finished");
    assert!(new.starts().is_empty(), "nobody else led during the drain");
    let leads = || !new.starts().is_empty();
    assert!(eventually(LEASE, leads).await);
    let took_over = new.starts()[0] - stopped;
    assert!(
        took_over <= RETRY.mul_f64(2.2),
        "released: taken over at the next try ({took_over:?})"
    );
    new.shutdown.cancel();
    new.task.await.unwrap().unwrap();
}

/// Issue 31, 4: releasing the lease is bounded by the renew deadline, so a stopped or
/// unreachable apiserver cannot hold up a shutdown (the lease then simply expires).
#[tokio::test(start_paused = true)]
async fn release_is_bounded_when_the_apiserver_is_unreachable() {
    let server = ApiServer::new();
    server.register::<Lease>();
    let link = Link::new(&server);
    let old = Replica::new(&link.client(), "unreachable", "old", Duration::ZERO);
    leader_of(&old, LEASE).await;
    link.set(LinkState::Cut);
    let stopping = Instant::now();
    old.shutdown.cancel();
    old.task.await.unwrap().expect("a shutdown is not a loss");
    let took = stopping.elapsed();
    assert!(
        took <= RENEW,
        "the release gave up at the renew deadline: {took:?}"
    );
    let leases: Api<Lease> = Api::namespaced(server.client(), "default");
    let lease = leases.get("unreachable").await.unwrap();
    assert_eq!(
        lease.spec.unwrap().holder_identity.as_deref(),
        Some("old"),
        "nothing was released: the lease expires instead"
    );
}

/// The real apiserver decides the races (409 on a stale resourceVersion): two
/// candidates, one leader, failover on stop and on kill.
#[tokio::test]
async fn on_a_real_apiserver_exactly_one_leads_and_another_takes_over() {
    let Some(cluster) = cluster::connect("leader election").await else {
        return;
    };
    let lease = format!("crdgen-test-{}", std::process::id());
    let (graceful, killed) = two_candidates(cluster.client.clone(), &lease).await;
    // The figures the closing note quotes.
    eprintln!(
        "leader election failover (lease {LEASE:?}, renew {RENEW:?}, retry {RETRY:?}): after a stop {graceful:?}, after a kill {killed:?}"
    );
}
