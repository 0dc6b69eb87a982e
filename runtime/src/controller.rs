//! The controller client-go operators are written as: it owns a rate-limited work
//! queue fed by informer events, runs N workers until shutdown, and leaves only
//! `sync(key)` to write.
//!
//! Each worker loops on `process_next_work_item`: take a key, call `sync` with it read
//! back ([`ObjectKey`]), then
//! - `Ok(Action::Done)`: `forget` (reset its backoff);
//! - `Ok(Action::RequeueAfter(d))`: a success that asks to be synced again after `d`
//!   (the next cron run): `forget`, then requeue after `d`, as controller-runtime's
//!   `Result{RequeueAfter: d}` and kube-runtime's `Action::requeue(d)`;
//! - [`SyncError::Requeue`]: rate-limited requeue;
//! - [`SyncError::Ignore`]: logged at debug level and dropped;
//! - any other error: logged and rate-limited requeue;
//! - a panic: caught, logged and requeued; the worker lives on;
//! - always `done`; the queue never hands one key to two workers.
//!
//! Each sync is measured with controller-runtime's metric names, labelled by
//! controller: `controller_runtime_reconcile_total` (by `result`: success, error,
//! requeue, requeue_after), `controller_runtime_reconcile_errors_total`,
//! `controller_runtime_terminal_reconcile_errors_total` (ignored errors),
//! `controller_runtime_reconcile_panics_total`, `controller_runtime_reconcile_time_seconds`,
//! `controller_runtime_active_workers` and `controller_runtime_max_concurrent_reconciles`,
//! each resolved once when the controller is made: install the recorder first.

use std::collections::BTreeMap;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use kube::Resource;
use tokio_util::sync::CancellationToken;

pub use crate::cache::ObjectKey;
use crate::cache::key_of;
use crate::informer::{HandlerFns, Informed};
use crate::leaderelection::Term;
use crate::workqueue::WorkQueue;

type BoxError = Box<dyn StdError + Send + Sync>;

/// What a successful sync asks for next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Nothing until the object changes again.
    #[default]
    Done,
    /// Sync it again after this long (a schedule, an external state to poll).
    RequeueAfter(Duration),
}

/// How a failed sync is handled.
#[derive(Debug)]
pub enum SyncError {
    /// Retry with the queue's backoff.
    Requeue(BoxError),
    /// Not worth retrying (logged at debug level).
    Ignore(BoxError),
    /// Anything else: logged, and retried with backoff.
    Other(BoxError),
}

impl SyncError {
    /// An error after which the key is queued again with backoff, without being logged as a failure.
    pub fn requeue(e: impl Into<BoxError>) -> Self {
        SyncError::Requeue(e.into())
    }

    /// An error the key is dropped on: retrying would not help (an invalid spec).
    pub fn ignore(e: impl Into<BoxError>) -> Self {
        SyncError::Ignore(e.into())
    }
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncError::Requeue(e) => write!(f, "requeue: {e}"),
            SyncError::Ignore(e) => write!(f, "ignored: {e}"),
            SyncError::Other(e) => write!(f, "{e}"),
        }
    }
}

/// Any error `?` meets in a sync: every `std::error::Error`, `anyhow::Error` (which
/// converts to a boxed error), and a message (`String`, `&str`).
impl<E: Into<BoxError>> From<E> for SyncError {
    fn from(e: E) -> Self {
        SyncError::Other(e.into())
    }
}

/// The one thing an operator author writes: bring the object `key` names to its
/// desired state, and say whether to come back.
///
/// ```
/// use std::time::Duration;
/// use crdgen_runtime::controller::{Action, ObjectKey, SyncError, SyncHandler};
///
/// struct Greeter;
///
/// impl SyncHandler for Greeter {
///     async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
///         if key.name.is_empty() {
///             // Retrying would not help: dropped, not retried.
///             return Err(SyncError::ignore("a key without a name"));
///         }
///         // `?` on any error retries the key with backoff.
///         let greeting: u32 = "42".parse()?;
///         assert_eq!(greeting, 42);
///         Ok(Action::RequeueAfter(Duration::from_secs(60)))
///     }
/// }
/// # let answer = futures_util::FutureExt::now_or_never(Greeter.sync(ObjectKey::parse("default/a")));
/// # assert!(matches!(answer, Some(Ok(Action::RequeueAfter(_)))));
/// ```
pub trait SyncHandler: Send + Sync + 'static {
    /// Brings the object `key` names to its desired state; the answer says whether and when to come back.
    fn sync(&self, key: ObjectKey<'_>) -> impl Future<Output = Result<Action, SyncError>> + Send;
}

impl<S: SyncHandler> SyncHandler for Arc<S> {
    fn sync(&self, key: ObjectKey<'_>) -> impl Future<Output = Result<Action, SyncError>> + Send {
        (**self).sync(key)
    }
}

/// A controller: runs `workers` workers until `shutdown`.
pub trait Controller: Send + Sync {
    /// Runs `workers` workers until `shutdown` is cancelled, then lets them finish.
    fn run(&self, workers: usize, shutdown: CancellationToken) -> impl Future<Output = ()> + Send;
}

/// What a controller asks of an informer factory: start every informer, then wait for
/// every cache. (Named apart from [`crate::informer::InformerFactory`], the struct that
/// implements it.)
pub trait StartInformers: Send + Sync {
    /// Starts every informer; each stops when `shutdown` is cancelled.
    fn start(&self, shutdown: &CancellationToken);
    /// Waits for every started informer's first list: each resource with whether its cache filled.
    fn wait_for_cache_sync(&self) -> impl Future<Output = BTreeMap<String, bool>> + Send;
}

impl StartInformers for crate::informer::InformerFactory {
    fn start(&self, shutdown: &CancellationToken) {
        crate::informer::InformerFactory::start(self, shutdown);
    }

    fn wait_for_cache_sync(&self) -> impl Future<Output = BTreeMap<String, bool>> + Send {
        crate::informer::InformerFactory::wait_for_cache_sync(self)
    }
}

/// A controller's reconcile metrics, resolved once: a lookup by name and labels per
/// sync would cost more than the counting (as in the work queue).
struct ReconcileMetrics {
    success: metrics::Counter,
    error: metrics::Counter,
    requeue: metrics::Counter,
    requeue_after: metrics::Counter,
    errors: metrics::Counter,
    terminal_errors: metrics::Counter,
    panics: metrics::Counter,
    time: metrics::Histogram,
    active_workers: metrics::Gauge,
    max_concurrent: metrics::Gauge,
}

impl ReconcileMetrics {
    fn new(controller: &str) -> Self {
        let labels = [("controller", controller.to_owned())];
        let total = |result: &'static str| {
            metrics::counter!(
                "controller_runtime_reconcile_total",
                "controller" => controller.to_owned(),
                "result" => result,
            )
        };
        ReconcileMetrics {
            success: total("success"),
            error: total("error"),
            requeue: total("requeue"),
            requeue_after: total("requeue_after"),
            errors: metrics::counter!("controller_runtime_reconcile_errors_total", &labels),
            terminal_errors: metrics::counter!(
                "controller_runtime_terminal_reconcile_errors_total",
                &labels
            ),
            panics: metrics::counter!("controller_runtime_reconcile_panics_total", &labels),
            time: metrics::histogram!("controller_runtime_reconcile_time_seconds", &labels),
            active_workers: metrics::gauge!("controller_runtime_active_workers", &labels),
            max_concurrent: metrics::gauge!(
                "controller_runtime_max_concurrent_reconciles",
                &labels
            ),
        }
    }
}

/// What a worker needs, shared by the controller's workers.
struct Worker<S> {
    name: String,
    queue: WorkQueue<String>,
    handler: Arc<S>,
    metrics: ReconcileMetrics,
    gate: std::sync::OnceLock<Box<dyn Gate>>,
}

/// What a key passes before its sync (a sharded controller's: only its shard's
/// objects, drained ones let go): `None` to sync it, or the outcome that stands for it.
trait Gate: Send + Sync {
    fn admit<'a>(
        &'a self,
        key: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Option<Result<Action, SyncError>>>;
}

/// The gate of a controller whose primary informer watches a shard.
struct ShardGate<K> {
    store: crate::cache::Store<K>,
    shard: Arc<crate::informer::ShardOf<K>>,
}

impl<K: Informed> Gate for ShardGate<K> {
    fn admit<'a>(
        &'a self,
        key: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Option<Result<Action, SyncError>>> {
        use crate::informer::Admission;
        Box::pin(async move {
            match self.shard.admit(&self.store, key).await {
                Admission::Sync => None,
                Admission::Absent => Some(Ok(Action::Done)),
                Admission::Released(outcome) => {
                    Some(outcome.map(|()| Action::Done).map_err(Into::into))
                }
            }
        })
    }
}

/// A controller around a [`SyncHandler`], with client-go's default rate limiter.
pub struct QueueController<S> {
    worker: Arc<Worker<S>>,
    /// How long in-flight syncs may run after shutdown before `run` returns anyway.
    drain_deadline: Duration,
}

impl<S: SyncHandler> QueueController<S> {
    /// A controller named `name` (its queue's and its metrics' name) around `handler`, with client-go's default rate-limited queue.
    pub fn new(name: &str, handler: S) -> Self {
        Self::with_queue(name, WorkQueue::new(name), handler)
    }

    /// As [`QueueController::new`], on a queue of your own (another rate limiter, say).
    pub fn with_queue(name: &str, queue: WorkQueue<String>, handler: S) -> Self {
        QueueController {
            worker: Arc::new(Worker {
                name: name.to_owned(),
                queue,
                handler: Arc::new(handler),
                metrics: ReconcileMetrics::new(name),
                gate: std::sync::OnceLock::new(),
            }),
            drain_deadline: Duration::from_secs(30),
        }
    }

    /// How long in-flight syncs may finish after shutdown (default 30 s).
    pub fn drain_deadline(mut self, deadline: Duration) -> Self {
        self.drain_deadline = deadline;
        self
    }

    /// The queue informer handlers add keys to.
    pub fn queue(&self) -> &WorkQueue<String> {
        &self.worker.queue
    }

    /// The sync it runs, e.g. to wrap it in tests.
    pub fn handler(&self) -> &Arc<S> {
        &self.worker.handler
    }

    /// Takes one key and syncs it; `false` once the queue has shut down.
    pub async fn process_next_work_item(&self) -> bool {
        self.worker.process_next_work_item().await
    }
}

impl<S: SyncHandler> Worker<S> {
    async fn process_next_work_item(&self) -> bool {
        let Some(key) = self.queue.get().await else {
            return false;
        };
        self.sync(&key).await;
        self.queue.done(&key);
        true
    }

    /// Takes keys until the queue shuts down, marking each done and taking the next
    /// in one step of the queue. Under a `term`, no sync starts once it no longer
    /// leads: the key is left to the next leader, whose informers list it again.
    async fn run(&self, term: Option<&Term>) {
        let mut next = self.queue.get().await;
        while let Some(key) = next {
            if term.is_some_and(|term| !term.is_leading()) {
                return;
            }
            self.sync(&key).await;
            next = self.queue.done_then_get(&key).await;
        }
    }

    /// Syncs `key` and queues it again as the outcome asks; the caller marks it done.
    async fn sync(&self, key: &String) {
        let (name, queue, metrics) = (self.name.as_str(), &self.queue, &self.metrics);
        metrics.active_workers.increment(1.0);
        let started = tokio::time::Instant::now();
        let gated = match self.gate.get() {
            Some(gate) => gate.admit(key).await,
            None => None,
        };
        let outcome = match gated {
            Some(outcome) => Ok(outcome),
            None => {
                AssertUnwindSafe(self.handler.sync(ObjectKey::parse(key)))
                    .catch_unwind()
                    .await
            }
        };
        metrics.time.record(started.elapsed().as_secs_f64());
        metrics.active_workers.decrement(1.0);
        // The `result` counter, and whether it counts as an error too.
        let (result, failed) = match outcome {
            Ok(Ok(Action::Done)) => {
                queue.forget(key);
                (&metrics.success, false)
            }
            // A chosen delay is not a failure: the backoff starts over, as in
            // controller-runtime (`Forget`, then `AddAfter`), counted as `requeue_after`.
            Ok(Ok(Action::RequeueAfter(delay))) => {
                queue.forget(key);
                queue.add_after(key.clone(), delay);
                (&metrics.requeue_after, false)
            }
            Ok(Err(SyncError::Requeue(e))) => {
                tracing::debug!(controller = name, key, error = %e, "requeue");
                queue.add_rate_limited(key.clone());
                (&metrics.requeue, false)
            }
            // controller-runtime's terminal error: counted as an error, not retried.
            Ok(Err(SyncError::Ignore(e))) => {
                tracing::debug!(controller = name, key, error = %e, "ignored error");
                queue.forget(key);
                metrics.terminal_errors.increment(1);
                (&metrics.error, true)
            }
            Ok(Err(SyncError::Other(e))) => {
                tracing::error!(controller = name, key, error = %e, "sync failed, requeuing");
                queue.add_rate_limited(key.clone());
                (&metrics.error, true)
            }
            Err(_) => {
                tracing::error!(controller = name, key, "sync panicked, requeuing");
                queue.add_rate_limited(key.clone());
                metrics.panics.increment(1);
                (&metrics.error, true)
            }
        };
        result.increment(1);
        if failed {
            metrics.errors.increment(1);
        }
    }
}

impl<S: SyncHandler> QueueController<S> {
    /// Runs `workers` workers for one term of leadership (see [`Term`]): until it
    /// stops on shutdown, draining as [`Controller::run`] does; when the lease is lost,
    /// at once: no sync starts past the term's renew deadline, in-flight ones are
    /// cancelled, and it returns.
    pub async fn run_leading(&self, workers: usize, term: &Term) {
        self.run_until(workers, term.stopping(), Some(term)).await;
    }

    async fn run_until(&self, workers: usize, stopping: &CancellationToken, term: Option<&Term>) {
        let name = &self.worker.name;
        tracing::info!(controller = %name, workers, "starting controller");
        let workers = workers.max(1);
        self.worker.metrics.max_concurrent.set(workers as f64);
        // Dropping the set (this future dropped) aborts the workers too.
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let (worker, term) = (self.worker.clone(), term.cloned());
            tasks.spawn(async move { worker.run(term.as_ref()).await });
        }
        let lost = async {
            match term {
                Some(term) => term.lost().cancelled().await,
                None => std::future::pending().await,
            }
        };
        let drain = async {
            stopping.cancelled().await;
            self.worker.queue.shut_down();
            let all = async { while tasks.join_next().await.is_some() {} };
            tokio::time::timeout(self.drain_deadline, all).await.is_ok()
        };
        // A loss ends the drain too.
        let drained = tokio::select! {
            biased;
            () = lost => false,
            drained = drain => drained,
        };
        if !drained {
            // Past the deadline, or the lease is gone: the syncs are cancelled (dropped
            // at their next await), so that none runs on after `run` has returned.
            if term.is_some_and(|t| t.lost().is_cancelled()) {
                tracing::warn!(controller = %name, "the leader lease was lost: in-flight syncs cancelled");
            } else {
                tracing::warn!(controller = %name, "in-flight syncs did not finish before the deadline: cancelled");
            }
            self.worker.queue.shut_down();
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        tracing::info!(controller = %name, "shut down controller");
    }
}

impl<S: SyncHandler> Controller for QueueController<S> {
    /// Starts `workers` workers and blocks until `shutdown`; then stops taking keys and
    /// lets in-flight syncs finish, for at most the drain deadline.
    async fn run(&self, workers: usize, shutdown: CancellationToken) {
        self.run_until(workers, &shutdown, None).await;
    }
}

/// An event handler that queues `namespace/name` of every added, updated or deleted
/// object.
pub fn enqueue<K: Resource + Send + Sync + 'static>(queue: &WorkQueue<String>) -> HandlerFns<K> {
    let (a, u, d) = (queue.clone(), queue.clone(), queue.clone());
    HandlerFns::new()
        .on_add(move |o: &Arc<K>| a.add(key_of(o.as_ref())))
        .on_update(move |_, n: &Arc<K>| u.add(key_of(n.as_ref())))
        .on_delete(move |o: &Arc<K>| d.add(key_of(o.as_ref())))
}

/// An event handler for owned objects that queues the key of their `Owner` through
/// *every* owner reference of `Owner`'s kind (controller-runtime's
/// `EnqueueRequestForOwner` without `OnlyControllerOwner`); owners share the owned
/// object's namespace unless cluster-scoped. [`enqueue_controller`] follows only the
/// controller reference, as `Owns` does.
pub fn enqueue_owner<K, Owner>(queue: &WorkQueue<String>) -> HandlerFns<K>
where
    K: Resource + Send + Sync + 'static,
    Owner: Resource<DynamicType = ()>,
    Owner::Scope: 'static,
{
    enqueue_references::<K, Owner>(queue, false)
}

/// An event handler for owned objects that queues the key of their controller, when it
/// is an `Owner`: what controller-runtime's `Owns` watches by default.
pub fn enqueue_controller<K, Owner>(queue: &WorkQueue<String>) -> HandlerFns<K>
where
    K: Resource + Send + Sync + 'static,
    Owner: Resource<DynamicType = ()>,
    Owner::Scope: 'static,
{
    enqueue_references::<K, Owner>(queue, true)
}

/// The keys of an object's owners of `Owner`'s kind (its controller only, when
/// `controller_only`): group and kind matched, not the version, as controller-runtime
/// matches them (a reference written by a v1alpha1 client names the same owner as one
/// written by v1beta1's).
pub fn owner_keys<K, Owner>(object: &K, controller_only: bool) -> Vec<String>
where
    K: Resource,
    Owner: Resource<DynamicType = ()>,
    Owner::Scope: 'static,
{
    let namespaced = std::any::TypeId::of::<Owner::Scope>()
        == std::any::TypeId::of::<kube::core::NamespaceResourceScope>();
    let (kind, group) = (Owner::kind(&()), Owner::group(&()));
    let meta = object.meta();
    meta.owner_references
        .iter()
        .flatten()
        .filter(|r| !controller_only || r.controller == Some(true))
        .filter(|r| r.kind == kind && crdgen_apimachinery::group_of(&r.api_version) == group)
        .map(|r| match (&meta.namespace, namespaced) {
            (Some(ns), true) => format!("{ns}/{}", r.name),
            _ => r.name.clone(),
        })
        .collect()
}

fn enqueue_references<K, Owner>(queue: &WorkQueue<String>, controller_only: bool) -> HandlerFns<K>
where
    K: Resource + Send + Sync + 'static,
    Owner: Resource<DynamicType = ()>,
    Owner::Scope: 'static,
{
    enqueue_mapped(queue, move |object: &K| {
        owner_keys::<K, Owner>(object, controller_only)
    })
}

/// An event handler that queues the keys `map` gives for each added, updated (old and
/// new) or deleted object: controller-runtime's `EnqueueRequestsFromMapFunc`.
pub fn enqueue_mapped<K, F>(queue: &WorkQueue<String>, map: F) -> HandlerFns<K>
where
    K: Send + Sync + 'static,
    F: Fn(&K) -> Vec<String> + Send + Sync + 'static,
{
    let map = Arc::new(map);
    let (a, u, d) = (queue.clone(), queue.clone(), queue.clone());
    let (ma, mu, md) = (map.clone(), map.clone(), map);
    HandlerFns::new()
        .on_add(move |o: &Arc<K>| ma(o).into_iter().for_each(|k| a.add(k)))
        .on_update(move |old: &Arc<K>, new: &Arc<K>| {
            mu(old).into_iter().chain(mu(new)).for_each(|k| u.add(k))
        })
        .on_delete(move |o: &Arc<K>| md(o).into_iter().for_each(|k| d.add(k)))
}

/// The index [`ControllerBuilder::owns`] gives an owned kind's cache: each object under
/// the key (`namespace/name`) of its controller of `Owner`'s kind, so that a sync finds
/// what it owns with `store.by_index(&owner_index::<CronJob>(), &key.to_string())`.
pub fn owner_index<Owner: Resource<DynamicType = ()>>() -> String {
    format!(
        "crdgen.dev/controller:{}.{}",
        Owner::kind(&()),
        Owner::group(&())
    )
}

/// controller-runtime's builder: `For` the primary kind, `Owns` what it controls,
/// `Watches` anything else through a map to primary keys, each on a shared informer (one
/// watch per kind however many controllers ask: take them from the factory).
///
/// A controller of CronJobs that owns Jobs, on the factory's informers (a generated
/// factory hands out its kinds' the same way: `factory.batch().v1().cron_jobs()`):
///
/// ```no_run
/// use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
/// use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
/// use k8s_openapi::api::batch::v1::{CronJob, Job};
///
/// struct CronJobSync;
///
/// impl SyncHandler for CronJobSync {
///     async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
///         // Find the CronJob's Jobs with the index `owns` adds:
///         // `jobs.by_index(&owner_index::<CronJob>(), &key.to_string())`.
///         Ok(Action::Done)
///     }
/// }
///
/// # async fn run(client: kube::Client) {
/// let factory = InformerFactory::new(client, FactoryOptions::default());
/// let controller = QueueController::builder::<CronJob>("cronjobs", CronJobSync)
///     .for_kind(&factory.informer::<CronJob>())
///     .owns(&factory.informer::<Job>())
///     .build();
/// # }
/// ```
pub struct ControllerBuilder<S, Primary> {
    controller: QueueController<S>,
    primary: std::marker::PhantomData<fn() -> Primary>,
}

impl<S: SyncHandler> QueueController<S> {
    /// A builder of a controller named `name` around `sync` ([`ControllerBuilder`]).
    pub fn builder<Primary>(name: &str, sync: S) -> ControllerBuilder<S, Primary> {
        ControllerBuilder {
            controller: QueueController::new(name, sync),
            primary: std::marker::PhantomData,
        }
    }
}

impl<S, Primary> ControllerBuilder<S, Primary>
where
    S: SyncHandler,
    Primary: Resource<DynamicType = ()> + Send + Sync + 'static,
    Primary::Scope: 'static,
{
    /// Queues every change of the primary kind (`For`). On an informer of a sharded
    /// factory ([`FactoryOptions::shard`](crate::informer::FactoryOptions::shard)), the
    /// sync runs only on the objects of the shard, and a drained one is let go instead.
    #[must_use]
    pub fn for_kind(self, informer: &crate::informer::SharedInformer<Primary>) -> Self
    where
        Primary: Clone + serde::de::DeserializeOwned + fmt::Debug,
    {
        informer.add_event_handler(enqueue::<Primary>(self.controller.queue()));
        if let Some(shard) = &informer.shard {
            let gate = ShardGate {
                store: informer.store().clone(),
                shard: shard.clone(),
            };
            // A second sharded `for_kind` finds the first one's gate: the primary kind
            // has one informer per factory, so it is the same.
            let _ = self.controller.worker.gate.set(Box::new(gate));
        }
        self
    }

    /// Queues the controller of every changed `K` that a `Primary` controls (`Owns`:
    /// the controller reference only), and indexes `K`'s cache by it ([`owner_index`]).
    #[must_use]
    pub fn owns<K>(self, informer: &crate::informer::SharedInformer<K>) -> Self
    where
        K: Informed,
    {
        // A second controller owning `K` through this informer finds the index the first
        // added, under the same name with the same function: the conflict is that one.
        let _already_indexed = informer.add_index(&owner_index::<Primary>(), |o: &K| {
            owner_keys::<K, Primary>(o, true)
        });
        informer.add_event_handler(enqueue_controller::<K, Primary>(self.controller.queue()));
        self
    }

    /// Queues the primary keys `map` gives for every changed `K` (`Watches`).
    #[must_use]
    pub fn watches<K, F>(self, informer: &crate::informer::SharedInformer<K>, map: F) -> Self
    where
        K: Informed,
        F: Fn(&K) -> Vec<String> + Send + Sync + 'static,
    {
        informer.add_event_handler(enqueue_mapped(self.controller.queue(), map));
        self
    }

    /// The controller, its handlers registered on the informers.
    pub fn build(self) -> QueueController<S> {
        self.controller
    }
}

/// Cancels `shutdown` on SIGTERM or Ctrl-C (SIGINT), as a graceful shutdown starts.
pub fn cancel_on_signal(shutdown: &CancellationToken) {
    let token = shutdown.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(term) => term,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot listen for SIGTERM; Ctrl-C only");
                        let _ = ctrl_c.await;
                        token.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutdown signal received");
        token.cancel();
    });
}
