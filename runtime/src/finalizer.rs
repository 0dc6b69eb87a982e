//! Finalizers in a sync, on kube-runtime's `finalizer`: the first sync of an object adds
//! the finalizer (and ends: the change queues the object again); later syncs run the
//! apply branch; once the object is being deleted, the cleanup branch runs and, when it
//! succeeds, the finalizer is removed so the apiserver can delete the object. A failed
//! cleanup keeps the finalizer, and is retried as any failed sync.

use std::fmt::{self, Debug};
use std::future::Future;
use std::sync::Arc;

use kube::runtime::controller::Action;
use kube::runtime::finalizer::{Error, finalizer};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use kube::runtime::finalizer::Event;

use crate::controller::SyncError;

/// Runs `sync` for `object` under the finalizer `name` (a qualified name such as
/// `example.com/cleanup`): with [`Event::Apply`] while it lives, with
/// [`Event::Cleanup`] once it is being deleted.
///
/// # Errors
///
/// What kube-runtime's finalizer answers: `sync`'s error, or the apiserver's when
/// adding or removing the finalizer fails.
pub async fn with_finalizer<K, F, Fut>(
    api: &Api<K>,
    name: &str,
    object: Arc<K>,
    sync: F,
) -> Result<(), SyncError>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    F: FnOnce(Event<K>) -> Fut,
    Fut: Future<Output = Result<(), SyncError>>,
{
    let outcome = finalizer(api, name, object, |event| async move {
        sync(event)
            .await
            .map(|()| Action::await_change())
            .map_err(Failed)
    })
    .await;
    match outcome {
        Ok(_) => Ok(()),
        Err(Error::ApplyFailed(Failed(e)) | Error::CleanupFailed(Failed(e))) => Err(e),
        Err(other) => Err(SyncError::Other(Box::new(other))),
    }
}

/// A sync's error as kube-runtime's `finalizer` wants it (a `std::error::Error`),
/// unwrapped again on the way out so its class (requeue, ignore, …) survives.
struct Failed(SyncError);

impl Debug for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Failed {}
