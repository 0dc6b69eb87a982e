//! One shard of a labelled partition of objects: a factory's informers watch only the
//! shard's selector, and an object marked for draining is let go by taking its labels
//! off. `sharding::Ring::shard` makes one for a replica of a controller ring; the
//! controller built `for_kind` on such an informer asks [`ShardOf::admit`] before
//! each sync.

use kube::api::{Patch, PatchParams};
use kube::{Api, ResourceExt};
use serde_json::{Map, Value, json};

use super::Informed;
use crate::cache::{ObjectKey, Store};

/// What a member of a partition watches, and how it lets an object go.
#[derive(Clone, Debug)]
pub struct Shard {
    /// The label selector of the shard's objects.
    pub(crate) selector: String,
    /// The label asking the shard to let an object go.
    pub(crate) drain_label: String,
    /// The labels taken off an object let go.
    pub(crate) release: Vec<String>,
}

/// A kind's `Api` in a given namespace.
pub(crate) type ApiIn<K> = Box<dyn Fn(Option<&str>) -> Api<K> + Send + Sync>;

/// A sharded informer's shard, and its kind's `Api` in a given namespace (the informer's
/// own may list every namespace, where an object cannot be patched).
pub(crate) struct ShardOf<K> {
    pub(crate) shard: Shard,
    pub(crate) api: ApiIn<K>,
}

/// Whether a key is synced.
pub(crate) enum Admission {
    Sync,
    /// Not in the shard's cache: deleted, or gone from this shard. The two look alike
    /// from here, so work on deletion belongs in a finalizer, as for any cache-driven
    /// sync that may miss a delete.
    Absent,
    /// Drained, and let go: the outcome of taking its labels off.
    Released(Result<(), kube::Error>),
}

impl<K: Informed> ShardOf<K> {
    /// Looks `key` up in the shard's cache `store`; a drained object is let go here, so
    /// this must run where its syncs run (the controller's queue never hands one key to
    /// two workers), for no sync of it to run once it is released.
    pub(crate) async fn admit(&self, store: &Store<K>, key: &str) -> Admission {
        let Some(object) = store.get(key) else {
            return Admission::Absent;
        };
        if !object.labels().contains_key(&self.shard.drain_label) {
            return Admission::Sync;
        }
        let release: Map<String, Value> = self
            .shard
            .release
            .iter()
            .map(|label| (label.clone(), Value::Null))
            .collect();
        let ObjectKey { namespace, name } = ObjectKey::parse(key);
        let api = (self.api)(namespace);
        Admission::Released(patch_labels(&api, name, Value::Object(release)).await)
    }
}

/// Merges `labels` into object `name`'s (a `null` removes one); an object gone
/// meanwhile is nothing left to do.
pub(crate) async fn patch_labels<K: Informed>(
    api: &Api<K>,
    name: &str,
    labels: Value,
) -> Result<(), kube::Error> {
    let patch = json!({"metadata": {"labels": labels}});
    match api
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}
