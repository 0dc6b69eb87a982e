//! Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics, so
//! that of several replicas of an operator exactly one runs its controllers.
//!
//! - A candidate tries to acquire the lease every `retry_period`; it may take it when
//!   it is free (no holder) or when its holder has not renewed it for `lease_duration`,
//!   measured on the candidate's own clock from when it last saw the record change (so
//!   clock skew between nodes does not matter).
//! - The leader renews every `retry_period`. Its term lasts until `renew_deadline` after
//!   the start of its last successful renewal, on its own monotonic clock, whatever
//!   the apiserver does: every attempt is cut off at that deadline (kube's client has
//!   no read timeout of its own), and a renewal that finds another holder ends it at
//!   once. Since the deadline is shorter than the lease duration, which the others
//!   measure from a later moment (when they see the renewal), the old leader has
//!   stopped before another may take over.
//! - The work gets the [`Term`]: on a lost lease it is told to stop at once
//!   ([`Term::lost`]), no sync may start past the deadline ([`Term::is_leading`]), and
//!   [`LeaderElector::run`] drops the work and answers [`LeaderElectionError::Lost`] at
//!   that moment, on which an operator exits, as controller-runtime's manager does.
//! - On shutdown the work is told to stop ([`Term::stopping`]) and the lease is still
//!   renewed while it drains; once it has returned, the lease is released (no holder,
//!   a one-second duration, within the renew deadline), so that another replica takes
//!   over at its next try instead of a lease duration later.
//!
//! Writes carry the resourceVersion read, so two candidates never both take the lease:
//! the apiserver answers the second 409.
//!
//! Written on kube's `Api<Lease>` rather than a crate: kube-lease-manager (the one
//! maintained crate on kube 5) has a different model (a duration and a grace period,
//! server-side apply with force), without client-go's renew deadline and retry period.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::panics::lock;

/// Where the lease lives, who competes for it, and client-go's three timings.
#[derive(Clone, Debug)]
pub struct LeaderElectionConfig {
    /// The Lease's namespace.
    pub namespace: String,
    /// The Lease's name: the same for every replica of one operator.
    pub name: String,
    /// This replica's name in the lease; unique per process.
    pub identity: String,
    /// How long a lease is valid after its last renewal, for the other candidates.
    pub lease_duration: Duration,
    /// How long the leader keeps retrying a failed renewal before it gives up.
    pub renew_deadline: Duration,
    /// How often candidates try to acquire, and the leader renews.
    pub retry_period: Duration,
    /// Labels the Lease is created with (a shard ring's members carry the ring's).
    pub labels: BTreeMap<String, String>,
}

impl LeaderElectionConfig {
    /// controller-runtime's defaults: 15 s lease, 10 s renew deadline, 2 s retry.
    pub fn new(namespace: &str, name: &str, identity: &str) -> Self {
        LeaderElectionConfig {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            identity: identity.to_owned(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            labels: BTreeMap::new(),
        }
    }

    /// client-go's checks: a lease longer than the renew deadline (or the old leader
    /// could still work when another takes over), a renew deadline longer than the
    /// jittered retry period (or no retry fits in it), none of them zero.
    fn check(&self) -> Result<(), String> {
        let (lease, renew, retry) = (self.lease_duration, self.renew_deadline, self.retry_period);
        if retry.is_zero() {
            return Err("the retry period must be above zero".to_owned());
        }
        if renew <= retry.mul_f64(JITTER) {
            return Err(format!(
                "the renew deadline ({renew:?}) must be longer than {JITTER} times the retry period ({retry:?})"
            ));
        }
        if lease <= renew {
            return Err(format!(
                "the lease duration ({lease:?}) must be longer than the renew deadline ({renew:?})"
            ));
        }
        Ok(())
    }

    /// Sets client-go's three timings: how long a lease lasts, how long the leader keeps
    /// trying to renew before it gives up, and how often candidates retry.
    pub fn timings(
        mut self,
        lease_duration: Duration,
        renew_deadline: Duration,
        retry_period: Duration,
    ) -> Self {
        self.lease_duration = lease_duration;
        self.renew_deadline = renew_deadline;
        self.retry_period = retry_period;
        self
    }
}

/// A unique identity for this process: the host name (a pod's name in a cluster) and
/// a random suffix, as client-go's `hostname_uuid`.
pub fn default_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    let mut random = std::collections::hash_map::RandomState::new().build_hasher();
    random.write_u32(std::process::id());
    format!("{host}_{:016x}", random.finish())
}

/// Why [`LeaderElector::run`] returned without its work completing normally.
#[derive(Debug)]
pub enum LeaderElectionError {
    /// The term ended without a shutdown: another replica may lead now.
    Lost {
        /// This replica's identity.
        identity: String,
        /// The Lease, `namespace/name`.
        lease: String,
        /// Why the term ended.
        reason: LossReason,
    },
    /// The timings cannot keep one leader (client-go refuses them too).
    InvalidTimings(String),
}

/// Why a term ended before shutdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LossReason {
    /// No renewal succeeded within the renew deadline.
    RenewDeadlinePassed,
    /// A renewal found this other holder in the lease.
    TakenBy(String),
}

impl fmt::Display for LeaderElectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaderElectionError::Lost {
                identity,
                lease,
                reason: LossReason::RenewDeadlinePassed,
            } => write!(
                f,
                "leader election lost: {identity} could not renew lease {lease} within the renew deadline"
            ),
            LeaderElectionError::Lost {
                identity,
                lease,
                reason: LossReason::TakenBy(holder),
            } => write!(
                f,
                "leader election lost: lease {lease} is held by {holder}, not {identity}"
            ),
            LeaderElectionError::InvalidTimings(why) => {
                write!(f, "leader election timings: {why}")
            }
        }
    }
}

impl std::error::Error for LeaderElectionError {}

/// One term of leadership, as the work run while leading sees it. Clones share it.
#[derive(Clone, Debug)]
pub struct Term {
    stopping: CancellationToken,
    lost: CancellationToken,
    /// Until when the lease is surely held: the start of the last successful renewal
    /// plus the renew deadline, on the monotonic clock.
    valid_until: Arc<Mutex<Instant>>,
}

impl Term {
    fn new(shutdown: &CancellationToken, valid_until: Instant) -> Self {
        Term {
            stopping: shutdown.child_token(),
            lost: CancellationToken::new(),
            valid_until: Arc::new(Mutex::new(valid_until)),
        }
    }

    /// A term that only `shutdown` ends: the work of a replica that runs without
    /// leader election (`--leader-elect=false`).
    pub fn unelected(shutdown: &CancellationToken) -> Self {
        // A century: a term no process outlives.
        Term::new(
            shutdown,
            Instant::now() + Duration::from_secs(100 * 365 * 86_400),
        )
    }

    /// Cancelled on shutdown and when the lease is lost: take no new work, let what
    /// runs finish (a controller drains its queue).
    pub fn stopping(&self) -> &CancellationToken {
        &self.stopping
    }

    /// Cancelled when the lease is lost: stop at once, another replica may lead.
    pub fn lost(&self) -> &CancellationToken {
        &self.lost
    }

    /// Whether the lease is still held, read on the monotonic clock: `false` from the
    /// renew deadline after the last successful renewal on, even before the renewal
    /// loop has noticed. Check it before each unit of work (a controller does, before
    /// each sync).
    pub fn is_leading(&self) -> bool {
        !self.lost.is_cancelled() && Instant::now() < self.valid_until()
    }

    fn valid_until(&self) -> Instant {
        *lock(&self.valid_until)
    }

    fn extend(&self, until: Instant) {
        *lock(&self.valid_until) = until;
    }

    fn lose(&self) {
        self.lost.cancel();
        self.stopping.cancel();
    }
}

/// What this candidate last saw in the lease, and when (on its own clock).
struct Observed {
    spec: LeaseSpec,
    at: Instant,
}

/// One candidate for one lease.
pub struct LeaderElector {
    api: Api<Lease>,
    config: LeaderElectionConfig,
    observed: Mutex<Option<Observed>>,
}

/// What one try to acquire or renew found.
enum Attempt {
    /// The lease is ours, written by this try.
    Held,
    /// Another holder's lease is still valid.
    HeldBy(String),
    /// The read or the write failed (or raced another's write: 409).
    Failed,
}

impl LeaderElector {
    /// An elector for `config`'s Lease, talking to the apiserver through `client`.
    pub fn new(client: Client, config: LeaderElectionConfig) -> Self {
        LeaderElector {
            api: Api::namespaced(client, &config.namespace),
            config,
            observed: Mutex::new(None),
        }
    }

    /// This replica's identity, as written in the Lease's `holderIdentity`.
    pub fn identity(&self) -> &str {
        &self.config.identity
    }

    /// Waits to acquire the lease (or `shutdown`), then runs `lead` while leading.
    ///
    /// On shutdown, `lead`'s [`Term::stopping`] is cancelled and the lease is renewed
    /// until `lead` returns; then it is released and `Ok` answered. When the lease is
    /// lost (the renew deadline passed, or another holder was found), the term's
    /// tokens are cancelled, `lead` is dropped where it stands (cancelled at its next
    /// await) and [`LeaderElectionError::Lost`] is answered at once. Returns `Ok` at
    /// once when `shutdown` comes before the lease.
    ///
    /// # Errors
    ///
    /// [`LeaderElectionError::Lost`] when the term ended without a shutdown, and
    /// [`LeaderElectionError`]'s other variants when the timings cannot keep one
    /// leader.
    pub async fn run<F, Fut>(
        &self,
        shutdown: &CancellationToken,
        lead: F,
    ) -> Result<(), LeaderElectionError>
    where
        F: FnOnce(Term) -> Fut,
        Fut: Future<Output = ()>,
    {
        self.config
            .check()
            .map_err(LeaderElectionError::InvalidTimings)?;
        let Some(acquired) = self.acquire(shutdown).await else {
            return Ok(());
        };
        tracing::info!(lease = %self.lease(), identity = %self.config.identity, "acquired the lease: leading");
        let leading_status =
            metrics::gauge!("leader_election_master_status", "name" => self.config.name.clone());
        leading_status.set(1.0);
        let term = Term::new(shutdown, acquired + self.config.renew_deadline);
        let work = lead(term.clone());
        // Renewing goes on while the work drains after shutdown; only a loss ends it.
        let lost = tokio::select! {
            () = work => None,
            reason = self.renew(&term) => Some(reason),
        };
        leading_status.set(0.0);
        match lost {
            None => {
                self.release().await;
                Ok(())
            }
            Some(reason) => {
                term.lose();
                let error = LeaderElectionError::Lost {
                    identity: self.config.identity.clone(),
                    lease: self.lease(),
                    reason,
                };
                tracing::error!(lease = %self.lease(), "{error}: stopped leading");
                Err(error)
            }
        }
    }

    fn lease(&self) -> String {
        format!("{}/{}", self.config.namespace, self.config.name)
    }

    /// Tries every retry period until the lease is ours (answering when the successful
    /// try started) or `shutdown` (`None`).
    async fn acquire(&self, shutdown: &CancellationToken) -> Option<Instant> {
        loop {
            if shutdown.is_cancelled() {
                return None;
            }
            let started = Instant::now();
            let deadline = started + self.config.renew_deadline;
            let attempt = tokio::select! {
                _ = shutdown.cancelled() => return None,
                attempt = tokio::time::timeout_at(deadline, self.try_acquire_or_renew()) => attempt,
            };
            if let Ok(Attempt::Held) = attempt {
                return Some(started);
            }
            tokio::select! {
                _ = shutdown.cancelled() => return None,
                _ = tokio::time::sleep(jittered(self.config.retry_period)) => {}
            }
        }
    }

    /// Renews every retry period, extending `term` after each success, until the term
    /// is lost: no renewal succeeded before its deadline (each try is cut off there),
    /// or a renewal found another holder.
    async fn renew(&self, term: &Term) -> LossReason {
        loop {
            let deadline = term.valid_until();
            tokio::select! {
                _ = tokio::time::sleep(self.config.retry_period) => {}
                _ = tokio::time::sleep_until(deadline) => return LossReason::RenewDeadlinePassed,
            }
            let started = Instant::now();
            match tokio::time::timeout_at(deadline, self.try_acquire_or_renew()).await {
                Ok(Attempt::Held) => term.extend(started + self.config.renew_deadline),
                Ok(Attempt::HeldBy(holder)) => return LossReason::TakenBy(holder),
                Ok(Attempt::Failed) => {}
                Err(_) => return LossReason::RenewDeadlinePassed,
            }
        }
    }

    /// client-go's `tryAcquireOrRenew`: one read and one conditional write.
    async fn try_acquire_or_renew(&self) -> Attempt {
        let now = Instant::now();
        let stamp = MicroTime(k8s_openapi::jiff::Timestamp::now());
        let mut ours = LeaseSpec {
            holder_identity: Some(self.config.identity.clone()),
            lease_duration_seconds: Some(seconds(self.config.lease_duration)),
            acquire_time: Some(stamp.clone()),
            renew_time: Some(stamp),
            lease_transitions: Some(0),
            ..LeaseSpec::default()
        };
        let existing = match self.api.get_opt(&self.config.name).await {
            Ok(existing) => existing,
            Err(error) => {
                tracing::debug!(lease = %self.lease(), %error, "cannot read the lease");
                return Attempt::Failed;
            }
        };
        let Some(mut lease) = existing else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.config.name.clone()),
                    namespace: Some(self.config.namespace.clone()),
                    labels: (!self.config.labels.is_empty()).then(|| self.config.labels.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(ours.clone()),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(_) => self.observe(ours, now),
                Err(error) => {
                    tracing::debug!(lease = %self.lease(), %error, "cannot create the lease");
                    Attempt::Failed
                }
            };
        };
        let theirs = lease.spec.clone().unwrap_or_default();
        let observed_at = {
            let mut observed = lock(&self.observed);
            match observed.as_ref() {
                Some(o) if o.spec == theirs => o.at,
                _ => {
                    *observed = Some(Observed {
                        spec: theirs.clone(),
                        at: now,
                    });
                    now
                }
            }
        };
        let holder = theirs.holder_identity.as_deref().unwrap_or_default();
        let theirs_valid = observed_at + lease_duration(&theirs) > now;
        if holder == self.config.identity {
            ours.acquire_time = theirs.acquire_time.clone();
            ours.lease_transitions = theirs.lease_transitions;
        } else if !holder.is_empty() && theirs_valid {
            return Attempt::HeldBy(holder.to_owned());
        } else {
            ours.lease_transitions = Some(theirs.lease_transitions.unwrap_or(0) + 1);
        }
        lease.spec = Some(ours.clone());
        // The resourceVersion read rides along: a write racing ours makes this a 409.
        match self
            .api
            .replace(&self.config.name, &PostParams::default(), &lease)
            .await
        {
            Ok(_) => self.observe(ours, now),
            Err(error) => {
                tracing::debug!(lease = %self.lease(), %error, "cannot update the lease");
                Attempt::Failed
            }
        }
    }

    fn observe(&self, spec: LeaseSpec, at: Instant) -> Attempt {
        *lock(&self.observed) = Some(Observed { spec, at });
        Attempt::Held
    }

    /// Gives the lease up: no holder and a one-second duration, as client-go's
    /// `ReleaseOnCancel`, so the next candidate need not wait out the lease. Bounded by
    /// the renew deadline, so that a stopped apiserver cannot hold up a shutdown (past
    /// it, the lease simply expires).
    async fn release(&self) {
        let released = tokio::time::timeout(self.config.renew_deadline, self.try_release());
        match released.await {
            Ok(Ok(true)) => tracing::info!(lease = %self.lease(), "released the lease"),
            Ok(Ok(false)) => {}
            Ok(Err(error)) => {
                tracing::warn!(lease = %self.lease(), %error, "cannot release the lease")
            }
            Err(_) => tracing::warn!(
                lease = %self.lease(),
                "cannot release the lease within the renew deadline: it will expire"
            ),
        }
    }

    /// Writes the released lease when it is still ours: whether it was.
    async fn try_release(&self) -> Result<bool, kube::Error> {
        let Some(mut lease) = self.api.get_opt(&self.config.name).await? else {
            return Ok(false);
        };
        let mut spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.config.identity.as_str()) {
            return Ok(false);
        }
        let stamp = MicroTime(k8s_openapi::jiff::Timestamp::now());
        spec.holder_identity = None;
        spec.lease_duration_seconds = Some(1);
        spec.acquire_time = Some(stamp.clone());
        spec.renew_time = Some(stamp);
        lease.spec = Some(spec);
        self.api
            .replace(&self.config.name, &PostParams::default(), &lease)
            .await?;
        Ok(true)
    }
}

fn seconds(duration: Duration) -> i32 {
    i32::try_from(duration.as_secs().max(1)).unwrap_or(i32::MAX)
}

fn lease_duration(spec: &LeaseSpec) -> Duration {
    Duration::from_secs(
        spec.lease_duration_seconds
            .unwrap_or(0)
            .max(0)
            .unsigned_abs()
            .into(),
    )
}

/// client-go's `JitterFactor`.
const JITTER: f64 = 1.2;

/// client-go's `wait.Jitter(retryPeriod, 1.2)`: the period plus up to 1.2 times it, so
/// that candidates started together do not try in lockstep.
fn jittered(period: Duration) -> Duration {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let fraction = (random % 1000) as f64 / 1000.0;
    period.mul_f64(1.0 + JITTER * fraction)
}
