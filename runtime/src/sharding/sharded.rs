//! The member's side: its sync runs only on the objects of its shard, and a key whose
//! object carries the drain label is let go (both labels taken off) instead of synced,
//! between two syncs of that key.

use kube::{Resource, ResourceExt};

use super::Ring;
use super::assigner::patch_labels;
use crate::cache::Store;
use crate::controller::{Action, ObjectKey, SyncError, SyncHandler};
use crate::informer::{Informed, ScopedApi};

/// A member's sync: wrap a sharded controller's sync in it, over the member's
/// (label-selected) cache of the kind.
///
/// A key whose object is not in that cache is not synced: the object was deleted or has
/// left this shard, and the two look alike from here, so work on deletion belongs in a
/// finalizer (as it does for any cache-driven controller that may miss a delete).
pub struct Sharded<K: Resource, S> {
    inner: S,
    store: Store<K>,
    client: kube::Client,
    ring: Ring,
}

impl<K, S> Sharded<K, S>
where
    K: Resource<DynamicType = ()>,
{
    /// `inner`, letting go of the objects the ring's assigner drains; `store` is the
    /// member's (label-selected) cache of `K`.
    pub fn new(inner: S, store: Store<K>, client: kube::Client, ring: Ring) -> Self {
        Sharded {
            inner,
            store,
            client,
            ring,
        }
    }
}

impl<K, S> SyncHandler for Sharded<K, S>
where
    K: Informed,
    K::Scope: ScopedApi,
    S: SyncHandler,
{
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let Some(object) = self.store.get(&key.to_string()) else {
            return Ok(Action::Done);
        };
        if !object.labels().contains_key(&self.ring.drain_label()) {
            return self.inner.sync(key).await;
        }
        // No sync of this key runs now (the queue hands a key to one worker at a time),
        // and none will here: with the labels gone, the object leaves this member's
        // watch and cache.
        let release = serde_json::json!({
            self.ring.shard_label(): null,
            self.ring.drain_label(): null,
        });
        patch_labels::<K>(&self.client, key, release).await
    }
}
