//! The ring leader's side: every object of the ring's kind to a live member, moved only
//! through a drain when its member is alive, and the objects it controls after it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::{BoxFuture, join_all};
use k8s_openapi::api::coordination::v1::Lease;
use kube::core::PartialObjectMeta;
use kube::{Api, Resource, ResourceExt};
use serde_json::json;
use tokio::time::Instant;

use super::{RING_LABEL, Ring, ring};
use crate::cache::{Store, key_of};
use crate::controller::{
    Action, ObjectKey, QueueController, SyncError, SyncHandler, enqueue, enqueue_mapped,
    owner_index, owner_keys,
};
use crate::informer::{
    FactoryOptions, Informed, InformerFactory, ScopedApi, SharedInformer, patch_labels,
};
use crate::leaderelection::Term;
use crate::panics::lock;

/// Assigns the objects of `K` to the ring's members; run it on the ring's leader only
/// (under a [`LeaderElector`](crate::leaderelection::LeaderElector) of its own Lease),
/// for as long as its term lasts.
///
/// Objects created later are assigned as its watch sees them, not by a mutating webhook:
/// an object is only reconciled once a member has it, so a moment unassigned costs a
/// moment of latency, while a webhook would put the ring on every write's path and
/// make an unavailable webhook fail the users' creates.
///
/// Records `sharding_ring_members{ring}`, `sharding_assigned_objects{ring,member}` and
/// `sharding_handovers_total{ring}` (objects asked to move: drained from a live member,
/// or taken from a dead one).
pub struct Assigner<K> {
    client: kube::Client,
    ring: Ring,
    namespace: Option<String>,
    workers: usize,
    followers: Vec<Follower<K>>,
}

/// An owned kind's part in [`Assigner::run`]: given the objects' informer and factory,
/// registers its own informer and returns its run.
type Follower<K> = Box<
    dyn Fn(&InformerFactory, &SharedInformer<PartialObjectMeta<K>>, &Ring) -> FollowerRun
        + Send
        + Sync,
>;
type FollowerRun = Box<dyn FnOnce(Term, usize) -> BoxFuture<'static, ()> + Send>;

impl<K> Assigner<K>
where
    K: Informed,
    K::Scope: ScopedApi + Send + Sync,
{
    /// An assigner of `K`'s objects, in every namespace, to `ring`'s members.
    pub fn new(client: kube::Client, ring: Ring) -> Self {
        Assigner {
            client,
            ring,
            namespace: None,
            workers: 4,
            followers: Vec::new(),
        }
    }

    /// Assigns only the objects in `namespace` (an operator that watches one).
    #[must_use]
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = Some(namespace.to_owned());
        self
    }

    /// Labels the objects of `C` that a `K` controls (its controller reference) with
    /// their controller's member, so that a member's `owns` watch, which selects its
    /// label too, holds what its objects own; they move when it moves.
    #[must_use]
    pub fn owns<C>(mut self) -> Self
    where
        C: Informed,
        C::Scope: ScopedApi + Send + Sync,
        K::Scope: 'static,
    {
        let client = self.client.clone();
        self.followers.push(Box::new(move |factory, owners, ring| {
            follow::<K, C>(factory, owners, ring, &client)
        }));
        self
    }

    /// Runs until `term` stops: watches every object of `K` (metadata only) and the
    /// ring's member Leases, and labels each object for its member.
    pub async fn run(&self, term: &Term) {
        let mut options = FactoryOptions::default();
        if let Some(namespace) = &self.namespace {
            options = options.namespace(namespace);
        }
        let objects_factory = InformerFactory::new(self.client.clone(), options);
        let objects = objects_factory.informer::<PartialObjectMeta<K>>();
        let ring_selector = format!("{RING_LABEL}={}", self.ring.name());
        let leases_factory = InformerFactory::new(
            self.client.clone(),
            FactoryOptions::default()
                .namespace(self.ring.namespace())
                .tweak(move |config| config.labels(&ring_selector)),
        );
        let leases = leases_factory.informer::<Lease>();
        let members = Arc::new(Mutex::new(Members::new(self.ring.name())));
        let assign = Assign {
            objects: objects.store().clone(),
            members: members.clone(),
            client: self.client.clone(),
            ring: self.ring.clone(),
            handovers: metrics::counter!("sharding_handovers_total", "ring" => self.ring.name().to_owned()),
        };
        let name = format!("{}-assigner", self.ring.name());
        let controller = QueueController::new(&name, assign);
        objects.add_event_handler(enqueue::<PartialObjectMeta<K>>(controller.queue()));
        let followers: Vec<FollowerRun> = self
            .followers
            .iter()
            .map(|follower| follower(&objects_factory, &objects, &self.ring))
            .collect();
        let stopping = term.stopping().clone();
        objects_factory.start(&stopping);
        leases_factory.start(&stopping);
        objects_factory.wait_for_cache_sync().await;
        leases_factory.wait_for_cache_sync().await;
        // Membership changes without events (a Lease simply stops being renewed): it is
        // read again every retry period, and every object reconsidered when it changed.
        let period = self.ring.retry_period;
        let watch_members = async {
            loop {
                let changed = lock(&members).refresh(&leases.store().list(), Instant::now());
                let objects = objects.store().list();
                if changed {
                    for object in &objects {
                        controller.queue().add(key_of(object.as_ref()));
                    }
                }
                lock(&members).count(&objects, &self.ring.shard_label());
                tokio::select! {
                    () = stopping.cancelled() => return,
                    () = tokio::time::sleep(period) => {}
                }
            }
        };
        let follow = join_all(
            followers
                .into_iter()
                .map(|run| run(term.clone(), self.workers)),
        );
        tokio::join!(
            controller.run_leading(self.workers, term),
            watch_members,
            follow
        );
        objects_factory.shutdown().await;
        leases_factory.shutdown().await;
    }
}

/// The members whose Leases are alive, as this assigner has seen them renewed: a Lease is
/// alive for its duration after the assigner last saw it change, on the assigner's own
/// clock (as a leader-election candidate judges a lease), so clock skew does not matter.
struct Members {
    ring: String,
    /// Lease name → its renew time and when this assigner first saw that one.
    seen: BTreeMap<String, (Option<String>, Instant)>,
    live: BTreeSet<String>,
    /// Members given an assigned-objects gauge, so that one that left is set to zero.
    counted: BTreeSet<String>,
}

impl Members {
    fn new(ring: &str) -> Self {
        Members {
            ring: ring.to_owned(),
            seen: BTreeMap::new(),
            live: BTreeSet::new(),
            counted: BTreeSet::new(),
        }
    }

    /// Reads the Leases again; whether the live members changed.
    fn refresh(&mut self, leases: &[Arc<Lease>], now: Instant) -> bool {
        let mut live = BTreeSet::new();
        let mut seen = BTreeMap::new();
        for lease in leases {
            let Some(spec) = &lease.spec else { continue };
            let stamp = spec.renew_time.as_ref().map(|t| t.0.to_string());
            let name = lease.name_any();
            let at = match self.seen.get(&name) {
                Some((before, at)) if *before == stamp => *at,
                _ => now,
            };
            let duration = Duration::from_secs(
                u64::try_from(spec.lease_duration_seconds.unwrap_or(0)).unwrap_or(0),
            );
            if let Some(holder) = spec.holder_identity.as_ref().filter(|h| !h.is_empty())
                && now < at + duration
            {
                live.insert(holder.clone());
            }
            seen.insert(name, (stamp, at));
        }
        self.seen = seen;
        metrics::gauge!("sharding_ring_members", "ring" => self.ring.clone())
            .set(live.len() as f64);
        let changed = live != self.live;
        self.live = live;
        changed
    }

    /// Sets each member's assigned-objects gauge from the objects' labels.
    fn count<K: Resource>(&mut self, objects: &[Arc<PartialObjectMeta<K>>], shard: &str) {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for object in objects {
            if let Some(member) = object.labels().get(shard) {
                *counts.entry(member.clone()).or_default() += 1;
            }
        }
        let members: BTreeSet<String> = counts.keys().chain(&self.counted).cloned().collect();
        for member in &members {
            let count = counts.get(member).copied().unwrap_or(0);
            metrics::gauge!("sharding_assigned_objects", "ring" => self.ring.clone(), "member" => member.clone())
                .set(count as f64);
        }
        self.counted = counts.into_keys().collect();
    }
}

/// The assigner's sync: one object's label set for its member.
struct Assign<K: Resource> {
    objects: Store<PartialObjectMeta<K>>,
    members: Arc<Mutex<Members>>,
    client: kube::Client,
    ring: Ring,
    handovers: metrics::Counter,
}

impl<K> SyncHandler for Assign<K>
where
    K: Informed,
    K::Scope: ScopedApi + Send + Sync,
{
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let text = key.to_string();
        let Some(object) = self.objects.get(&text) else {
            return Ok(Action::Done);
        };
        let (shard, drain) = (self.ring.shard_label(), self.ring.drain_label());
        let labels = object.labels();
        let current = labels.get(&shard).map(String::as_str);
        let draining = labels.contains_key(&drain);
        let (desired, current_alive) = {
            let members = lock(&self.members);
            let desired = ring::assign(&text, members.live.iter().map(String::as_str));
            let alive = current.is_some_and(|c| members.live.contains(c));
            (desired.map(str::to_owned), alive)
        };
        let desired = desired.as_deref();
        let labels_patch = match (current, desired) {
            (current, desired) if current == desired => {
                // In place: a drain asked for earlier (a member that came back) is withdrawn.
                draining.then(|| json!({ drain: null }))
            }
            // Unassigned (new, or let go after a drain): to its member.
            (None, Some(desired)) => Some(json!({ shard: desired, drain: null })),
            // Its member is gone, and has stopped (its Lease expired): moved at once.
            (Some(_), desired) if !current_alive => {
                self.handovers.increment(1);
                Some(json!({ shard: desired, drain: null }))
            }
            // Its member is alive: asked to let go first.
            (Some(_), _) => (!draining).then(|| {
                self.handovers.increment(1);
                json!({ drain: "true" })
            }),
            (None, None) => None,
        };
        if let Some(labels) = labels_patch {
            patch_labels(&scoped_api::<K>(&self.client, key), key.name, labels).await?;
        }
        Ok(Action::Done)
    }
}

fn scoped_api<K>(client: &kube::Client, key: ObjectKey<'_>) -> Api<K>
where
    K: Informed,
    K::Scope: ScopedApi,
{
    <K::Scope as ScopedApi>::api(client.clone(), key.namespace)
}

/// Registers `C`'s informer (metadata only, indexed by controller) on the assigner's
/// factory, queues an owned object when it or its controller changes, and returns the
/// run of the controller that gives each its controller's label.
fn follow<K, C>(
    factory: &InformerFactory,
    owners: &SharedInformer<PartialObjectMeta<K>>,
    ring: &Ring,
    client: &kube::Client,
) -> FollowerRun
where
    K: Informed,
    K::Scope: 'static,
    C: Informed,
    C::Scope: ScopedApi + Send + Sync,
{
    let owned = factory.informer::<PartialObjectMeta<C>>();
    let index = owner_index::<K>();
    // The factory is the assigner's own: the index name is not taken.
    let _ = owned.add_index(&index, |o: &PartialObjectMeta<C>| {
        owner_keys::<_, K>(o, true)
    });
    let adopt = Adopt::<K, C> {
        owned: owned.store().clone(),
        owners: owners.store().clone(),
        client: client.clone(),
        shard: ring.shard_label(),
    };
    let name = format!("{}-{}-follower", ring.name(), C::plural(&()));
    let controller = QueueController::new(&name, adopt);
    owned.add_event_handler(enqueue::<PartialObjectMeta<C>>(controller.queue()));
    let owned_store = owned.store().clone();
    owners.add_event_handler(enqueue_mapped(
        controller.queue(),
        move |owner: &PartialObjectMeta<K>| {
            owned_store
                .by_index(&index, &key_of(owner))
                .unwrap_or_default()
                .iter()
                .map(|o| key_of(o.as_ref()))
                .collect()
        },
    ));
    Box::new(move |term, workers| {
        Box::pin(async move { controller.run_leading(workers, &term).await })
    })
}

/// A follower's sync: an owned object's shard label set to its controller's.
struct Adopt<K: Resource, C: Resource> {
    owned: Store<PartialObjectMeta<C>>,
    owners: Store<PartialObjectMeta<K>>,
    client: kube::Client,
    shard: String,
}

impl<K, C> SyncHandler for Adopt<K, C>
where
    K: Informed,
    K::Scope: 'static,
    C: Informed,
    C::Scope: ScopedApi + Send + Sync,
{
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let Some(object) = self.owned.get(&key.to_string()) else {
            return Ok(Action::Done);
        };
        let owner = owner_keys::<_, K>(object.as_ref(), true)
            .first()
            .and_then(|owner| self.owners.get(owner));
        let Some(owner) = owner else {
            // Not controlled by a `K` this assigner sees: left as it is.
            return Ok(Action::Done);
        };
        let desired = owner.labels().get(&self.shard);
        if object.labels().get(&self.shard) == desired {
            return Ok(Action::Done);
        }
        let labels = json!({ &self.shard: desired });
        patch_labels(&scoped_api::<C>(&self.client, key), key.name, labels).await?;
        Ok(Action::Done)
    }
}
