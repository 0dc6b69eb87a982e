//! client-go's rate-limited work queue:
//! - an item added many times before it is taken is handed out once;
//! - an item is never handed to two workers at once: added while being processed, it is
//!   handed out again after `done`;
//! - `add_after` and `add_rate_limited` delay an add; `forget` resets its backoff;
//! - `shut_down` hands out what is queued, then `None`; `shut_down_with_drain` also waits
//!   for items being processed.
//!
//! `done_then_get` is a worker loop's step in one: it saves a lock round trip and a
//! clock read per item, the costs that dominate a queue whose workers keep up.
//!
//! Metrics go through the `metrics` facade, with client-go's names and a `name` label:
//! `workqueue_depth`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
//! `workqueue_work_duration_seconds`, `workqueue_retries_total`,
//! `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`
//! (these two refreshed every 500 ms while items are processed). Metric handles are
//! resolved once, when the queue is made: install the recorder before making queues.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::{BuildHasher, Hash};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::ratelimit::{RateLimiter, default_controller_rate_limiter};

/// How many times `get` looks at an empty queue again before it parks.
const GET_SPINS: u32 = 16;

/// How often the unfinished-work gauges are refreshed (client-go's period).
const UNFINISHED_WORK_REFRESH: Duration = Duration::from_millis(500);

/// Hash maps with foldhash: keys are object keys, hashed on every operation, where
/// SipHash's cost showed in profiles; foldhash is seeded per map, so keys chosen to
/// collide are no cheaper to find than with SipHash's random keys.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the queue knows of an item that is queued, being processed, or both (client-go
/// keeps a dirty set and a processing set; one entry costs one hash lookup per step).
struct Entry {
    /// Waiting to be handed out: queued, or added again while being processed.
    dirty: bool,
    /// When it was added, while dirty: for the queue-duration metric.
    added: Instant,
    /// When a worker took it, while it is being processed.
    processing: Option<Instant>,
}

struct State<T> {
    /// Queued items with their hashes (computed once, outside the lock).
    queue: VecDeque<(u64, T)>,
    /// Each item with what the queue knows of it, found by a hash computed before the
    /// lock is taken: the lock covers the table probe, not the hashing.
    items: hashbrown::HashTable<(T, Entry)>,
    /// How many items are being processed.
    processing: usize,
    /// The ready time of each delayed item: a later add_after waits for the earlier one.
    waiting: Map<T, Instant>,
    /// Delayed adds by ready time (and a sequence number, which names the item in
    /// `delayed`): what the one delay loop of the queue waits on.
    delays: BinaryHeap<Reverse<(Instant, u64)>>,
    delayed: Map<u64, T>,
    next_delay: u64,
    /// Whether the delay loop runs (it ends when no delay is left).
    delay_loop: bool,
    /// Whether the loop refreshing the unfinished-work gauges runs (while items are
    /// being processed).
    unfinished_loop: bool,
    shutting_down: bool,
}

/// What a getter found at the front of the queue.
enum Take<T> {
    /// The item, how long it waited, and the depth left behind it.
    Item(T, Duration, usize),
    Empty,
    ShutDown,
}

/// What `done` did under the lock, for what it records and wakes after it.
struct Finished<T> {
    worked: Duration,
    requeued: bool,
    depth: usize,
    drained: bool,
    /// The table's copy of the item, dropped outside the lock.
    removed: Option<T>,
}

/// The queue's metrics, resolved once: a lookup by name and labels per operation cost
/// more than the operation. As in client-go, a queue records to the recorder installed
/// when it was made (install it first).
struct Metrics {
    adds: metrics::Counter,
    depth: metrics::Gauge,
    queue_duration: metrics::Histogram,
    work_duration: metrics::Histogram,
    retries: metrics::Counter,
    unfinished: metrics::Gauge,
    longest: metrics::Gauge,
}

impl Metrics {
    fn new(name: &str) -> Self {
        let labels = [("name", name.to_owned())];
        Metrics {
            adds: metrics::counter!("workqueue_adds_total", &labels),
            depth: metrics::gauge!("workqueue_depth", &labels),
            queue_duration: metrics::histogram!("workqueue_queue_duration_seconds", &labels),
            work_duration: metrics::histogram!("workqueue_work_duration_seconds", &labels),
            retries: metrics::counter!("workqueue_retries_total", &labels),
            unfinished: metrics::gauge!("workqueue_unfinished_work_seconds", &labels),
            longest: metrics::gauge!("workqueue_longest_running_processor_seconds", &labels),
        }
    }
}

struct Inner<T> {
    metrics: Metrics,
    hasher: foldhash::fast::RandomState,
    state: Mutex<State<T>>,
    /// Wakes getters when an item is queued or the queue shuts down.
    ready: Notify,
    /// Wakes `shut_down_with_drain` when processing items finish.
    drained: Notify,
    /// Wakes the delay loop when an earlier delay is added or the queue shuts down.
    delays_changed: Notify,
    rate_limiter: Box<dyn RateLimiter<T>>,
}

/// A rate-limited work queue. Cloning gives another handle to the same queue.
///
/// An item is handed to one worker at a time: added again while it is being processed,
/// it is processed again once `done` says the first run finished.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use crdgen_runtime::workqueue::WorkQueue;
///
/// let queue = WorkQueue::new("examples");
/// queue.add("default/a".to_owned());
/// queue.add("default/a".to_owned()); // deduplicated: queued once
/// let key = queue.get().await.unwrap();
/// assert_eq!(key, "default/a");
/// queue.add(key.clone()); // while processing: runs again after `done`
/// assert_eq!(queue.len(), 0);
/// queue.done(&key);
/// assert_eq!(queue.len(), 1);
/// # }
/// ```
pub struct WorkQueue<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for WorkQueue<T> {
    fn clone(&self) -> Self {
        WorkQueue {
            inner: self.inner.clone(),
        }
    }
}

impl<T> WorkQueue<T>
where
    T: Clone + Eq + Hash + Debug + Send + Sync + 'static,
{
    /// A queue named `name` (for metrics and logs) with client-go's default controller
    /// rate limiter.
    pub fn new(name: &str) -> Self {
        Self::with_rate_limiter(name, default_controller_rate_limiter())
    }

    /// A queue named `name` that waits as `rate_limiter` says before re-adding a failed item.
    pub fn with_rate_limiter(name: &str, rate_limiter: impl RateLimiter<T> + 'static) -> Self {
        WorkQueue {
            inner: Arc::new(Inner {
                metrics: Metrics::new(name),
                hasher: foldhash::fast::RandomState::default(),
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    items: hashbrown::HashTable::new(),
                    processing: 0,
                    waiting: Map::default(),
                    delays: BinaryHeap::new(),
                    delayed: Map::default(),
                    next_delay: 0,
                    delay_loop: false,
                    unfinished_loop: false,
                    shutting_down: false,
                }),
                ready: Notify::new(),
                drained: Notify::new(),
                delays_changed: Notify::new(),
                rate_limiter: Box::new(rate_limiter),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        crate::panics::lock(&self.inner.state)
    }

    fn hash(&self, item: &T) -> u64 {
        self.inner.hasher.hash_one(item)
    }

    /// Queues `item` unless it is queued already (or the queue is shutting down).
    pub fn add(&self, item: T) {
        let now = Instant::now();
        let hash = self.hash(&item);
        // The table's copy, made before the lock (and dropped after it when not needed).
        let mut copy = Some(item.clone());
        let mut guard = self.state();
        let state = &mut *guard;
        if state.shutting_down {
            return;
        }
        let hasher = |(item, _): &(T, Entry)| self.hash(item);
        let depth = match state.items.entry(hash, |(known, _)| *known == item, hasher) {
            hashbrown::hash_table::Entry::Occupied(entry) => {
                let entry = &mut entry.into_mut().1;
                if entry.dirty {
                    return;
                }
                // Being processed: handed out again when its worker calls `done`.
                entry.dirty = true;
                entry.added = now;
                None
            }
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                let entry = Entry {
                    dirty: true,
                    added: now,
                    processing: None,
                };
                vacant.insert((copy.take().unwrap_or_else(|| item.clone()), entry));
                state.queue.push_back((hash, item));
                Some(state.queue.len())
            }
        };
        drop(guard);
        drop(copy);
        // Recorded outside the lock, which workers and other adders wait on.
        self.inner.metrics.adds.increment(1);
        if let Some(depth) = depth {
            self.inner.metrics.depth.set(depth as f64);
            self.inner.ready.notify_one();
        }
    }

    /// Queues `item` after `delay`; an earlier pending delay for it wins.
    pub fn add_after(&self, item: T, delay: Duration) {
        if delay.is_zero() {
            return self.add(item);
        }
        let at = Instant::now() + delay;
        {
            let mut state = self.state();
            if state.shutting_down
                || state
                    .waiting
                    .get(&item)
                    .is_some_and(|earlier| *earlier <= at)
            {
                return;
            }
            state.waiting.insert(item.clone(), at);
            let seq = state.next_delay;
            state.next_delay += 1;
            state.delays.push(Reverse((at, seq)));
            state.delayed.insert(seq, item);
            if !std::mem::replace(&mut state.delay_loop, true) {
                // One loop per queue, not a task per delayed item.
                tokio::spawn(self.clone().delay_loop());
                return;
            }
            if state.delays.peek() != Some(&Reverse((at, seq))) {
                return;
            }
        }
        // The loop sleeps until a later time: wake it for this one.
        self.inner.delays_changed.notify_one();
    }

    /// Adds delayed items when they are due, until no delay is left or the queue shuts
    /// down. A later `add_after` of an item waiting already leaves the earlier time.
    async fn delay_loop(self) {
        loop {
            let changed = self.inner.delays_changed.notified();
            let (due, next) = {
                let mut state = self.state();
                if state.shutting_down || state.delays.is_empty() {
                    state.delay_loop = false;
                    return;
                }
                let now = Instant::now();
                let mut due = Vec::new();
                while let Some(&Reverse((at, seq))) = state.delays.peek() {
                    if at > now {
                        break;
                    }
                    state.delays.pop();
                    if let Some(item) = state.delayed.remove(&seq)
                        && state.waiting.get(&item) == Some(&at)
                    {
                        state.waiting.remove(&item);
                        due.push(item);
                    }
                }
                (due, state.delays.peek().map(|Reverse((at, _))| *at))
            };
            for item in due {
                self.add(item);
            }
            if let Some(at) = next {
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = changed => {}
                }
            }
        }
    }

    /// Queues `item` after its rate limiter's wait: a retry.
    pub fn add_rate_limited(&self, item: T) {
        self.inner.metrics.retries.increment(1);
        let delay = self.inner.rate_limiter.when(&item);
        self.add_after(item, delay);
    }

    /// Resets `item`'s backoff.
    pub fn forget(&self, item: &T) {
        self.inner.rate_limiter.forget(item);
    }

    /// How many times `item` has been re-queued since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.inner.rate_limiter.num_requeues(item)
    }

    /// The next item, once one is queued; `None` once the queue is shut down and empty.
    /// The caller must call `done` with it.
    pub async fn get(&self) -> Option<T> {
        self.wait_for_next().await
    }

    /// `done(item)`, then `get()`, with one lock and one clock read between them when an
    /// item is queued: a worker loop's step (`let mut next = queue.get().await; while
    /// let Some(item) = next { …; next = queue.done_then_get(&item).await }`).
    pub async fn done_then_get(&self, item: &T) -> Option<T> {
        let now = Instant::now();
        let hash = self.hash(item);
        let (finished, taken) = {
            let mut state = self.state();
            (
                self.finish(&mut state, hash, item, now),
                self.take(&mut state, now),
            )
        };
        self.record_done(finished);
        match taken {
            Take::Item(item, waited, depth) => Some(self.record_taken(item, waited, depth)),
            Take::ShutDown => None,
            Take::Empty => self.wait_for_next().await,
        }
    }

    /// Takes the next item, looking again a few times before parking: under a stream
    /// of adds, waking a parked worker costs more than the item.
    async fn wait_for_next(&self) -> Option<T> {
        let mut spins = 0;
        loop {
            let notified = self.inner.ready.notified();
            let now = Instant::now();
            let taken = {
                let mut state = self.state();
                self.take(&mut state, now)
            };
            match taken {
                Take::Item(item, waited, depth) => {
                    return Some(self.record_taken(item, waited, depth));
                }
                Take::ShutDown => return None,
                Take::Empty if spins < GET_SPINS => {
                    spins += 1;
                    tokio::task::yield_now().await;
                }
                Take::Empty => notified.await,
            }
        }
    }

    /// Hands out the item at the front of the queue, under the lock.
    fn take(&self, state: &mut State<T>, now: Instant) -> Take<T> {
        let Some((hash, item)) = state.queue.pop_front() else {
            return match state.shutting_down {
                true => Take::ShutDown,
                false => Take::Empty,
            };
        };
        let mut waited = Duration::ZERO;
        if let Some((_, entry)) = state.items.find_mut(hash, |(k, _)| *k == item) {
            entry.dirty = false;
            entry.processing = Some(now);
            waited = now.saturating_duration_since(entry.added);
        }
        state.processing += 1;
        if !std::mem::replace(&mut state.unfinished_loop, true) {
            tokio::spawn(self.unfinished_loop());
        }
        Take::Item(item, waited, state.queue.len())
    }

    /// Recorded outside the lock, which the other workers and adders wait on.
    fn record_taken(&self, item: T, waited: Duration, depth: usize) -> T {
        let metrics = &self.inner.metrics;
        metrics.queue_duration.record(waited.as_secs_f64());
        metrics.depth.set(depth as f64);
        item
    }

    /// Marks `item` processed; if it was added meanwhile, it is queued again.
    pub fn done(&self, item: &T) {
        let now = Instant::now();
        let hash = self.hash(item);
        let finished = self.finish(&mut self.state(), hash, item, now);
        self.record_done(finished);
    }

    /// `done`'s step under the lock; `None` when `item` was not being processed.
    fn finish(
        &self,
        state: &mut State<T>,
        hash: u64,
        item: &T,
        now: Instant,
    ) -> Option<Finished<T>> {
        let Ok(mut found) = state.items.find_entry(hash, |(k, _)| k == item) else {
            return None;
        };
        let entry = &mut found.get_mut().1;
        let started = entry.processing.take()?;
        let requeued = entry.dirty;
        // The table's copy goes back in the queue, or is dropped after the lock.
        let removed = match requeued {
            true => {
                state.queue.push_back((hash, item.clone()));
                None
            }
            false => Some(found.remove().0.0),
        };
        state.processing -= 1;
        Some(Finished {
            worked: now.saturating_duration_since(started),
            requeued,
            depth: state.queue.len(),
            drained: state.processing == 0,
            removed,
        })
    }

    /// What `done` records and wakes, outside the lock.
    fn record_done(&self, finished: Option<Finished<T>>) {
        let Some(finished) = finished else { return };
        drop(finished.removed);
        let metrics = &self.inner.metrics;
        metrics.work_duration.record(finished.worked.as_secs_f64());
        if finished.requeued {
            metrics.depth.set(finished.depth as f64);
            self.inner.ready.notify_one();
        } else if finished.drained {
            self.inner.drained.notify_waiters();
        }
    }

    /// Refreshes the unfinished-work gauges every 500 ms while items are being
    /// processed, as client-go's `updateUnfinishedWorkLoop`: a worker stuck in a sync
    /// shows in them without any get or done. Holds the queue weakly, so a dropped
    /// queue ends it too.
    fn unfinished_loop(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let queue = Arc::downgrade(&self.inner);
        async move {
            let mut ticks = tokio::time::interval(UNFINISHED_WORK_REFRESH);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let Some(inner) = queue.upgrade() else { return };
                let queue = WorkQueue { inner };
                let mut state = queue.state();
                queue.record_unfinished(&state);
                if state.processing == 0 {
                    state.unfinished_loop = false;
                    return;
                }
            }
        }
    }

    fn record_unfinished(&self, state: &State<T>) {
        let now = Instant::now();
        let running = state
            .items
            .iter()
            .filter_map(|(_, e)| e.processing)
            .map(|started| now.duration_since(started).as_secs_f64());
        let (total, longest) = running.fold((0.0, 0.0_f64), |(t, l), d| (t + d, l.max(d)));
        self.inner.metrics.unfinished.set(total);
        self.inner.metrics.longest.set(longest);
    }

    /// Items queued and not yet handed out.
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops taking new items; `get` hands out what is queued, then `None`.
    pub fn shut_down(&self) {
        self.state().shutting_down = true;
        self.inner.ready.notify_waiters();
        self.inner.delays_changed.notify_one();
    }

    /// Whether shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        self.state().shutting_down
    }

    /// `shut_down`, then waits until no item is being processed.
    pub async fn shut_down_with_drain(&self) {
        self.shut_down();
        loop {
            let drained = self.inner.drained.notified();
            if self.state().processing == 0 {
                return;
            }
            drained.await;
        }
    }
}
