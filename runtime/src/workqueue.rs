//! client-go's rate-limited work queue:
//! - an item added many times before it is taken is handed out once;
//! - an item is never handed to two workers at once: added while being processed, it is
//!   handed out again after `done`;
//! - `add_after` and `add_rate_limited` delay an add; `forget` resets its backoff;
//! - `shut_down` hands out what is queued, then `None`; `shut_down_with_drain` also waits
//!   for items being processed.
//!
//! Metrics go through the `metrics` facade, with client-go's names and a `name` label:
//! `workqueue_depth`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
//! `workqueue_work_duration_seconds`, `workqueue_retries_total`,
//! `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`
//! (these two refreshed every 500 ms while items are processed).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::ratelimit::{RateLimiter, default_controller_rate_limiter};

/// How often the unfinished-work gauges are refreshed (client-go's period).
const UNFINISHED_WORK_REFRESH: Duration = Duration::from_millis(500);

struct State<T> {
    queue: VecDeque<T>,
    /// Items waiting to be handed out (queued, or re-added while processing).
    dirty: HashSet<T>,
    processing: HashMap<T, Instant>,
    /// When each dirty item was added, for the queue-duration metric.
    added: HashMap<T, Instant>,
    /// The ready time of each delayed item: a later add_after waits for the earlier one.
    waiting: HashMap<T, Instant>,
    /// Delayed adds by ready time (and a sequence number, which names the item in
    /// `delayed`): what the one delay loop of the queue waits on.
    delays: BinaryHeap<Reverse<(Instant, u64)>>,
    delayed: HashMap<u64, T>,
    next_delay: u64,
    /// Whether the delay loop runs (it ends when no delay is left).
    delay_loop: bool,
    /// Whether the loop refreshing the unfinished-work gauges runs (while items are
    /// being processed).
    unfinished_loop: bool,
    shutting_down: bool,
}

struct Inner<T> {
    name: String,
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

    pub fn with_rate_limiter(name: &str, rate_limiter: impl RateLimiter<T> + 'static) -> Self {
        WorkQueue {
            inner: Arc::new(Inner {
                name: name.to_owned(),
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    dirty: HashSet::new(),
                    processing: HashMap::new(),
                    added: HashMap::new(),
                    waiting: HashMap::new(),
                    delays: BinaryHeap::new(),
                    delayed: HashMap::new(),
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
        crate::sync::lock(&self.inner.state)
    }

    fn label(&self) -> [(&'static str, String); 1] {
        [("name", self.inner.name.clone())]
    }

    /// Queues `item` unless it is queued already (or the queue is shutting down).
    pub fn add(&self, item: T) {
        let mut state = self.state();
        if state.shutting_down || !state.dirty.insert(item.clone()) {
            return;
        }
        metrics::counter!("workqueue_adds_total", &self.label()).increment(1);
        state.added.insert(item.clone(), Instant::now());
        if state.processing.contains_key(&item) {
            // Handed out again when the worker holding it calls `done`.
            return;
        }
        state.queue.push_back(item);
        metrics::gauge!("workqueue_depth", &self.label()).set(state.queue.len() as f64);
        drop(state);
        self.inner.ready.notify_one();
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
        metrics::counter!("workqueue_retries_total", &self.label()).increment(1);
        let delay = self.inner.rate_limiter.when(&item);
        self.add_after(item, delay);
    }

    /// Resets `item`'s backoff.
    pub fn forget(&self, item: &T) {
        self.inner.rate_limiter.forget(item);
    }

    pub fn num_requeues(&self, item: &T) -> u32 {
        self.inner.rate_limiter.num_requeues(item)
    }

    /// The next item, once one is queued; `None` once the queue is shut down and empty.
    /// The caller must call `done` with it.
    pub async fn get(&self) -> Option<T> {
        loop {
            let notified = self.inner.ready.notified();
            {
                let mut state = self.state();
                if let Some(item) = state.queue.pop_front() {
                    state.dirty.remove(&item);
                    let now = Instant::now();
                    if let Some(added) = state.added.remove(&item) {
                        metrics::histogram!("workqueue_queue_duration_seconds", &self.label())
                            .record(now.duration_since(added).as_secs_f64());
                    }
                    state.processing.insert(item.clone(), now);
                    metrics::gauge!("workqueue_depth", &self.label()).set(state.queue.len() as f64);
                    self.record_unfinished(&state);
                    if !std::mem::replace(&mut state.unfinished_loop, true) {
                        tokio::spawn(self.unfinished_loop());
                    }
                    return Some(item);
                }
                if state.shutting_down {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Marks `item` processed; if it was added meanwhile, it is queued again.
    pub fn done(&self, item: &T) {
        let mut state = self.state();
        if let Some(started) = state.processing.remove(item) {
            metrics::histogram!("workqueue_work_duration_seconds", &self.label())
                .record(started.elapsed().as_secs_f64());
        }
        self.record_unfinished(&state);
        if state.dirty.contains(item) {
            state.queue.push_back(item.clone());
            metrics::gauge!("workqueue_depth", &self.label()).set(state.queue.len() as f64);
            drop(state);
            self.inner.ready.notify_one();
        } else if state.processing.is_empty() {
            drop(state);
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
                if state.processing.is_empty() {
                    state.unfinished_loop = false;
                    return;
                }
            }
        }
    }

    fn record_unfinished(&self, state: &State<T>) {
        let now = Instant::now();
        let running = state
            .processing
            .values()
            .map(|s| now.duration_since(*s).as_secs_f64());
        let (total, longest) = running.fold((0.0, 0.0_f64), |(t, l), d| (t + d, l.max(d)));
        metrics::gauge!("workqueue_unfinished_work_seconds", &self.label()).set(total);
        metrics::gauge!("workqueue_longest_running_processor_seconds", &self.label()).set(longest);
    }

    /// Items queued and not yet handed out.
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops taking new items; `get` hands out what is queued, then `None`.
    pub fn shut_down(&self) {
        self.state().shutting_down = true;
        self.inner.ready.notify_waiters();
        self.inner.delays_changed.notify_one();
    }

    pub fn is_shutting_down(&self) -> bool {
        self.state().shutting_down
    }

    /// `shut_down`, then waits until no item is being processed.
    pub async fn shut_down_with_drain(&self) {
        self.shut_down();
        loop {
            let drained = self.inner.drained.notified();
            if self.state().processing.is_empty() {
                return;
            }
            drained.await;
        }
    }
}
