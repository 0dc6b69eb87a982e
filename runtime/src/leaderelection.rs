//! Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics, so
//! that of several replicas of an operator exactly one runs its controllers.
//!
//! - A candidate tries to acquire the lease every `retry_period`; it may take it when
//!   it is free (no holder) or when its holder has not renewed it for `lease_duration`,
//!   measured on the candidate's own clock from when it last saw the record change (so
//!   clock skew between nodes does not matter).
//! - The leader renews every `retry_period`; when no renewal succeeds within
//!   `renew_deadline`, it has lost the lease: its work is cancelled and
//!   [`LeaderElector::run`] answers [`LeaderElectionError::Lost`], on which an operator
//!   exits, as client-go's `OnStoppedLeading` and controller-runtime do.
//! - On shutdown the leader releases the lease (no holder, a one-second duration), so
//!   that another replica takes over at its next try instead of a lease duration later.
//!
//! Writes carry the resourceVersion read, so two candidates never both take the lease:
//! the apiserver answers the second 409.
//!
//! Written on kube's `Api<Lease>` rather than a crate: kube-lease-manager (the one
//! maintained crate on kube 5) has a different model (a duration and a grace period,
//! server-side apply with force), without client-go's renew deadline and retry period.

use std::fmt;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// Where the lease lives, who competes for it, and client-go's three timings.
#[derive(Clone, Debug)]
pub struct LeaderElectionConfig {
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
        }
    }

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
    /// The lease was not renewed within the renew deadline: another replica may lead.
    Lost { identity: String, lease: String },
}

impl fmt::Display for LeaderElectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaderElectionError::Lost { identity, lease } => write!(
                f,
                "leader election lost: {identity} could not renew lease {lease} within the renew deadline"
            ),
        }
    }
}

impl std::error::Error for LeaderElectionError {}

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

/// How a leading term ended.
enum Term {
    /// Shutdown: the work was stopped; the lease is released.
    Shutdown,
    Lost,
}

impl LeaderElector {
    pub fn new(client: Client, config: LeaderElectionConfig) -> Self {
        LeaderElector {
            api: Api::namespaced(client, &config.namespace),
            config,
            observed: Mutex::new(None),
        }
    }

    pub fn identity(&self) -> &str {
        &self.config.identity
    }

    /// Waits to acquire the lease (or `shutdown`), then runs `lead` while leading. `lead`
    /// gets a token cancelled on shutdown and when the lease is lost, and should return
    /// soon after; then the lease is released (on shutdown) or
    /// [`LeaderElectionError::Lost`] is answered. Returns `Ok` at once when `shutdown`
    /// comes before the lease.
    pub async fn run<F, Fut>(
        &self,
        shutdown: &CancellationToken,
        lead: F,
    ) -> Result<(), LeaderElectionError>
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future<Output = ()>,
    {
        if !self.acquire(shutdown).await {
            return Ok(());
        }
        tracing::info!(lease = %self.lease(), identity = %self.config.identity, "acquired the lease: leading");
        let leading_status =
            metrics::gauge!("leader_election_master_status", "name" => self.config.name.clone());
        leading_status.set(1.0);
        let leading = shutdown.child_token();
        let renewing = async {
            let term = self.renew(&leading).await;
            leading.cancel();
            term
        };
        let ((), term) = tokio::join!(lead(leading.clone()), renewing);
        leading_status.set(0.0);
        match term {
            Term::Shutdown => {
                self.release().await;
                Ok(())
            }
            Term::Lost => {
                tracing::error!(lease = %self.lease(), identity = %self.config.identity, "lost the lease");
                Err(LeaderElectionError::Lost {
                    identity: self.config.identity.clone(),
                    lease: self.lease(),
                })
            }
        }
    }

    fn lease(&self) -> String {
        format!("{}/{}", self.config.namespace, self.config.name)
    }

    /// Tries every retry period until the lease is ours (`true`) or `shutdown` (`false`).
    async fn acquire(&self, shutdown: &CancellationToken) -> bool {
        loop {
            if shutdown.is_cancelled() {
                return false;
            }
            if self.try_acquire_or_renew().await {
                return true;
            }
            tokio::select! {
                _ = shutdown.cancelled() => return false,
                _ = tokio::time::sleep(jittered(self.config.retry_period)) => {}
            }
        }
    }

    /// Renews every retry period while `leading` is not cancelled; a renewal that does
    /// not succeed within the renew deadline (retried every retry period) loses it.
    async fn renew(&self, leading: &CancellationToken) -> Term {
        loop {
            tokio::select! {
                _ = leading.cancelled() => return Term::Shutdown,
                _ = tokio::time::sleep(self.config.retry_period) => {}
            }
            let deadline = Instant::now() + self.config.renew_deadline;
            loop {
                let renewed = tokio::select! {
                    _ = leading.cancelled() => return Term::Shutdown,
                    renewed = tokio::time::timeout_at(deadline, self.try_acquire_or_renew()) => renewed,
                };
                match renewed {
                    Ok(true) => break,
                    Ok(false) if Instant::now() + self.config.retry_period < deadline => {
                        tokio::time::sleep(self.config.retry_period).await;
                    }
                    _ => return Term::Lost,
                }
            }
        }
    }

    /// client-go's `tryAcquireOrRenew`: one read and one conditional write.
    async fn try_acquire_or_renew(&self) -> bool {
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
                return false;
            }
        };
        let Some(mut lease) = existing else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.config.name.clone()),
                    namespace: Some(self.config.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(ours.clone()),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(_) => self.observe(ours, now),
                Err(error) => {
                    tracing::debug!(lease = %self.lease(), %error, "cannot create the lease");
                    false
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
            return false;
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
                false
            }
        }
    }

    fn observe(&self, spec: LeaseSpec, at: Instant) -> bool {
        *lock(&self.observed) = Some(Observed { spec, at });
        true
    }

    /// Gives the lease up: no holder and a one-second duration, as client-go's
    /// `ReleaseOnCancel`, so the next candidate need not wait out the lease.
    async fn release(&self) {
        let Ok(Some(mut lease)) = self.api.get_opt(&self.config.name).await else {
            return;
        };
        let mut spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.config.identity.as_str()) {
            return;
        }
        let stamp = MicroTime(k8s_openapi::jiff::Timestamp::now());
        spec.holder_identity = None;
        spec.lease_duration_seconds = Some(1);
        spec.acquire_time = Some(stamp.clone());
        spec.renew_time = Some(stamp);
        lease.spec = Some(spec);
        match self
            .api
            .replace(&self.config.name, &PostParams::default(), &lease)
            .await
        {
            Ok(_) => tracing::info!(lease = %self.lease(), "released the lease"),
            Err(error) => tracing::warn!(lease = %self.lease(), %error, "cannot release the lease"),
        }
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

/// client-go's `wait.Jitter(retryPeriod, 1.2)`: the period plus up to 1.2 times it, so
/// that candidates started together do not try in lockstep.
fn jittered(period: Duration) -> Duration {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let fraction = (random % 1000) as f64 / 1000.0;
    period.mul_f64(1.0 + 1.2 * fraction)
}
