//! Leader election on a Lease: exactly one of several candidates leads, another takes
//! over when it stops (at once: the lease is released) or is killed (once the lease
//! expires), and a leader that cannot renew stops its work and says it lost. On the
//! in-memory server with a paused clock for the timings, and on a real apiserver.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::leaderelection::{LeaderElectionConfig, LeaderElectionError, LeaderElector};
use crdgen_runtime::testing::{ApiServer, cluster};
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
    let config = LeaderElectionConfig::new("default", lease, &format!("candidate-{number}"))
        .timings(LEASE, RENEW, RETRY);
    let elector = LeaderElector::new(client.clone(), config);
    let shutdown = CancellationToken::new();
    let (stop, leaders) = (shutdown.clone(), leaders.clone());
    let task = tokio::spawn(async move {
        elector
            .run(&stop, |leading| async move {
                let now = leaders.now.fetch_add(1, Ordering::SeqCst) + 1;
                leaders.most.fetch_max(now, Ordering::SeqCst);
                leaders.who.store(number + 1, Ordering::SeqCst);
                leading.cancelled().await;
                leaders.who.store(0, Ordering::SeqCst);
                leaders.now.fetch_sub(1, Ordering::SeqCst);
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
    leaders.who.store(0, Ordering::SeqCst);
    leaders.now.fetch_sub(1, Ordering::SeqCst);
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
    server.register::<Lease>(false);
    let (graceful, killed) = two_candidates(server.client(), "paused").await;
    assert!(graceful <= RETRY.mul_f64(2.2), "{graceful:?}");
    assert!(killed <= LEASE + RETRY.mul_f64(2.2) * 2, "{killed:?}");
}

/// A leader whose lease is taken from it cannot renew: its work is cancelled and it
/// answers `Lost` once the renew deadline passes.
#[tokio::test(start_paused = true)]
async fn a_leader_that_cannot_renew_stops_and_says_it_lost() {
    let server = ApiServer::new();
    server.register::<Lease>(false);
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
        matches!(&outcome, Err(LeaderElectionError::Lost { identity, .. }) if identity == "candidate-0"),
        "{outcome:?}"
    );
    assert_eq!(
        leaders.now.load(Ordering::SeqCst),
        0,
        "its work was stopped"
    );
    assert!(
        lost_after > RENEW - RETRY && lost_after <= RENEW + RETRY,
        "lost once the renew deadline of the first failed renewal passed: {lost_after:?}"
    );
    let lease = leases.get("stolen").await.unwrap();
    assert_eq!(
        lease.spec.unwrap().holder_identity.as_deref(),
        Some("usurper"),
        "a loser does not write the lease back"
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
