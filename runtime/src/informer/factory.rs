//! client-go's `SharedInformerFactory`: one informer per resource, started, waited for
//! and stopped together.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt::{self, Debug};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::watcher;
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{MetaTransform, Shard, ShardOf, SharedInformer, Tweak, WatchError};
use crate::panics::{lock, panic_message};

/// controller-runtime's default `CacheSyncTimeout`.
pub const DEFAULT_CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(120);

/// How a factory's informers list, watch and cache.
#[derive(Clone)]
pub struct FactoryOptions {
    namespace: Option<String>,
    tweak: Option<Tweak>,
    resync: Option<Duration>,
    meta_transform: Option<MetaTransform>,
    cache_sync_timeout: Duration,
    shard: Option<Shard>,
}

impl Default for FactoryOptions {
    /// Every namespace, no tweaks, no resync, `metadata.managedFields` dropped before
    /// caching (the largest per-object memory cost), and two minutes for caches to sync.
    fn default() -> Self {
        FactoryOptions {
            namespace: None,
            tweak: None,
            resync: None,
            meta_transform: Some(Arc::new(|meta: &mut ObjectMeta| meta.managed_fields = None)),
            cache_sync_timeout: DEFAULT_CACHE_SYNC_TIMEOUT,
            shard: None,
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

    /// Watch only `shard`'s objects (its selector joins any tweak's own), and let a
    /// controller built `for_kind` on one of these informers sync only the shard's
    /// objects, letting drained ones go: a replica's part in a controller ring
    /// (`crate::sharding::Ring::shard`).
    pub fn shard(mut self, shard: Shard) -> Self {
        self.shard = Some(shard);
        self
    }

    /// Re-deliver every cached object to handlers as an update this often (handlers
    /// added with a period of their own keep theirs).
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period);
        self
    }

    /// Replace the default metadata transform (`None` keeps objects as served).
    pub fn transform(mut self, transform: Option<MetaTransform>) -> Self {
        self.meta_transform = transform;
        self
    }

    /// How long [`InformerFactory::wait_for_cache_sync`] waits (default two minutes).
    pub fn cache_sync_timeout(mut self, timeout: Duration) -> Self {
        self.cache_sync_timeout = timeout;
        self
    }
}

/// A factory's view of one of its informers, whatever its type.
trait Started: Send + Sync {
    fn run(&self, shutdown: CancellationToken) -> Pin<Box<dyn Future<Output = ()> + Send>>;
    fn wait(&self) -> Pin<Box<dyn Future<Output = bool> + Send>>;
    fn synced(&self) -> bool;
    fn resource(&self) -> String;
    fn last_error(&self) -> Option<WatchError>;
    fn as_any(&self) -> &dyn Any;
}

impl<K> Started for SharedInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    fn run(&self, shutdown: CancellationToken) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(self.clone().run(shutdown))
    }

    fn wait(&self) -> Pin<Box<dyn Future<Output = bool> + Send>> {
        let this = self.clone();
        Box::pin(async move { this.wait_for_sync().await })
    }

    fn synced(&self) -> bool {
        self.has_synced()
    }

    fn resource(&self) -> String {
        self.resource().to_owned()
    }

    fn last_error(&self) -> Option<WatchError> {
        self.last_watch_error()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct Entry {
    informer: Arc<dyn Started>,
    /// Once started: what stops it, and its task.
    running: Option<(CancellationToken, JoinHandle<()>)>,
}

/// client-go's `SharedInformerFactory`: hands out one informer per resource and
/// starts, waits for and stops them together. Generated factories wrap it.
pub struct InformerFactory {
    client: kube::Client,
    options: FactoryOptions,
    entries: Mutex<BTreeMap<(String, TypeId), Entry>>,
    /// The first informer that ended while it should have run on.
    failed: watch::Sender<Option<InformerFailure>>,
}

impl InformerFactory {
    /// A factory over `client`; its informers share `options` (namespace, resync,
    /// selectors, transforms).
    pub fn new(client: kube::Client, options: FactoryOptions) -> Self {
        InformerFactory {
            client,
            options,
            entries: Mutex::new(BTreeMap::new()),
            failed: watch::channel(None).0,
        }
    }

    /// The informer for `K`, created on first request. `api` builds its `Api` from the
    /// client and the factory's namespace (generated code knows `K`'s scope).
    pub fn informer_for<K>(
        &self,
        api: impl Fn(kube::Client, Option<&str>) -> Api<K> + Send + Sync + 'static,
    ) -> SharedInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    {
        let watched = api(self.client.clone(), self.options.namespace.as_deref());
        let key = (watched.resource_url().to_owned(), TypeId::of::<K>());
        let mut entries = lock(&self.entries);
        if let Some(existing) = entries
            .get(&key)
            .and_then(|e| e.informer.as_any().downcast_ref::<SharedInformer<K>>())
        {
            return existing.clone();
        }
        let mut config = match &self.options.tweak {
            Some(tweak) => tweak(watcher::Config::default()),
            None => watcher::Config::default(),
        };
        let mut informer_shard = None;
        if let Some(shard) = &self.options.shard {
            let selector = &shard.selector;
            config.label_selector = Some(match config.label_selector.take() {
                Some(own) => format!("{own},{selector}"),
                None => selector.clone(),
            });
            let client = self.client.clone();
            informer_shard = Some(Arc::new(ShardOf {
                shard: shard.clone(),
                api: Box::new(move |namespace| api(client.clone(), namespace)),
            }));
        }
        let mut informer = SharedInformer::new(
            watched,
            config,
            self.options.resync,
            self.options.meta_transform.clone(),
        );
        informer.shard = informer_shard;
        entries.insert(
            key,
            Entry {
                informer: Arc::new(informer.clone()),
                running: None,
            },
        );
        informer
    }

    /// The informer for any kind `K` (a k8s-openapi one, a CRD's), created on first
    /// request: one watch per kind, however many controllers ask. Watches the factory's
    /// namespace for a namespaced kind, the cluster for a cluster-scoped one.
    pub fn informer<K>(&self) -> SharedInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: ScopedApi,
    {
        self.informer_for::<K>(|client, namespace| K::Scope::api::<K>(client, namespace))
    }

    /// Starts every informer requested so far that is not running yet; calling it again
    /// starts those requested since. They stop on `shutdown` or [`Self::shutdown`].
    /// Needs a Tokio runtime.
    pub fn start(&self, shutdown: &CancellationToken) {
        for entry in lock(&self.entries)
            .values_mut()
            .filter(|e| e.running.is_none())
        {
            // A child token per informer: `shutdown` stops it, and so does the factory,
            // with no task in between.
            let stop = shutdown.child_token();
            let run = entry.informer.run(stop.clone());
            let (resource, failed, stopped) =
                (entry.informer.resource(), self.failed.clone(), stop.clone());
            let task = tokio::spawn(async move {
                let ended = AssertUnwindSafe(run).catch_unwind().await;
                let reason = match ended {
                    Err(panic) => format!("its task panicked: {}", panic_message(&*panic)),
                    Ok(()) if !stopped.is_cancelled() => "its watch ended".to_owned(),
                    Ok(()) => return,
                };
                tracing::error!(%resource, "informer failed: {reason}");
                failed.send_if_modified(|first| {
                    let none_yet = first.is_none();
                    if none_yet {
                        *first = Some(InformerFailure { resource, reason });
                    }
                    none_yet
                });
            });
            entry.running = Some((stop, task));
        }
    }

    /// Waits until a started informer ends before it is stopped (its task panicked:
    /// in a transform, say) and answers the first such failure. Its cache no longer
    /// follows the apiserver, so an operator should stop rather than reconcile from it
    /// (`manager::stop_on_informer_failure` does).
    pub async fn failed(&self) -> InformerFailure {
        let mut failed = self.failed.subscribe();
        if let Ok(first) = failed.wait_for(Option::is_some).await
            && let Some(first) = first.clone()
        {
            return first;
        }
        // The factory holds the sender, so the channel cannot close while `self` lives.
        std::future::pending().await
    }

    /// Waits for every started informer's first list, for at most the cache-sync
    /// timeout: `true` per resource that synced, `false` for one that did not (it
    /// stopped, or the time ran out). Keyed by `plural.version.group`.
    pub async fn wait_for_cache_sync(&self) -> BTreeMap<String, bool> {
        let outcome = self.sync_outcome().await;
        outcome
            .into_iter()
            .map(|(resource, unsynced)| (resource, unsynced.is_none()))
            .collect()
    }

    /// [`Self::wait_for_cache_sync`], as an error naming every resource that did not
    /// sync and its last watch error (a missing CRD, a missing RBAC grant): what an
    /// operator exits on.
    ///
    /// # Errors
    ///
    /// [`CacheSyncError`] when a cache did not sync within the factory's timeout.
    pub async fn ensure_cache_sync(&self) -> Result<(), CacheSyncError> {
        let unsynced: Vec<Unsynced> = self.sync_outcome().await.into_values().flatten().collect();
        match unsynced.is_empty() {
            true => Ok(()),
            false => Err(CacheSyncError {
                timeout: self.options.cache_sync_timeout,
                unsynced,
            }),
        }
    }

    /// Each started resource, with what kept it from syncing (`None` once synced). An
    /// informer that fails cuts the wait short: the operator is to stop anyway.
    async fn sync_outcome(&self) -> BTreeMap<String, Option<Unsynced>> {
        let started: Vec<Arc<dyn Started>> = lock(&self.entries)
            .values()
            .filter(|e| e.running.is_some())
            .map(|e| e.informer.clone())
            .collect();
        let deadline = tokio::time::Instant::now() + self.options.cache_sync_timeout;
        let failed = self.failed();
        tokio::pin!(failed);
        let mut failure = None;
        let mut out = BTreeMap::new();
        for informer in started {
            let synced = match failure {
                Some(_) => informer.synced(),
                None => tokio::select! {
                    synced = tokio::time::timeout_at(deadline, informer.wait()) => synced.unwrap_or(false),
                    first = &mut failed => {
                        failure = Some(first);
                        informer.synced()
                    }
                },
            };
            let resource = informer.resource();
            let unsynced = (!synced).then(|| Unsynced {
                failure: match &failure {
                    Some(f) if f.resource == resource => Some(f.reason.clone()),
                    _ => None,
                },
                resource: resource.clone(),
                last_error: informer.last_error(),
            });
            out.insert(resource, unsynced);
        }
        out
    }

    /// Stops every informer and waits for it to end, its handlers included.
    pub async fn shutdown(&self) {
        let running: Vec<(CancellationToken, JoinHandle<()>)> = lock(&self.entries)
            .values_mut()
            .filter_map(|e| e.running.take())
            .collect();
        for (stop, _) in &running {
            stop.cancel();
        }
        for (_, task) in running {
            let _ = task.await;
        }
    }
}

/// An informer that ended while it should have run on: its cache is frozen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InformerFailure {
    /// `plural.version.group`.
    pub resource: String,
    /// Why it ended.
    pub reason: String,
}

impl fmt::Display for InformerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} informer stopped: {}; its cache no longer follows the apiserver",
            self.resource, self.reason
        )
    }
}

impl std::error::Error for InformerFailure {}

/// Caches that did not sync in time, each with its last watch error.
#[derive(Debug)]
pub struct CacheSyncError {
    /// How long the wait lasted.
    pub timeout: Duration,
    /// The informers whose caches had not filled by then.
    pub unsynced: Vec<Unsynced>,
}

/// A resource whose cache did not sync.
#[derive(Debug)]
pub struct Unsynced {
    /// `plural.version.group`.
    pub resource: String,
    /// The last error its watch met, if any.
    pub last_error: Option<WatchError>,
    /// Why its informer stopped, when it did (its task panicked): the wait was cut short.
    pub failure: Option<String>,
}

impl fmt::Display for CacheSyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.unsynced.iter().any(|u| u.failure.is_some()) {
            true => write!(f, "caches did not sync, an informer failed:")?,
            false => write!(
                f,
                "caches did not sync within {}s:",
                self.timeout.as_secs_f64()
            )?,
        }
        for unsynced in &self.unsynced {
            write!(f, "\n  {}: ", unsynced.resource)?;
            match (&unsynced.failure, &unsynced.last_error) {
                (Some(failure), _) => write!(f, "the informer stopped: {failure}")?,
                (None, Some(error)) => write!(f, "{error}")?,
                (None, None) => write!(f, "no watch error; the first list did not complete")?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for CacheSyncError {}

/// How a kind of this scope is listed and watched: within a namespace when the factory
/// has one and the kind is namespaced, cluster-wide otherwise.
pub trait ScopedApi {
    /// The `Api` for `K` in `namespace` (or cluster-wide).
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: kube::Client,
        namespace: Option<&str>,
    ) -> Api<K>;
}

impl ScopedApi for kube::core::NamespaceResourceScope {
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: kube::Client,
        namespace: Option<&str>,
    ) -> Api<K> {
        match namespace {
            Some(namespace) => Api::namespaced(client, namespace),
            None => Api::all(client),
        }
    }
}

impl ScopedApi for kube::core::ClusterResourceScope {
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: kube::Client,
        _: Option<&str>,
    ) -> Api<K> {
        Api::all(client)
    }
}
