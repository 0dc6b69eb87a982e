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
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{RING_LABEL, Ring, ring};
use crate::cache::{Store, key_of};
use crate::controller::{
    Action, ObjectKey, QueueController, SyncError, SyncHandler, enqueue, enqueue_mapped,
    owner_index, owner_keys,
};
use crate::informer::{
    FactoryOptions, HandlerFns, Informed, InformerFactory, ScopedApi, SharedInformer, patch_labels,
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
///
/// How long a dead member's objects wait: its Lease's duration after the assigner last
/// saw it renewed (the assigner wakes at that deadline, not on a poll), then the moved
/// objects' relabelling, [`concurrency`](Self::concurrency) patches at a time, and
/// their owned objects' after them (the book's sharding chapter gives the bound).
pub struct Assigner<K> {
    client: kube::Client,
    ring: Ring,
    namespace: Option<String>,
    concurrency: usize,
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
            concurrency: 16,
            followers: Vec::new(),
        }
    }

    /// Assigns only the objects in `namespace` (an operator that watches one).
    #[must_use]
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = Some(namespace.to_owned());
        self
    }

    /// How many label patches it has in flight at most, for the objects and for each
    /// owned kind (16 by default): a failover relabels a dead member's share at once,
    /// so its time is that share over the apiserver's write rate at this concurrency.
    #[must_use]
    pub fn concurrency(mut self, patches: usize) -> Self {
        self.concurrency = patches.max(1);
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
        let lease_events = Arc::new(Notify::new());
        leases.add_event_handler(notify_on_change(&lease_events));
        let tally = Arc::new(Tally::new(self.ring.name(), self.ring.shard_label()));
        objects.add_event_handler(Tally::handler(&tally));
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
        // Membership is read again on every Lease event and at the moment the next live
        // Lease would run out (a Lease simply stops being renewed: no event says so), and
        // every object is reconsidered when it changed.
        let lease_api: Api<Lease> = Api::namespaced(self.client.clone(), self.ring.namespace());
        let watch_members = async {
            loop {
                let current = confirmed(&lease_api, &members, leases.store().list()).await;
                let changed = lock(&members).refresh(&current, Instant::now());
                if changed {
                    for object in objects.store().list() {
                        controller.queue().add(key_of(object.as_ref()));
                    }
                }
                let wake = lock(&members).next_expiry();
                tokio::select! {
                    () = stopping.cancelled() => return,
                    () = lease_events.notified() => {}
                    () = sleep_until(wake) => {}
                }
            }
        };
        let follow = join_all(
            followers
                .into_iter()
                .map(|run| run(term.clone(), self.concurrency)),
        );
        tokio::join!(
            controller.run_leading(self.concurrency, term),
            watch_members,
            follow
        );
        objects_factory.shutdown().await;
        leases_factory.shutdown().await;
    }
}

/// Wakes the membership loop on any change to a member Lease.
fn notify_on_change(events: &Arc<Notify>) -> HandlerFns<Lease> {
    let (added, updated, deleted) = (events.clone(), events.clone(), events.clone());
    HandlerFns::new()
        .on_add(move |_| added.notify_one())
        .on_update(move |_, _| updated.notify_one())
        .on_delete(move |_| deleted.notify_one())
}

/// Sleeps until `deadline`, or for good without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The cached Leases, with each one that would run out now read afresh from the
/// apiserver: a watch that lags under load would otherwise let a live member expire,
/// and its objects move away and back.
async fn confirmed(
    api: &Api<Lease>,
    members: &Mutex<Members>,
    mut leases: Vec<Arc<Lease>>,
) -> Vec<Arc<Lease>> {
    let lapsing = lock(members).lapsing(&leases, Instant::now());
    for name in lapsing {
        // A failed read leaves the cache's word: the Lease ran out.
        if let Ok(Some(fresh)) = api.get_opt(&name).await
            && let Some(cached) = leases.iter_mut().find(|l| l.name_any() == name)
        {
            *cached = Arc::new(fresh);
        }
    }
    leases
}

/// What the assigner saw of one Lease last.
struct Seen {
    /// Its renew time as written, which changes on every renewal.
    renewed: Option<String>,
    holder: Option<String>,
    /// When its term runs out: its duration after the assigner saw this renewal.
    expires: Instant,
}

/// The members whose Leases are alive, as this assigner has seen them renewed: a Lease is
/// alive for its duration after the assigner last saw it change, on the assigner's own
/// clock (as a leader-election candidate judges a lease), so clock skew does not matter.
struct Members {
    ring: String,
    /// Lease name → what this assigner saw of it last.
    seen: BTreeMap<String, Seen>,
    live: BTreeSet<String>,
}

impl Members {
    fn new(ring: &str) -> Self {
        Members {
            ring: ring.to_owned(),
            seen: BTreeMap::new(),
            live: BTreeSet::new(),
        }
    }

    /// Reads the Leases again; whether the live members changed.
    fn refresh(&mut self, leases: &[Arc<Lease>], now: Instant) -> bool {
        let mut live = BTreeSet::new();
        let mut seen = BTreeMap::new();
        for lease in leases {
            let Some(spec) = &lease.spec else { continue };
            let renewed = renew_stamp(lease);
            let name = lease.name_any();
            let duration = Duration::from_secs(
                u64::try_from(spec.lease_duration_seconds.unwrap_or(0)).unwrap_or(0),
            );
            let expires = match self.seen.get(&name) {
                Some(before) if before.renewed == renewed => before.expires,
                _ => now + duration,
            };
            let holder = spec.holder_identity.clone().filter(|h| !h.is_empty());
            if let Some(holder) = &holder
                && now < expires
            {
                live.insert(holder.clone());
            }
            seen.insert(
                name,
                Seen {
                    renewed,
                    holder,
                    expires,
                },
            );
        }
        self.seen = seen;
        metrics::gauge!("sharding_ring_members", "ring" => self.ring.clone())
            .set(live.len() as f64);
        let changed = live != self.live;
        self.live = live;
        changed
    }

    /// The Leases of live members that run out by `now` unless renewed since the
    /// assigner saw them: those to read afresh before their members are let go.
    fn lapsing(&self, leases: &[Arc<Lease>], now: Instant) -> Vec<String> {
        leases
            .iter()
            .filter_map(|lease| {
                let name = lease.name_any();
                let seen = self.seen.get(&name)?;
                let holder = seen.holder.as_ref()?;
                (self.live.contains(holder)
                    && seen.expires <= now
                    && seen.renewed == renew_stamp(lease))
                .then_some(name)
            })
            .collect()
    }

    /// When the next live member's Lease runs out, unless renewed.
    fn next_expiry(&self) -> Option<Instant> {
        self.seen
            .values()
            .filter(|seen| seen.holder.as_ref().is_some_and(|h| self.live.contains(h)))
            .map(|seen| seen.expires)
            .min()
    }
}

fn renew_stamp(lease: &Lease) -> Option<String> {
    let spec = lease.spec.as_ref()?;
    spec.renew_time.as_ref().map(|t| t.0.to_string())
}

/// Each member's count of the objects labelled for it, kept from the assigner's cache's
/// events as `sharding_assigned_objects{ring,member}`: a count that follows every
/// label change as the cache sees it, where a count taken on a timer lags by its period.
struct Tally {
    ring: String,
    shard: String,
    counts: Mutex<BTreeMap<String, u64>>,
}

impl Tally {
    fn new(ring: &str, shard: String) -> Self {
        Tally {
            ring: ring.to_owned(),
            shard,
            counts: Mutex::new(BTreeMap::new()),
        }
    }

    fn handler<K: Resource + Send + Sync + 'static>(
        tally: &Arc<Self>,
    ) -> HandlerFns<PartialObjectMeta<K>> {
        let (added, updated, deleted) = (tally.clone(), tally.clone(), tally.clone());
        HandlerFns::new()
            .on_add(move |object: &Arc<PartialObjectMeta<K>>| added.change(None, Some(object)))
            .on_update(move |old: &Arc<PartialObjectMeta<K>>, new| {
                updated.change(Some(old), Some(new));
            })
            .on_delete(move |object: &Arc<PartialObjectMeta<K>>| deleted.change(Some(object), None))
    }

    /// An object's label went from `old`'s to `new`'s (either absent).
    fn change<K: Resource>(&self, old: Option<&Arc<K>>, new: Option<&Arc<K>>) {
        let member =
            |object: Option<&Arc<K>>| object.and_then(|o| o.labels().get(&self.shard).cloned());
        let (from, to) = (member(old), member(new));
        if from == to {
            return;
        }
        let mut counts = lock(&self.counts);
        if let Some(from) = from {
            let count = counts.entry(from.clone()).or_default();
            *count = count.saturating_sub(1);
            self.set(&from, *count);
        }
        if let Some(to) = to {
            let count = counts.entry(to.clone()).or_default();
            *count += 1;
            self.set(&to, *count);
        }
    }

    fn set(&self, member: &str, count: u64) {
        metrics::gauge!("sharding_assigned_objects", "ring" => self.ring.clone(), "member" => member.to_owned())
            .set(count as f64);
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
