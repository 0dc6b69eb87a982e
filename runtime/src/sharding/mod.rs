//! Sharding: one controller's objects spread over every replica, so that an operator
//! scales out, not only up, with Kubernetes itself as the distributed engine (Leases,
//! labels, watches), as kubernetes-controller-sharding does it:
//!
//! - **Membership**: each replica holds a Lease of its own (`<ring>-member-<identity>`, labelled
//!   [`RING_LABEL`]`=<ring>`), renewed as the leader Lease is ([`Ring::member_lease`],
//!   run with a [`LeaderElector`]): its term is
//!   its membership, and losing it stops its work at once.
//! - **Assignment**: the ring's leader runs the [`Assigner`]: every object of the ring's
//!   kind goes to a live member by rendezvous hashing of its key ([`ring::assign`]),
//!   written as the label [`Ring::shard_label`]`=<member>`.
//! - **Shard-local caches**: each member's informers watch only its label (a factory
//!   with [`FactoryOptions::shard`](crate::informer::FactoryOptions::shard)), so a
//!   member caches its share, and a controller built `for_kind` on such an informer
//!   syncs only the objects in that cache.
//! - **Handover without overlap**: before an object moves from a live member, the
//!   assigner labels it [`Ring::drain_label`]; the member, between two syncs of that key
//!   (its work queue never runs one key twice at once), takes both labels off; only then does the assigner give it to its new member. A member that
//!   dies mid-handover loses its objects when its Lease expires, and, having lost its
//!   Lease, has stopped.

mod assigner;
pub mod ring;

pub use assigner::Assigner;

use std::collections::BTreeMap;
use std::time::Duration;

use std::future::Future;

use tokio_util::sync::CancellationToken;

use crate::informer::{Informed, ScopedApi, Shard};
use crate::leaderelection::{LeaderElectionConfig, LeaderElectionError, LeaderElector, Term};

/// The label every member Lease of a ring carries: `sharding.crdgen.dev/ring=<ring>`.
pub const RING_LABEL: &str = "sharding.crdgen.dev/ring";

/// A controller ring: the replicas that share one controller's objects.
#[derive(Clone, Debug)]
pub struct Ring {
    name: String,
    namespace: String,
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
}

impl Ring {
    /// The ring `name` (a DNS label: it names labels and Leases), with its member Leases
    /// in `namespace` and leader election's default timings.
    pub fn new(name: &str, namespace: &str) -> Self {
        Ring {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }

    /// The member Leases' timings (see [`LeaderElectionConfig`]).
    #[must_use]
    pub fn timings(
        mut self,
        lease_duration: Duration,
        renew_deadline: Duration,
        retry_period: Duration,
    ) -> Self {
        (self.lease_duration, self.renew_deadline, self.retry_period) =
            (lease_duration, renew_deadline, retry_period);
        self
    }

    /// The ring's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The namespace of the member Leases.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The label naming an object's member: `shard.crdgen.dev/<ring>`.
    pub fn shard_label(&self) -> String {
        format!("shard.crdgen.dev/{}", self.name)
    }

    /// The label asking an object's member to let it go: `drain.shard.crdgen.dev/<ring>`.
    pub fn drain_label(&self) -> String {
        format!("drain.shard.crdgen.dev/{}", self.name)
    }

    /// The label selector of `member`'s objects, which
    /// [`FactoryOptions::shard`](crate::informer::FactoryOptions::shard) gives its
    /// informers.
    pub fn selector(&self, member: &str) -> String {
        format!("{}={member}", self.shard_label())
    }

    /// `member`'s shard of the ring, for its informers
    /// ([`FactoryOptions::shard`](crate::informer::FactoryOptions::shard)): its label
    /// selected, and an object drained let go by taking both labels off.
    pub fn shard(&self, member: &str) -> Shard {
        Shard {
            selector: self.selector(member),
            drain_label: self.drain_label(),
            release: vec![self.shard_label(), self.drain_label()],
        }
    }

    /// The Lease that makes `identity` a member while it holds it. The identity names
    /// the member in object labels: at most 63 letters, digits, `-`, `_` or `.`.
    pub fn member_lease(&self, identity: &str) -> LeaderElectionConfig {
        let mut config = LeaderElectionConfig::new(
            &self.namespace,
            &format!("{}-member-{identity}", self.name),
            identity,
        )
        .timings(self.lease_duration, self.renew_deadline, self.retry_period);
        config.labels = BTreeMap::from([(RING_LABEL.to_owned(), self.name.clone())]);
        config
    }

    /// The Lease whose holder, `identity` when it wins it, runs the ring's [`Assigner`]:
    /// `<ring>-leader`, not labelled as a member's.
    pub fn leader_lease(&self, identity: &str) -> LeaderElectionConfig {
        LeaderElectionConfig::new(&self.namespace, &format!("{}-leader", self.name), identity)
            .timings(self.lease_duration, self.renew_deadline, self.retry_period)
    }

    /// Runs this replica's part in the ring until `shutdown`: a member while it holds its
    /// member Lease, running `work` (its sharded controllers) for that term, and a
    /// candidate for the leader Lease, running `assigner` while it leads (competing
    /// again after a lost term: the assigner is stopped by then, and any leader's
    /// labelling is the same).
    ///
    /// # Errors
    /// When the member Lease is lost (`work` was stopped at once, as with leader
    /// election: exit, and let the pod restart and rejoin), or the timings are invalid.
    pub async fn run<K, F, Fut>(
        &self,
        client: &kube::Client,
        identity: &str,
        assigner: &Assigner<K>,
        shutdown: &CancellationToken,
        work: F,
    ) -> Result<(), LeaderElectionError>
    where
        K: Informed,
        K::Scope: ScopedApi + Send + Sync,
        F: FnOnce(Term) -> Fut,
        Fut: Future<Output = ()>,
    {
        let member = LeaderElector::new(client.clone(), self.member_lease(identity));
        let candidate = LeaderElector::new(client.clone(), self.leader_lease(identity));
        // A replica that left the ring (shut down, or lost its member Lease) is no
        // candidate either.
        let candidacy = shutdown.child_token();
        let lead = async {
            loop {
                match candidate
                    .run(&candidacy, |term| async move { assigner.run(&term).await })
                    .await
                {
                    Err(LeaderElectionError::Lost { .. }) if !candidacy.is_cancelled() => {}
                    ended => return ended,
                }
            }
        };
        let membership = async {
            let ended = member.run(shutdown, work).await;
            candidacy.cancel();
            ended
        };
        let (membership, lead) = tokio::join!(membership, lead);
        membership.and(lead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_names_its_labels_selector_and_member_leases() {
        let ring = Ring::new("cronjobs", "ops");
        assert_eq!(ring.shard_label(), "shard.crdgen.dev/cronjobs");
        assert_eq!(ring.drain_label(), "drain.shard.crdgen.dev/cronjobs");
        assert_eq!(ring.selector("pod-7"), "shard.crdgen.dev/cronjobs=pod-7");
        let lease = ring.member_lease("pod-7");
        assert_eq!(
            (lease.namespace.as_str(), lease.name.as_str()),
            ("ops", "cronjobs-member-pod-7")
        );
        assert_eq!(lease.identity, "pod-7");
        assert_eq!(lease.labels[RING_LABEL], "cronjobs");
    }
}
