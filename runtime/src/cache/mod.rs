//! A thread-safe indexed cache of objects, shared between an informer (the only
//! writer, through its [`Writer`]) and any number of listers and controllers (readers,
//! through [`Store`] handles, which cannot change it).
//!
//! Objects are kept by client-go's key (`namespace/name`, or `name` when
//! cluster-scoped) in a hash map, so `get` is O(1). Indexes map an index value to the
//! objects that produce it; a namespace index is always there, so listing a namespace
//! costs in proportion to that namespace's objects. Objects are handed out as
//! `Arc`s: readers share them, nobody copies them.

mod key;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use kube::Resource;

use key::Key;

/// The index every cache has: namespace → objects.
pub const NAMESPACE_INDEX: &str = "namespace";

/// Computes the values an object is indexed under for one index.
pub type IndexFn<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` without a namespace.
pub fn key_of<K: Resource>(object: &K) -> String {
    let meta = object.meta();
    let name = meta.name.as_deref().unwrap_or_default();
    match meta.namespace.as_deref() {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_owned(),
    }
}

/// A work-queue key read back into its parts: [`key_of`]'s inverse, borrowed from the
/// key (a sync gets one without an allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjectKey<'a> {
    /// `None` for a cluster-scoped object.
    pub namespace: Option<&'a str>,
    /// The object's name.
    pub name: &'a str,
}

impl<'a> ObjectKey<'a> {
    /// `namespace/name`, or a cluster-scoped object's `name`.
    pub fn parse(key: &'a str) -> Self {
        match key.split_once('/') {
            Some((namespace, name)) => ObjectKey {
                namespace: Some(namespace),
                name,
            },
            None => ObjectKey {
                namespace: None,
                name: key,
            },
        }
    }
}

/// The key again: `namespace/name`, or `name`.
impl std::fmt::Display for ObjectKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.namespace {
            Some(namespace) => write!(f, "{namespace}/{}", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// The objects whose labels `selector` matches (an empty selector matches all).
pub fn select<K: Resource>(objects: Vec<Arc<K>>, selector: &kube::core::Selector) -> Vec<Arc<K>> {
    use kube::core::SelectorExt;
    objects
        .into_iter()
        .filter(|o| selector.matches(o.meta().labels.as_ref().unwrap_or(&BTreeMap::new())))
        .collect()
}

/// Hash maps with foldhash: every get hashes its key, where SipHash cost as much as
/// the lookup; foldhash is seeded per map, so colliding keys are as hard to find.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

struct Index<K> {
    func: IndexFn<K>,
    /// Index value → the objects under it by key, sorted so that lookups come out in
    /// key order and cost one step per object.
    values: Map<String, BTreeMap<String, Arc<K>>>,
}

struct Inner<K> {
    items: Map<Key, Arc<K>>,
    indexes: BTreeMap<String, Index<K>>,
}

/// A read handle to the cache. Cloning gives another handle to the same cache; only
/// its [`Writer`] changes it.
pub struct Store<K> {
    inner: Arc<RwLock<Inner<K>>>,
}

impl<K> Clone for Store<K> {
    fn clone(&self) -> Self {
        Store {
            inner: self.inner.clone(),
        }
    }
}

/// The cache's only write handle, held by the informer that fills it (kube-runtime's
/// `Writer`): listers and controllers get [`Store`]s, which read.
///
/// ```
/// use std::sync::Arc;
/// use crdgen_runtime::cache::{NAMESPACE_INDEX, Writer};
/// use k8s_openapi::api::core::v1::ConfigMap;
///
/// let writer = Writer::<ConfigMap>::new();
/// let store = writer.reader();
/// let mut cm = ConfigMap::default();
/// cm.metadata.namespace = Some("prod".into());
/// cm.metadata.name = Some("settings".into());
/// writer.insert(Arc::new(cm));
/// assert!(store.get("prod/settings").is_some());
/// assert_eq!(store.by_index(NAMESPACE_INDEX, "prod").unwrap().len(), 1);
/// // An index name is taken once.
/// assert!(writer.add_index(NAMESPACE_INDEX, |_: &ConfigMap| Vec::new()).is_err());
/// ```
pub struct Writer<K> {
    store: Store<K>,
}

/// An index by that name is already there (client-go's `AddIndexers` refuses it too):
/// replacing it would change what existing readers of it see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexConflict {
    /// The index asked for.
    pub name: String,
}

impl std::fmt::Display for IndexConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the cache already has an index named `{}`", self.name)
    }
}

impl std::error::Error for IndexConflict {}

impl<K: Resource + 'static> Default for Writer<K> {
    fn default() -> Self {
        Writer::new()
    }
}

impl<K: Resource + 'static> Writer<K> {
    /// An empty cache with the namespace index.
    pub fn new() -> Self {
        let namespace: IndexFn<K> = Arc::new(|o: &K| o.meta().namespace.iter().cloned().collect());
        let indexes = BTreeMap::from([(
            NAMESPACE_INDEX.to_owned(),
            Index {
                func: namespace,
                values: Map::default(),
            },
        )]);
        Writer {
            store: Store {
                inner: Arc::new(RwLock::new(Inner {
                    items: Map::default(),
                    indexes,
                })),
            },
        }
    }

    /// A read handle to this cache.
    pub fn reader(&self) -> Store<K> {
        self.store.clone()
    }

    /// The read handle this writer keeps, borrowed.
    pub fn store(&self) -> &Store<K> {
        &self.store
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner<K>> {
        self.store.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a named index, computing it for what is already cached; an index of that
    /// name (`namespace` included) is kept and the new one refused.
    ///
    /// # Errors
    ///
    /// [`IndexConflict`] when the cache has an index of that name.
    pub fn add_index(
        &self,
        name: &str,
        func: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<(), IndexConflict> {
        let mut inner = self.write();
        if inner.indexes.contains_key(name) {
            return Err(IndexConflict {
                name: name.to_owned(),
            });
        }
        let mut index = Index {
            func: Arc::new(func),
            values: Map::default(),
        };
        for object in inner.items.values() {
            let key = key_of(object.as_ref());
            for value in (index.func)(object) {
                index
                    .values
                    .entry(value)
                    .or_default()
                    .insert(key.clone(), object.clone());
            }
        }
        inner.indexes.insert(name.to_owned(), index);
        Ok(())
    }

    /// Stores `object`, returning what it replaced.
    pub fn insert(&self, object: Arc<K>) -> Option<Arc<K>> {
        let key = key_of(object.as_ref());
        let mut inner = self.write();
        let old = inner.items.insert(Key::new(&key), object.clone());
        let Inner { indexes, .. } = &mut *inner;
        for index in indexes.values_mut() {
            if let Some(old) = &old {
                unindex(index, &key, old);
            }
            for value in (index.func)(&object) {
                index
                    .values
                    .entry(value)
                    .or_default()
                    .insert(key.clone(), object.clone());
            }
        }
        old
    }

    /// Removes the object with `key`, returning it.
    pub fn remove(&self, key: &str) -> Option<Arc<K>> {
        let mut inner = self.write();
        let old = inner.items.remove(key.as_bytes())?;
        for index in inner.indexes.values_mut() {
            unindex(index, key, &old);
        }
        Some(old)
    }
}

impl<K: Resource + 'static> Store<K> {
    fn read(&self) -> RwLockReadGuard<'_, Inner<K>> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The object with `key`, in O(1).
    pub fn get(&self, key: &str) -> Option<Arc<K>> {
        self.read().items.get(key.as_bytes()).cloned()
    }

    /// Every cached object, in key order.
    pub fn list(&self) -> Vec<Arc<K>> {
        let inner = self.read();
        let mut items: Vec<(&Key, &Arc<K>)> = inner.items.iter().collect();
        items.sort_unstable_by(|a, b| a.0.cmp(b.0));
        items
            .into_iter()
            .map(|(_, object)| object.clone())
            .collect()
    }

    /// The objects an index maps `value` to, in key order; costs in proportion to them.
    /// `None` when there is no such index.
    pub fn by_index(&self, index: &str, value: &str) -> Option<Vec<Arc<K>>> {
        let inner = self.read();
        let index = inner.indexes.get(index)?;
        let objects = index.values.get(value);
        Some(
            objects
                .map(|o| o.values().cloned().collect())
                .unwrap_or_default(),
        )
    }

    /// Names of the indexes.
    pub fn index_names(&self) -> Vec<String> {
        self.read().indexes.keys().cloned().collect()
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.read().items.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.read().items.is_empty()
    }
}

fn unindex<K>(index: &mut Index<K>, key: &str, object: &K) {
    for value in (index.func)(object) {
        if let Some(keys) = index.values.get_mut(&value) {
            keys.remove(key);
            if keys.is_empty() {
                index.values.remove(&value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    fn cm(ns: &str, name: &str, app: &str) -> Arc<ConfigMap> {
        let mut c = ConfigMap::default();
        c.metadata.namespace = Some(ns.into());
        c.metadata.name = Some(name.into());
        c.metadata.labels = Some(BTreeMap::from([("app".to_owned(), app.to_owned())]));
        Arc::new(c)
    }

    #[test]
    fn object_keys_read_back_what_key_of_writes() {
        let namespaced = key_of(cm("prod", "web", "a").as_ref());
        let key = ObjectKey::parse(&namespaced);
        assert_eq!((key.namespace, key.name), (Some("prod"), "web"));
        assert_eq!(key.to_string(), namespaced);
        let mut cluster = ConfigMap::default();
        cluster.metadata.name = Some("global".into());
        let cluster = key_of(&cluster);
        let key = ObjectKey::parse(&cluster);
        assert_eq!((key.namespace, key.name), (None, "global"));
        assert_eq!(key.to_string(), "global");
    }

    /// An index function: every label value of the object.
    fn label_values(c: &ConfigMap) -> Vec<String> {
        c.metadata
            .labels
            .iter()
            .flatten()
            .map(|(_, v)| v.clone())
            .collect()
    }

    fn names(objects: Vec<Arc<ConfigMap>>) -> Vec<String> {
        objects.iter().map(|o| key_of(o.as_ref())).collect()
    }

    #[test]
    fn indexes_follow_inserts_updates_and_removals() {
        let writer = Writer::new();
        writer.add_index("app", label_values).unwrap();
        let store = writer.reader();
        writer.insert(cm("a", "x", "web"));
        writer.insert(cm("a", "y", "db"));
        writer.insert(cm("b", "x", "web"));
        assert_eq!(
            names(store.by_index(NAMESPACE_INDEX, "a").unwrap()),
            ["a/x", "a/y"]
        );
        assert_eq!(names(store.by_index("app", "web").unwrap()), ["a/x", "b/x"]);

        let old = writer.insert(cm("a", "x", "db")).unwrap();
        assert_eq!(old.metadata.labels.as_ref().unwrap()["app"], "web");
        assert_eq!(names(store.by_index("app", "web").unwrap()), ["b/x"]);
        assert_eq!(names(store.by_index("app", "db").unwrap()), ["a/x", "a/y"]);

        writer.remove("a/y");
        assert_eq!(
            names(store.by_index(NAMESPACE_INDEX, "a").unwrap()),
            ["a/x"]
        );
        assert_eq!(store.by_index("app", "nothing").unwrap(), vec![]);
        assert!(store.by_index("no-such-index", "x").is_none());
        assert_eq!(names(store.list()), ["a/x", "b/x"]);
        assert!(
            Arc::ptr_eq(&store.get("b/x").unwrap(), &store.list()[1]),
            "readers share objects"
        );
    }

    #[test]
    fn an_index_added_later_covers_cached_objects() {
        let writer = Writer::new();
        writer.insert(cm("a", "x", "web"));
        writer.add_index("app", label_values).unwrap();
        assert_eq!(
            names(writer.store().by_index("app", "web").unwrap()),
            ["a/x"]
        );
    }

    #[test]
    fn an_index_is_never_replaced() {
        let writer = Writer::new();
        writer.insert(cm("a", "x", "web"));
        writer.add_index("app", label_values).unwrap();
        let conflict = writer.add_index("app", |_: &ConfigMap| vec!["other".into()]);
        assert_eq!(conflict.unwrap_err().name, "app");
        let namespace = writer.add_index(NAMESPACE_INDEX, |_: &ConfigMap| Vec::new());
        assert!(namespace.is_err(), "the namespace index stays");
        let store = writer.reader();
        assert_eq!(names(store.by_index("app", "web").unwrap()), ["a/x"]);
        assert!(store.by_index("app", "other").unwrap().is_empty());
        assert_eq!(
            names(store.by_index(NAMESPACE_INDEX, "a").unwrap()),
            ["a/x"]
        );
    }
}
