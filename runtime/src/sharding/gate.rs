//! The member's side: a controller built `for_kind` on a sharded informer syncs only
//! the objects of its shard, and lets an object that carries the drain label go (both
//! labels taken off) instead of syncing it, between two syncs of that key.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use kube::{Api, ResourceExt};
use serde_json::json;

use super::Ring;
use super::assigner::patch_labels;
use crate::cache::Store;
use crate::controller::{Action, Gate, ObjectKey, SyncError};
use crate::informer::Informed;

/// A sharded informer's ring, and its kind's `Api` in a given namespace (the informer's
/// own may list every namespace, where an object cannot be patched).
pub(crate) struct Shard<K> {
    pub(crate) ring: Ring,
    pub(crate) api: Box<dyn Fn(Option<&str>) -> Api<K> + Send + Sync>,
}

/// The gate [`crate::controller::ControllerBuilder::for_kind`] puts before the sync of
/// a controller whose primary informer is sharded.
pub(crate) struct Release<K> {
    pub(crate) store: Store<K>,
    pub(crate) shard: Arc<Shard<K>>,
}

impl<K: Informed> Gate for Release<K> {
    fn admit<'a>(&'a self, key: ObjectKey<'a>) -> BoxFuture<'a, Option<Result<Action, SyncError>>> {
        Box::pin(async move {
            let Some(object) = self.store.get(&key.to_string()) else {
                // Deleted, or gone from this shard: the two look alike from here, so
                // work on deletion belongs in a finalizer, as for any cache-driven sync
                // that may miss a delete.
                return Some(Ok(Action::Done));
            };
            let ring = &self.shard.ring;
            if !object.labels().contains_key(&ring.drain_label()) {
                return None;
            }
            // No sync of this key runs now (the queue hands a key to one worker at a
            // time), and none will here: with the labels gone, the object leaves this
            // member's watch and cache, and the assigner gives it to its next member.
            let release = json!({ ring.shard_label(): null, ring.drain_label(): null });
            let api = (self.shard.api)(key.namespace);
            Some(patch_labels(&api, key.name, release).await)
        })
    }
}
