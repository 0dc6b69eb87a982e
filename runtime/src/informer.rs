//! Shared informers: one watch per resource feeding an indexed [`Store`], with event
//! handlers and subscriptions, and a factory that starts them all and waits for their
//! caches, as client-go's `SharedInformerFactory` does.
//!
//! List, watch, relist and backoff are kube-runtime's [`watcher()`]; this adds what it
//! does not have: one shared watch however many consumers, an indexed cache, exact
//! add/update/delete notifications across relists, late handlers, resync, and a
//! factory with start / wait-for-sync / shutdown.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::cache::{Store, key_of};
use crate::sync::lock;

/// A change to a cached object, as handlers and subscribers see it.
#[derive(Debug)]
pub enum Notification<K> {
    Add(Arc<K>),
    /// `old` is the object as last cached; on a resync both are the same object.
    Update {
        old: Arc<K>,
        new: Arc<K>,
    },
    /// The object's last known state.
    Delete(Arc<K>),
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Notification::Add(o) => Notification::Add(o.clone()),
            Notification::Update { old, new } => Notification::Update {
                old: old.clone(),
                new: new.clone(),
            },
            Notification::Delete(o) => Notification::Delete(o.clone()),
        }
    }
}

/// client-go's `ResourceEventHandler`. Each handler runs on a task of its own, so a
/// slow one delays neither the cache nor the other handlers.
pub trait EventHandler<K>: Send + Sync + 'static {
    fn on_add(&self, _object: &Arc<K>) {}
    fn on_update(&self, _old: &Arc<K>, _new: &Arc<K>) {}
    fn on_delete(&self, _object: &Arc<K>) {}
}

type Callback<K> = Box<dyn Fn(&Arc<K>) + Send + Sync>;
type UpdateCallback<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;
/// A typed transform of objects before they are cached.
type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync>;

/// client-go's `ResourceEventHandlerFuncs`: a handler from closures.
pub struct HandlerFns<K> {
    add: Option<Callback<K>>,
    update: Option<UpdateCallback<K>>,
    delete: Option<Callback<K>>,
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        HandlerFns {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> HandlerFns<K> {
    pub fn new() -> Self {
        HandlerFns::default()
    }

    pub fn on_add(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    pub fn on_update(mut self, f: impl Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    pub fn on_delete(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> EventHandler<K> for HandlerFns<K> {
    fn on_add(&self, object: &Arc<K>) {
        if let Some(f) = &self.add {
            f(object);
        }
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new);
        }
    }

    fn on_delete(&self, object: &Arc<K>) {
        if let Some(f) = &self.delete {
            f(object);
        }
    }
}

/// A transform of every object's metadata before it is cached.
pub type MetaTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync>;
/// Adjusts the list/watch parameters (label and field selectors, page size, …).
pub type Tweak = Arc<dyn Fn(watcher::Config) -> watcher::Config + Send + Sync>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SyncState {
    Pending,
    Synced,
    /// Stopped before the first list completed.
    Stopped,
}

struct Shared<K> {
    resource: String,
    store: Store<K>,
    /// Every handler's and subscriber's channel. Held while the store changes, so
    /// that a handler added concurrently sees each object exactly once.
    subscribers: Mutex<Vec<Sender<K>>>,
    state: watch::Sender<SyncState>,
    /// Cancelled when the informer stops, ending what runs beside it (handler resyncs).
    stopped: CancellationToken,
    transform: Mutex<Option<Transform<K>>>,
    meta_transform: Option<MetaTransform>,
}

/// One resource's informer; clones share the watch, the cache and the handlers.
pub struct SharedInformer<K> {
    shared: Arc<Shared<K>>,
    api: Api<K>,
    config: watcher::Config,
    resync: Option<Duration>,
}

impl<K: Clone> Clone for SharedInformer<K> {
    fn clone(&self) -> Self {
        SharedInformer {
            shared: self.shared.clone(),
            api: self.api.clone(),
            config: self.config.clone(),
            resync: self.resync,
        }
    }
}

impl<K> SharedInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// An informer over `api`; nothing happens until it is started (by its factory).
    pub fn new(
        api: Api<K>,
        config: watcher::Config,
        resync: Option<Duration>,
        meta_transform: Option<MetaTransform>,
    ) -> Self {
        let resource = [K::plural(&()), K::version(&()), K::group(&())]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(".");
        SharedInformer {
            shared: Arc::new(Shared {
                resource,
                store: Store::new(),
                subscribers: Mutex::new(Vec::new()),
                state: watch::channel(SyncState::Pending).0,
                stopped: CancellationToken::new(),
                transform: Mutex::new(None),
                meta_transform,
            }),
            api,
            config,
            resync,
        }
    }

    /// The cache listers read.
    pub fn store(&self) -> &Store<K> {
        &self.shared.store
    }

    /// The resource's full name, `plural.version.group`: `examples.v1alpha1.bcrds.example.com`.
    pub fn resource(&self) -> &str {
        &self.shared.resource
    }

    /// Sets a transform applied to every object before it is cached (after the
    /// factory's metadata transform). Set it before the informer starts.
    pub fn set_transform(&self, transform: impl Fn(&mut K) + Send + Sync + 'static) {
        *lock(&self.shared.transform) = Some(Arc::new(transform));
    }

    /// Adds a handler. One added after the cache filled first receives an add for
    /// every cached object. Needs a Tokio runtime.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) {
        deliver(self.register().1, handler);
    }

    /// Adds a handler that, besides the events, receives every cached object as an
    /// update each `period` while the informer runs: client-go's
    /// `AddEventHandlerWithResyncPeriod`, independent of the factory's resync.
    pub fn add_event_handler_with_resync(&self, handler: impl EventHandler<K>, period: Duration) {
        let (sender, receiver) = self.register();
        deliver(receiver, handler);
        let shared = Arc::downgrade(&self.shared);
        let stopped = self.shared.stopped.clone();
        tokio::spawn(async move {
            let start = tokio::time::Instant::now() + period;
            let mut ticks = tokio::time::interval_at(start, period);
            loop {
                tokio::select! {
                    _ = stopped.cancelled() => break,
                    _ = ticks.tick() => {}
                }
                let Some(shared) = shared.upgrade() else {
                    break;
                };
                if *shared.state.borrow() != SyncState::Synced {
                    continue;
                }
                // Under the subscribers' lock, as events are sent: no resync copy of an
                // object can overtake a newer event about it.
                let _events = lock(&shared.subscribers);
                for object in shared.store.list() {
                    let old = object.clone();
                    if sender
                        .send(Notification::Update { old, new: object })
                        .is_err()
                    {
                        return;
                    }
                }
            }
        });
    }

    /// The same notifications as a stream, starting with an add for every cached object.
    pub fn subscribe(&self) -> impl futures_util::Stream<Item = Notification<K>> + Send + 'static {
        tokio_stream::wrappers::UnboundedReceiverStream::new(self.register().1)
    }

    /// A new channel among the subscribers, primed with an add for every cached object.
    fn register(&self) -> (Sender<K>, mpsc::UnboundedReceiver<Notification<K>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut subscribers = lock(&self.shared.subscribers);
        for object in self.shared.store.list() {
            let _ = tx.send(Notification::Add(object));
        }
        subscribers.push(tx.clone());
        (tx, rx)
    }

    /// Whether the first list has been cached.
    pub fn has_synced(&self) -> bool {
        *self.shared.state.borrow() == SyncState::Synced
    }

    /// Waits until the first list is cached (`true`) or the informer stopped first.
    pub async fn wait_for_sync(&self) -> bool {
        let mut state = self.shared.state.subscribe();
        matches!(
            state
                .wait_for(|s| *s != SyncState::Pending)
                .await
                .map(|s| *s),
            Ok(SyncState::Synced)
        )
    }

    /// Runs the watch until `shutdown`, on a task of its own.
    fn spawn(&self, shutdown: CancellationToken) -> JoinHandle<()> {
        let shared = self.shared.clone();
        let stream = watcher(self.api.clone(), self.config.clone()).default_backoff();
        let resync = self.resync;
        tokio::spawn(async move {
            let mut stream = std::pin::pin!(stream);
            let mut relist: Option<HashMap<String, Arc<K>>> = None;
            let mut resync = resync.map(|period| {
                tokio::time::interval_at(tokio::time::Instant::now() + period, period)
            });
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tick(&mut resync) => shared.resync(),
                    event = stream.next() => match event {
                        None => break,
                        Some(Ok(event)) => shared.apply(event, &mut relist),
                        Some(Err(error)) => {
                            tracing::warn!(resource = %shared.resource, %error, "watch failed; retrying with backoff");
                        }
                    },
                }
            }
            shared.state.send_if_modified(|s| {
                let pending = *s == SyncState::Pending;
                if pending {
                    *s = SyncState::Stopped;
                }
                pending
            });
            // Handlers and subscribers end once they have drained what they were sent.
            lock(&shared.subscribers).clear();
            shared.stopped.cancel();
        })
    }
}

impl<K> Shared<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn transformed(&self, mut object: K) -> Arc<K> {
        if let Some(t) = &self.meta_transform {
            t(object.meta_mut());
        }
        if let Some(t) = lock(&self.transform).clone() {
            t(&mut object);
        }
        Arc::new(object)
    }

    fn apply(&self, event: Event<K>, relist: &mut Option<HashMap<String, Arc<K>>>) {
        match event {
            Event::Apply(object) => {
                let object = self.transformed(object);
                let mut subscribers = lock(&self.subscribers);
                let notification = match self.store.insert(object.clone()) {
                    Some(old) => Notification::Update { old, new: object },
                    None => Notification::Add(object),
                };
                notify(&mut subscribers, notification);
            }
            Event::Delete(object) => {
                let mut subscribers = lock(&self.subscribers);
                let last = match self.store.remove(&key_of(&object)) {
                    Some(cached) => cached,
                    None => self.transformed(object),
                };
                notify(&mut subscribers, Notification::Delete(last));
            }
            Event::Init => *relist = Some(HashMap::new()),
            Event::InitApply(object) => {
                let object = self.transformed(object);
                relist
                    .get_or_insert_default()
                    .insert(key_of(object.as_ref()), object);
            }
            Event::InitDone => {
                self.replace(relist.take().unwrap_or_default());
                self.state.send_replace(SyncState::Synced);
            }
        }
    }

    /// Replaces the cache with a fresh list, notifying exactly what changed: a delete
    /// for what is gone, an update for what changed, an add for what is new.
    fn replace(&self, listed: HashMap<String, Arc<K>>) {
        let mut subscribers = lock(&self.subscribers);
        for old in self.store.list() {
            let key = key_of(old.as_ref());
            if !listed.contains_key(&key) {
                self.store.remove(&key);
                notify(&mut subscribers, Notification::Delete(old));
            }
        }
        let mut listed: Vec<(String, Arc<K>)> = listed.into_iter().collect();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, new) in listed {
            match self.store.insert(new.clone()) {
                None => notify(&mut subscribers, Notification::Add(new)),
                Some(old) if old.meta().resource_version != new.meta().resource_version => {
                    notify(&mut subscribers, Notification::Update { old, new });
                }
                Some(_) => {}
            }
        }
    }

    /// client-go's resync: every cached object re-delivered as an update.
    fn resync(&self) {
        if *self.state.borrow() != SyncState::Synced {
            return;
        }
        let mut subscribers = lock(&self.subscribers);
        for object in self.store.list() {
            notify(
                &mut subscribers,
                Notification::Update {
                    old: object.clone(),
                    new: object,
                },
            );
        }
    }
}

type Sender<K> = mpsc::UnboundedSender<Notification<K>>;

/// Runs `handler` on what arrives, on a task of its own; a panic in it is logged and
/// the handler keeps receiving.
fn deliver<K: Send + Sync + 'static>(
    mut receiver: mpsc::UnboundedReceiver<Notification<K>>,
    handler: impl EventHandler<K>,
) {
    tokio::spawn(async move {
        while let Some(notification) = receiver.recv().await {
            let delivered = catch_unwind(AssertUnwindSafe(|| match &notification {
                Notification::Add(o) => handler.on_add(o),
                Notification::Update { old, new } => handler.on_update(old, new),
                Notification::Delete(o) => handler.on_delete(o),
            }));
            if delivered.is_err() {
                tracing::error!("an informer event handler panicked; it keeps receiving events");
            }
        }
    });
}

fn notify<K>(subscribers: &mut Vec<Sender<K>>, notification: Notification<K>) {
    subscribers.retain(|tx| tx.send(notification.clone()).is_ok());
}

async fn tick(interval: &mut Option<tokio::time::Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// How a factory's informers list, watch and cache.
#[derive(Clone)]
pub struct FactoryOptions {
    namespace: Option<String>,
    tweak: Option<Tweak>,
    resync: Option<Duration>,
    meta_transform: Option<MetaTransform>,
}

impl Default for FactoryOptions {
    /// Every namespace, no tweaks, no resync, and `metadata.managedFields` dropped
    /// before caching (the largest per-object memory cost).
    fn default() -> Self {
        FactoryOptions {
            namespace: None,
            tweak: None,
            resync: None,
            meta_transform: Some(Arc::new(|meta: &mut ObjectMeta| meta.managed_fields = None)),
        }
    }
}

impl FactoryOptions {
    /// Watch namespaced kinds in `namespace` only (cluster-scoped kinds are unaffected).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = Some(namespace.to_owned());
        self
    }

    /// Adjust list/watch parameters, e.g. `|c| c.labels("app=web")`.
    pub fn tweak(
        mut self,
        tweak: impl Fn(watcher::Config) -> watcher::Config + Send + Sync + 'static,
    ) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// Re-deliver every cached object to handlers as an update this often.
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period);
        self
    }

    /// Replace the default metadata transform (`None` keeps objects as served).
    pub fn transform(mut self, transform: Option<MetaTransform>) -> Self {
        self.meta_transform = transform;
        self
    }
}

/// A factory's view of one of its informers, whatever its type.
trait Started: Send + Sync {
    fn spawn(&self, shutdown: CancellationToken) -> JoinHandle<()>;
    fn wait(&self) -> Pin<Box<dyn Future<Output = bool> + Send>>;
    fn resource(&self) -> String;
    fn as_any(&self) -> &dyn Any;
}

impl<K> Started for SharedInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    fn spawn(&self, shutdown: CancellationToken) -> JoinHandle<()> {
        SharedInformer::spawn(self, shutdown)
    }

    fn wait(&self) -> Pin<Box<dyn Future<Output = bool> + Send>> {
        let this = self.clone();
        Box::pin(async move { this.wait_for_sync().await })
    }

    fn resource(&self) -> String {
        self.resource().to_owned()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct Entry {
    informer: Box<dyn Started>,
    task: Option<JoinHandle<()>>,
}

/// client-go's `SharedInformerFactory`: hands out one informer per resource and
/// starts, waits for and stops them together. Generated factories wrap it.
pub struct InformerFactory {
    client: kube::Client,
    options: FactoryOptions,
    token: CancellationToken,
    entries: Mutex<BTreeMap<(String, TypeId), Entry>>,
}

impl InformerFactory {
    pub fn new(client: kube::Client, options: FactoryOptions) -> Self {
        InformerFactory {
            client,
            options,
            token: CancellationToken::new(),
            entries: Mutex::new(BTreeMap::new()),
        }
    }

    /// The informer for `K`, created on first request. `api` builds its `Api` from the
    /// client and the factory's namespace (generated code knows `K`'s scope).
    pub fn informer_for<K>(
        &self,
        api: impl FnOnce(kube::Client, Option<&str>) -> Api<K>,
    ) -> SharedInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    {
        let api = api(self.client.clone(), self.options.namespace.as_deref());
        let key = (api.resource_url().to_owned(), TypeId::of::<K>());
        let mut entries = lock(&self.entries);
        if let Some(existing) = entries
            .get(&key)
            .and_then(|e| e.informer.as_any().downcast_ref::<SharedInformer<K>>())
        {
            return existing.clone();
        }
        let config = match &self.options.tweak {
            Some(tweak) => tweak(watcher::Config::default()),
            None => watcher::Config::default(),
        };
        let informer = SharedInformer::new(
            api,
            config,
            self.options.resync,
            self.options.meta_transform.clone(),
        );
        entries.insert(
            key,
            Entry {
                informer: Box::new(informer.clone()),
                task: None,
            },
        );
        informer
    }

    /// Starts every informer requested so far that is not running yet; calling it again
    /// starts those requested since. They stop on `shutdown` or [`Self::shutdown`].
    /// Needs a Tokio runtime.
    pub fn start(&self, shutdown: &CancellationToken) {
        let (outer, ours) = (shutdown.clone(), self.token.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = outer.cancelled() => ours.cancel(),
                _ = ours.cancelled() => {}
            }
        });
        for entry in lock(&self.entries)
            .values_mut()
            .filter(|e| e.task.is_none())
        {
            entry.task = Some(entry.informer.spawn(self.token.child_token()));
        }
    }

    /// Waits for every started informer's first list: `true` per resource that synced,
    /// `false` for one that stopped first. Keyed by `plural.version.group`.
    pub async fn wait_for_cache_sync(&self) -> BTreeMap<String, bool> {
        let waits: Vec<_> = lock(&self.entries)
            .values()
            .filter(|e| e.task.is_some())
            .map(|e| (e.informer.resource(), e.informer.wait()))
            .collect();
        let mut out = BTreeMap::new();
        for (resource, wait) in waits {
            out.insert(resource, wait.await);
        }
        out
    }

    /// Stops every informer and waits for its task to end.
    pub async fn shutdown(&self) {
        self.token.cancel();
        let tasks: Vec<JoinHandle<()>> = lock(&self.entries)
            .values_mut()
            .filter_map(|e| e.task.take())
            .collect();
        for task in tasks {
            let _ = task.await;
        }
    }
}
