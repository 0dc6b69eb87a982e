//! Shared informers: one watch per resource feeding an indexed [`Store`], with event
//! handlers and subscriptions, and a factory that starts them all and waits for their
//! caches, as client-go's `SharedInformerFactory` does.
//!
//! List, watch and relist are kube-runtime's [`watcher()`], with its default backoff's
//! figures; this adds what it does not have: a backoff that starts over once a watch
//! worked (so a 410 after an outage relists within its first step, `backoff.rs`), one shared watch
//! however many consumers, an indexed cache, exact add/update/delete notifications
//! across relists, late handlers, resync, and a factory with start / wait-for-sync /
//! shutdown.

mod backoff;
mod factory;
mod handler;
mod shard;

use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use backoff::WatchBackoff;
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use factory::{
    CacheSyncError, DEFAULT_CACHE_SYNC_TIMEOUT, FactoryOptions, InformerFactory, InformerFailure,
    ScopedApi, Unsynced,
};
pub use handler::{EventHandler, HandlerFns, Notification};
pub use shard::Shard;
pub(crate) use shard::{Admission, ShardOf, patch_labels};

/// What a shared informer can watch: a kind of fixed type, decodable and shareable.
pub trait Informed:
    Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}

impl<K> Informed for K where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}

use handler::{Receiver, Subscriber, deliver, notify};

use crate::cache::{IndexConflict, Store, Writer, key_of};
use crate::panics::lock;

/// A typed transform of objects before they are cached.
type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync>;

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
    /// The cache's only write handle.
    store: Writer<K>,
    /// Every handler's and subscriber's channel. Held while the store changes, so
    /// that a handler added concurrently sees each object exactly once.
    subscribers: Mutex<Vec<Subscriber<K>>>,
    /// How many channels were ever made: the next one's number, in metrics and logs.
    channels: std::sync::atomic::AtomicUsize,
    state: watch::Sender<SyncState>,
    /// Set by the first `run`: an informer runs once.
    started: AtomicBool,
    /// Cancelled when the informer stops, ending what runs beside it (handler resyncs).
    /// Cancelled under the subscribers' lock, so a handler added after it gets only the
    /// cached objects and ends.
    stopped: CancellationToken,
    /// The handler tasks and handler resync loops, waited for when the informer stops.
    tasks: TaskTracker,
    last_error: Mutex<Option<WatchError>>,
    transform: Mutex<Option<Transform<K>>>,
    meta_transform: Option<MetaTransform>,
}

/// The last error an informer's watch met, with a hint for those a cluster's setup
/// causes: an uninstalled CRD (404) or a missing RBAC grant (403).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchError {
    /// The HTTP status the apiserver answered, when it answered one.
    pub code: Option<u16>,
    /// What went wrong, as the watcher reported it.
    pub message: String,
}

impl WatchError {
    fn from_watcher(error: &watcher::Error) -> Self {
        let code = match error {
            watcher::Error::InitialListFailed(kube::Error::Api(status))
            | watcher::Error::WatchStartFailed(kube::Error::Api(status))
            | watcher::Error::WatchFailed(kube::Error::Api(status)) => Some(status.code),
            watcher::Error::WatchError(status) => Some(status.code),
            _ => None,
        };
        WatchError {
            code,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for WatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match self.code {
            Some(404) => f.write_str(" (hint: the apiserver does not serve this resource: is its CustomResourceDefinition installed?)"),
            Some(403) => f.write_str(" (hint: forbidden: does the operator's RBAC role grant list and watch on this resource?)"),
            _ => Ok(()),
        }
    }
}

/// One resource's informer; clones share the watch, the cache and the handlers.
pub struct SharedInformer<K> {
    shared: Arc<Shared<K>>,
    api: Api<K>,
    config: watcher::Config,
    resync: Option<Duration>,
    /// The ring shard it watches, when its factory has one.
    pub(crate) shard: Option<Arc<ShardOf<K>>>,
}

impl<K: Clone> Clone for SharedInformer<K> {
    fn clone(&self) -> Self {
        SharedInformer {
            shared: self.shared.clone(),
            api: self.api.clone(),
            config: self.config.clone(),
            resync: self.resync,
            shard: self.shard.clone(),
        }
    }
}

impl<K> SharedInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// An informer over `api`; nothing happens until it runs ([`Self::run`], or its
    /// factory's `start`).
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
                store: Writer::new(),
                subscribers: Mutex::new(Vec::new()),
                channels: Default::default(),
                state: watch::channel(SyncState::Pending).0,
                started: AtomicBool::new(false),
                stopped: CancellationToken::new(),
                tasks: TaskTracker::new(),
                last_error: Mutex::new(None),
                transform: Mutex::new(None),
                meta_transform,
            }),
            api,
            config,
            resync,
            shard: None,
        }
    }

    /// The cache listers read.
    pub fn store(&self) -> &Store<K> {
        self.shared.store.store()
    }

    /// Adds a named index to the cache, computed for what is cached already (client-go's
    /// `AddIndexers`); an index of that name is kept and the new one refused.
    ///
    /// # Errors
    ///
    /// [`IndexConflict`] when the cache has an index of that name.
    pub fn add_index(
        &self,
        name: &str,
        func: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<(), IndexConflict> {
        self.shared.store.add_index(name, func)
    }

    /// The resource's full name, `plural.version.group`: `examples.v1alpha1.bcrds.example.com`.
    pub fn resource(&self) -> &str {
        &self.shared.resource
    }

    /// Sets a transform applied to every object before it is cached (after the
    /// factory's metadata transform). Set it before the informer starts: `run` reads it
    /// once.
    pub fn set_transform(&self, transform: impl Fn(&mut K) + Send + Sync + 'static) {
        *lock(&self.shared.transform) = Some(Arc::new(transform));
    }

    /// Adds a handler. One added after the cache filled first receives an add for
    /// every cached object; one added after the informer stopped receives only those.
    /// Needs a Tokio runtime.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) {
        deliver(&self.shared.tasks, self.register(true).1, handler);
    }

    /// Adds a handler that, besides the events, receives every cached object as an
    /// update each `period` while the informer runs: client-go's
    /// `AddEventHandlerWithResyncPeriod`. Its period replaces the factory's: the
    /// factory's resyncs do not reach it.
    pub fn add_event_handler_with_resync(&self, handler: impl EventHandler<K>, period: Duration) {
        let (subscriber, receiver) = self.register(false);
        deliver(&self.shared.tasks, receiver, handler);
        let shared = Arc::downgrade(&self.shared);
        let stopped = self.shared.stopped.clone();
        self.shared.tasks.spawn(async move {
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
                for object in shared.store.store().list() {
                    let old = object.clone();
                    if !subscriber.send(Notification::Update { old, new: object }) {
                        return;
                    }
                }
            }
        });
    }

    /// The same notifications as a stream, starting with an add for every cached object.
    pub fn subscribe(&self) -> impl futures_util::Stream<Item = Notification<K>> + Send + 'static {
        self.register(true).1.into_stream()
    }

    /// How many notifications each handler and subscriber has yet to take, in the
    /// order they were added: a slow handler's lag.
    pub fn handler_lag(&self) -> Vec<usize> {
        lock(&self.shared.subscribers)
            .iter()
            .map(|s| s.lag().pending())
            .collect()
    }

    /// A new channel, primed with an add for every cached object, among the
    /// subscribers while the informer has not stopped.
    fn register(&self, factory_resync: bool) -> (Subscriber<K>, Receiver<K>) {
        let number = self.shared.channels.fetch_add(1, Ordering::Relaxed);
        let (subscriber, receiver) =
            Subscriber::channel(&self.shared.resource, number, factory_resync);
        let mut subscribers = lock(&self.shared.subscribers);
        for object in self.shared.store.store().list() {
            subscriber.send(Notification::Add(object));
        }
        if !self.shared.stopped.is_cancelled() {
            subscribers.push(subscriber.clone());
        }
        (subscriber, receiver)
    }

    /// The last error the watch met, if any: why a cache does not sync.
    pub fn last_watch_error(&self) -> Option<WatchError> {
        lock(&self.shared.last_error).clone()
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

    /// Lists and watches until `shutdown`, keeping the cache and telling handlers;
    /// then waits for the handlers to take what they were sent. A factory runs its
    /// informers; one built alone is run by spawning this. An informer runs once: a
    /// second call returns at once.
    pub async fn run(self, shutdown: CancellationToken) {
        if self.shared.started.swap(true, Ordering::SeqCst) {
            tracing::warn!(resource = %self.shared.resource, "the informer has already been started");
            return;
        }
        let shared = self.shared;
        // Read once: the transforms are set before the informer starts, and an event
        // should not take a lock for them.
        let (meta, typed) = (
            shared.meta_transform.clone(),
            lock(&shared.transform).clone(),
        );
        let transform = move |object: &mut K| {
            if let Some(t) = &meta {
                t(object.meta_mut());
            }
            if let Some(t) = &typed {
                t(object);
            }
        };
        let stream = watcher(self.api, self.config).map_ok(move |event| event.modify(&transform));
        let mut stream = std::pin::pin!(stream);
        let mut relist: Option<HashMap<String, Arc<K>>> = None;
        let mut resync = self
            .resync
            .map(|period| tokio::time::interval_at(tokio::time::Instant::now() + period, period));
        let mut backoff = WatchBackoff::new();
        // The stream is not polled while the retry waits.
        let retry = tokio::time::sleep(Duration::ZERO);
        let mut retry = std::pin::pin!(retry);
        let mut waiting = false;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tick(&mut resync) => shared.resync(),
                () = &mut retry, if waiting => {
                    waiting = false;
                    backoff.resume();
                }
                event = stream.next(), if !waiting => match event {
                    None => break,
                    Some(Ok(event)) => {
                        backoff.reset();
                        shared.apply(event, &mut relist);
                    }
                    Some(Err(error)) => {
                        let delay = backoff.delay(&error);
                        tracing::warn!(resource = %shared.resource, %error, ?delay, "watch failed; retrying");
                        *lock(&shared.last_error) = Some(WatchError::from_watcher(&error));
                        retry.as_mut().reset(tokio::time::Instant::now() + delay);
                        waiting = true;
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
        {
            // Handlers and subscribers end once they have drained what they were sent.
            let mut subscribers = lock(&shared.subscribers);
            subscribers.clear();
            shared.stopped.cancel();
        }
        shared.tasks.close();
        shared.tasks.wait().await;
    }
}

impl<K> Shared<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn apply(&self, event: Event<K>, relist: &mut Option<HashMap<String, Arc<K>>>) {
        match event {
            Event::Apply(object) => {
                let object = Arc::new(object);
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
                    None => Arc::new(object),
                };
                notify(&mut subscribers, Notification::Delete(last));
            }
            Event::Init => *relist = Some(HashMap::new()),
            Event::InitApply(object) => {
                let object = Arc::new(object);
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

    /// Replaces the cache with a fresh list, notifying exactly what changed: a deletion
    /// whose final state is unknown for what is gone, an update for what changed, an add for what is new.
    fn replace(&self, listed: HashMap<String, Arc<K>>) {
        let mut subscribers = lock(&self.subscribers);
        for old in self.store.store().list() {
            let key = key_of(old.as_ref());
            if !listed.contains_key(&key) {
                self.store.remove(&key);
                notify(
                    &mut subscribers,
                    Notification::DeletedFinalStateUnknown(old),
                );
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

    /// client-go's resync: every cached object re-delivered as an update, to the
    /// handlers without a period of their own.
    fn resync(&self) {
        if *self.state.borrow() != SyncState::Synced {
            return;
        }
        let mut subscribers = lock(&self.subscribers);
        let objects = self.store.store().list();
        subscribers.retain(|subscriber| {
            !subscriber.factory_resync
                || objects.iter().all(|object| {
                    subscriber.send(Notification::Update {
                        old: object.clone(),
                        new: object.clone(),
                    })
                })
        });
    }
}

async fn tick(interval: &mut Option<tokio::time::Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}
