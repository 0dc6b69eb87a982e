//! What an informer tells its consumers, and how: notifications, event handlers, and
//! the channel each handler or subscriber reads on a task of its own.
//!
//! Each channel is unbounded, as client-go's listener buffer is: bounding it would
//! either stall the one shared watch behind the slowest handler (and every other
//! consumer with it) or drop notifications. Instead the lag is measured: each channel
//! counts what it holds, exported as `informer_handler_pending{resource, handler}`,
//! logged at each doubling past 1,024, and readable with
//! [`super::SharedInformer::handler_lag`]. A pending notification holds `Arc`s to
//! cached objects, not copies (figures in `hack/bench-informer.sh`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

/// A change to a cached object, as handlers and subscribers see it.
#[derive(Debug)]
pub enum Notification<K> {
    /// An object seen for the first time (on the first list, or created since).
    Add(Arc<K>),
    /// `old` is the object as last cached; on a resync both are the same object.
    Update {
        /// The object before the change.
        old: Arc<K>,
        /// The object after it.
        new: Arc<K>,
    },
    /// The object's final state, as the watch reported its deletion.
    Delete(Arc<K>),
    /// The object was found gone on a relist: its deletion was not seen, so this is its
    /// last cached state, not its final one (client-go's `DeletedFinalStateUnknown`).
    DeletedFinalStateUnknown(Arc<K>),
}

impl<K> Notification<K> {
    /// The object it is about, in its newest known state.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Notification::Add(o)
            | Notification::Update { new: o, .. }
            | Notification::Delete(o)
            | Notification::DeletedFinalStateUnknown(o) => o,
        }
    }
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
            Notification::DeletedFinalStateUnknown(o) => {
                Notification::DeletedFinalStateUnknown(o.clone())
            }
        }
    }
}

/// client-go's `ResourceEventHandler`. Each handler runs on a task of its own, so a
/// slow one delays neither the cache nor the other handlers.
pub trait EventHandler<K>: Send + Sync + 'static {
    /// An object was added.
    fn on_add(&self, _object: &Arc<K>) {}
    /// An object changed (or a resync came round: then `old` and `new` are the same).
    fn on_update(&self, _old: &Arc<K>, _new: &Arc<K>) {}
    /// An object was deleted (its last cached state when the deletion was not seen).
    fn on_delete(&self, _object: &Arc<K>) {}
    /// A deletion found on a relist, with the object's last cached state; by default
    /// handled as any other deletion.
    fn on_deleted_final_state_unknown(&self, last_known: &Arc<K>) {
        self.on_delete(last_known);
    }
}

type Callback<K> = Box<dyn Fn(&Arc<K>) + Send + Sync>;
type UpdateCallback<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;

/// client-go's `ResourceEventHandlerFuncs`: a handler from closures.
pub struct HandlerFns<K> {
    add: Option<Callback<K>>,
    update: Option<UpdateCallback<K>>,
    delete: Option<Callback<K>>,
    deleted_final_state_unknown: Option<Callback<K>>,
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        HandlerFns {
            add: None,
            update: None,
            delete: None,
            deleted_final_state_unknown: None,
        }
    }
}

impl<K> HandlerFns<K> {
    /// A handler that does nothing until given functions.
    pub fn new() -> Self {
        HandlerFns::default()
    }

    /// Calls `f` on each add.
    pub fn on_add(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Calls `f` on each update, with the old and the new object.
    pub fn on_update(mut self, f: impl Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Every deletion, also those found on a relist unless
    /// [`Self::on_deleted_final_state_unknown`] takes them.
    pub fn on_delete(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }

    /// Calls `f` on a deletion found on a relist, whose final state is unknown (client-go's `DeletedFinalStateUnknown`); without it such deletions go to `on_delete`.
    pub fn on_deleted_final_state_unknown(
        mut self,
        f: impl Fn(&Arc<K>) + Send + Sync + 'static,
    ) -> Self {
        self.deleted_final_state_unknown = Some(Box::new(f));
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

    fn on_deleted_final_state_unknown(&self, last_known: &Arc<K>) {
        match &self.deleted_final_state_unknown {
            Some(f) => f(last_known),
            None => self.on_delete(last_known),
        }
    }
}

/// One handler's or subscriber's end of the informer: a channel, and what it holds.
pub(super) struct Subscriber<K> {
    tx: mpsc::UnboundedSender<Notification<K>>,
    lag: Arc<Lag>,
    /// Whether the factory's resyncs reach it: not when it has a period of its own.
    pub(super) factory_resync: bool,
}

impl<K> Clone for Subscriber<K> {
    fn clone(&self) -> Self {
        Subscriber {
            tx: self.tx.clone(),
            lag: self.lag.clone(),
            factory_resync: self.factory_resync,
        }
    }
}

/// How many notifications a channel holds, counted on both ends.
pub(super) struct Lag {
    pending: AtomicUsize,
    gauge: metrics::Gauge,
    resource: String,
    handler: usize,
}

/// The pending count past which each doubling is logged.
const LAG_WARNING: usize = 1024;

impl Lag {
    pub(super) fn pending(&self) -> usize {
        self.pending.load(Ordering::Relaxed)
    }

    /// Counts one notification as taken. Saturating: a receiver dropped while a send
    /// was counted zeroes the count under the sender, which then takes its own back.
    fn taken(&self, count: usize) {
        let _ = self
            .pending
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |pending| {
                Some(pending.saturating_sub(count))
            });
        self.gauge.decrement(count as f64);
    }
}

impl<K> Subscriber<K> {
    /// A channel for handler number `handler` of `resource`.
    pub(super) fn channel(
        resource: &str,
        handler: usize,
        factory_resync: bool,
    ) -> (Self, Receiver<K>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let gauge = metrics::gauge!(
            "informer_handler_pending",
            "resource" => resource.to_owned(),
            "handler" => handler.to_string(),
        );
        let lag = Arc::new(Lag {
            pending: AtomicUsize::new(0),
            gauge,
            resource: resource.to_owned(),
            handler,
        });
        let receiver = Receiver {
            rx,
            lag: lag.clone(),
        };
        (
            Subscriber {
                tx,
                lag,
                factory_resync,
            },
            receiver,
        )
    }

    pub(super) fn lag(&self) -> &Lag {
        &self.lag
    }

    /// Sends `notification`; `false` once the receiving end is gone. Counted before it
    /// is sent: the handler's task may take it (and count it taken) before `send`
    /// returns.
    pub(super) fn send(&self, notification: Notification<K>) -> bool {
        let lag = &self.lag;
        let pending = lag.pending.fetch_add(1, Ordering::Relaxed) + 1;
        lag.gauge.increment(1.0);
        if self.tx.send(notification).is_err() {
            lag.taken(1);
            return false;
        }
        if pending >= LAG_WARNING && pending.is_power_of_two() {
            tracing::warn!(
                resource = %lag.resource,
                handler = lag.handler,
                pending,
                "an informer event handler is falling behind"
            );
        }
        true
    }
}

/// The reading end of a [`Subscriber`].
pub(super) struct Receiver<K> {
    rx: mpsc::UnboundedReceiver<Notification<K>>,
    lag: Arc<Lag>,
}

impl<K> Receiver<K> {
    pub(super) async fn recv(&mut self) -> Option<Notification<K>> {
        let notification = self.rx.recv().await?;
        self.lag.taken(1);
        Some(notification)
    }

    pub(super) fn into_stream(self) -> impl futures_util::Stream<Item = Notification<K>> {
        futures_util::stream::unfold(self, |mut receiver| async move {
            let notification = receiver.recv().await?;
            Some((notification, receiver))
        })
    }
}

/// What was never taken leaves the gauge with the channel.
impl<K> Drop for Receiver<K> {
    fn drop(&mut self) {
        let untaken = self.lag.pending.load(Ordering::Relaxed);
        self.lag.taken(untaken);
    }
}

/// Runs `handler` on what arrives, on a task of `tasks`; a panic in it is logged and
/// the handler keeps receiving. The task ends once the channel is closed and drained.
pub(super) fn deliver<K: Send + Sync + 'static>(
    tasks: &TaskTracker,
    mut receiver: Receiver<K>,
    handler: impl EventHandler<K>,
) {
    tasks.spawn(async move {
        while let Some(notification) = receiver.recv().await {
            let delivered = catch_unwind(AssertUnwindSafe(|| match &notification {
                Notification::Add(o) => handler.on_add(o),
                Notification::Update { old, new } => handler.on_update(old, new),
                Notification::Delete(o) => handler.on_delete(o),
                Notification::DeletedFinalStateUnknown(o) => {
                    handler.on_deleted_final_state_unknown(o)
                }
            }));
            if delivered.is_err() {
                tracing::error!("an informer event handler panicked; it keeps receiving events");
            }
        }
    });
}

/// Sends `notification` to every subscriber, dropping those whose receiver is gone.
pub(super) fn notify<K>(subscribers: &mut Vec<Subscriber<K>>, notification: Notification<K>) {
    subscribers.retain(|s| s.send(notification.clone()));
}
