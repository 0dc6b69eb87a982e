//! An in-memory Kubernetes API server behind [`kube::Client`]: client-go's fake
//! clientset, done through the real client stack. Requests go through kube's own
//! request building, serialization and error handling, so what passes here exercises
//! the same code paths as a cluster.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use crdgen_runtime::testing::ApiServer;
//! use k8s_openapi::api::core::v1::ConfigMap;
//!
//! let server = ApiServer::new();
//! server.register::<ConfigMap>();
//! let api: kube::Api<ConfigMap> = kube::Api::namespaced(server.client(), "default");
//! # Ok(()) }
//! ```
//!
//! What it does as the apiserver does: create (with `generateName`), get, list, update,
//! patch (JSON merge, JSON patch, apply), delete, deletecollection, `dryRun=All`; one
//! monotonically increasing `resourceVersion`; `uid`, `creationTimestamp`;
//! `generation` bumped on spec changes only; 404 NotFound, 409 Conflict (stale
//! resourceVersion, delete preconditions), 409 AlreadyExists, 422 Invalid, 400
//! BadRequest, 410 Expired and 415, each as a `Status` body; the status subresource
//! (the main resource ignores status, `/status` ignores everything else, create drops
//! status); the scale subresource (`/scale` as an `autoscaling/v1` `Scale` through the
//! CRD's replica and selector paths; get, replace with a resourceVersion check, patch);
//! finalizers (delete sets `deletionTimestamp`, removing the last finalizer
//! deletes); label selectors (equality, set-based, existence) and field selectors on
//! `metadata.name` and `metadata.namespace`; `limit`/`continue` paging with
//! `remainingItemCount`; watches from a resourceVersion with ADDED, MODIFIED and
//! DELETED in order (selector transitions become ADDED or DELETED), BOOKMARK events
//! when asked, `sendInitialEvents`, `timeoutSeconds`, and 410 Expired for a
//! resourceVersion older than the history kept (from before the resource was served, as
//! the apiserver's watch cache starts then, or compacted). Test hooks break open watches, cause a watch outage, compact the
//! history, send bookmarks and count the watches opened.
//!
//! A delete that removes an object at once answers with a `Status` naming it (kube's
//! `Either::Right`); one that waits for finalizers answers with the object, its
//! `deletionTimestamp` set and its `generation` bumped, and no new finalizer may be added
//! to it after. A resource without the status subresource has no `/status` (404).
//! Registered from a CustomResourceDefinition ([`ApiServer::register_crd`]), a resource's
//! writes are defaulted, pruned and validated by the version's structural schema and its
//! CEL rules, as [`crate::crd::Validator`] does (its module says what it covers). `testdata/consumer/tests/apiserver.rs` and
//! `tests/crds_e2e.rs` hold these to the real apiserver: the same checks run on both.
//!
//! Server-side apply keeps `managedFields` as the apiserver does (see `store/managed.rs`):
//! an apply merges by the schema's list and map types (a `map` list by its keys, a `set`
//! by value, in structured-merge-diff's order), is refused with 409 when it changes a
//! field another manager owns unless `force`d, and removes the fields its manager
//! stopped applying that no one else owns; creates, updates and patches make their
//! manager (`fieldManager`, else the user agent up to its `/`) own what they changed.
//! A create through apply drops `status` where there is a status subresource.
//!
//! Where it differs from a real apiserver:
//! - Server-side apply: the field sets hold no `.` entries for maps (only for list
//!   items), a conflict message names no API version, resources registered from a Rust
//!   type (no schema) treat every list as atomic, and apply bodies must be JSON (kube
//!   sends JSON).
//! - Strategic merge patch is refused with 415, as for custom resources.
//! - Validation: resources registered from a Rust type reject (422) bodies that do not
//!   deserialize into it; resources registered from a CRD are checked against its schema
//!   and CEL rules (an unchanged value ratcheted from 1.30), but of the string formats
//!   only `date-time`, `date`, `email`, `uuid`, `ipv4`, `ipv6` and `uri` are checked,
//!   and `metadata` only for the name. No admission webhooks.
//! - A `continue` token reads the current objects after its key, not a snapshot at the
//!   first page's resourceVersion (it still expires with [`ApiServer::compact`]).
//! - Event history is kept from when a resource is first served until
//!   [`ApiServer::compact`] (the apiserver's watch cache moves on by itself); nothing
//!   compacts on its own.
//! - A CRD's versions convert as the `None` strategy converts them (`store/versions.rs`)
//!   whatever its strategy: no conversion webhook is called. A storage version that is
//!   not served is served here.
//! - No discovery, no garbage
//!   collection through owner references, no graceful deletion periods, no
//!   authentication or authorization, no field selectors beyond name and namespace.
//! - uids are deterministic per server, `generateName` suffixes come from a counter.
//!
//! [`Link`] puts a faulty network between a client and the server: cut, refusing or
//! slow, with a log of every request. [`ApiServer::listen`] serves it on a loopback
//! port, with a kubeconfig, for programs that find their cluster as kubectl does.
//!
//! For what only a real apiserver can judge, `envtest` (the `envtest` feature) starts
//! one, and [`cluster::connect`] picks the one a suite runs against.

mod auth;
pub mod cluster;
mod crds;
mod definitions;
#[cfg(feature = "envtest")]
pub mod envtest;
mod http;
pub mod link;
mod listen;
mod scale;
mod selector;
mod status;
mod store;
mod version;

use std::any::TypeId;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::{NamespaceResourceScope, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use link::{Link, LinkState};
pub use listen::Listening;
use scale::ScalePaths;
pub use status::ApiError;
use store::{ResourceInfo, Storage};

/// Writes a line to stderr past the test harness's capture, so that a run's log says
/// which suites ran where, and which were skipped.
pub(crate) fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Polls `done` every 10 ms of the Tokio clock (which a paused test clock advances)
/// until it holds, for at most `limit`; whether it held. For what tests wait on: a
/// handler's log, a cache, a condition on the server.
pub async fn eventually(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// The in-memory API server. Cheap to clone: clones share one store.
#[derive(Clone, Default)]
pub struct ApiServer {
    store: Arc<Mutex<Storage>>,
    /// The ServiceAccount tokens it issued (see `auth.rs`).
    tokens: Arc<Mutex<auth::Tokens>>,
}

impl ApiServer {
    /// An empty server: it serves no resource until one is registered
    /// ([`ApiServer::register`], [`ApiServer::register_crd`]).
    pub fn new() -> Self {
        ApiServer::default()
    }

    fn store(&self) -> MutexGuard<'_, Storage> {
        crate::panics::lock(&self.store)
    }

    /// A client whose requests this server answers. Needs a Tokio runtime.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.clone(), "default")
    }

    /// Serves `K`'s resource: scope from `K::Scope`, names from its `Resource` impl,
    /// bodies checked by deserializing into `K`; no `/status` subresource (the status
    /// is written with the rest of the object).
    pub fn register<K>(&self) -> &Self
    where
        K: Resource<DynamicType = ()> + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        self.register_resource::<K>(false)
    }

    /// As [`ApiServer::register`], with a `/status` subresource, as
    /// `+kubebuilder:subresource:status` gives a CRD: the main resource ignores status
    /// changes, `/status` writes only them.
    pub fn register_with_status<K>(&self) -> &Self
    where
        K: Resource<DynamicType = ()> + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        self.register_resource::<K>(true)
    }

    fn register_resource<K>(&self, status_subresource: bool) -> &Self
    where
        K: Resource<DynamicType = ()> + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        self.store().register(ResourceInfo {
            group: K::group(&()).into_owned(),
            version: K::version(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
            kind: K::kind(&()).into_owned(),
            namespaced: TypeId::of::<K::Scope>() == TypeId::of::<NamespaceResourceScope>(),
            status_subresource,
            scale: None,
            validate: Some(Arc::new(|object| {
                serde_json::from_value::<K>(object.clone())
                    .map(drop)
                    .map_err(|e| e.to_string())
            })),
            schema: None,
            stored_at: None,
        });
        self
    }

    /// Gives `K`'s resource a `/scale` subresource reading and writing the given paths
    /// (`.spec.replicas`, `.status.replicas`, `.status.selector`), as
    /// `+kubebuilder:subresource:scale` does. Registers `K` first if nothing has.
    pub fn register_scale<K>(
        &self,
        spec_replicas_path: &str,
        status_replicas_path: &str,
        label_selector_path: Option<&str>,
    ) -> &Self
    where
        K: Resource<DynamicType = ()> + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        let key = resource_key::<K>();
        if self.store().info(&key).is_err() {
            self.register::<K>();
        }
        self.store().set_scale(
            &key,
            ScalePaths {
                spec_replicas: spec_replicas_path.to_owned(),
                status_replicas: status_replicas_path.to_owned(),
                label_selector: label_selector_path.map(str::to_owned),
            },
        );
        self
    }

    /// The server answering as Kubernetes 1.`minor` (by default
    /// [`crate::crd::KUBERNETES_MINOR`]): what `/version` says, and how the CRDs
    /// registered after it validate writes ([`crate::crd::Validator::for_kubernetes`]):
    /// the suites' real-cluster expectations for an older apiserver can so be checked
    /// in memory.
    pub fn kubernetes_minor(self, minor: u16) -> Self {
        self.store().kubernetes_minor = Some(minor);
        self
    }

    /// The Kubernetes minor version to answer as when [`kubernetes_minor`] tells none:
    /// a generated clientset's `in_memory` sets the version its code was generated for
    /// (`--kube-version`).
    ///
    /// [`kubernetes_minor`]: ApiServer::kubernetes_minor
    pub fn default_kubernetes_minor(&self, minor: u16) -> &Self {
        self.store().default_kubernetes_minor = Some(minor);
        self
    }

    /// The Kubernetes minor version the server answers as.
    pub(crate) fn minor(&self) -> u16 {
        let store = self.store();
        store
            .kubernetes_minor
            .or(store.default_kubernetes_minor)
            .unwrap_or(crate::crd::KUBERNETES_MINOR)
    }

    /// Serves every served version of a CustomResourceDefinition.
    ///
    /// # Panics
    ///
    /// When kube-apiserver would refuse the CRD (a default its schema refuses, say): a
    /// test's setup that no cluster would take. [`try_register_crd`] answers the
    /// apiserver's 422 instead.
    ///
    /// [`try_register_crd`]: ApiServer::try_register_crd
    pub fn register_crd(&self, crd: &CustomResourceDefinition) -> &Self {
        if let Err(refused) = self.try_register_crd(crd) {
            panic!("{}", refused.message);
        }
        self
    }

    /// Serves every served version of a CustomResourceDefinition, or answers the 422
    /// kube-apiserver answers a create of it with, in its words, when it would refuse it.
    ///
    /// # Errors
    ///
    /// The apiserver's `Invalid` answer, one cause per field error.
    pub fn try_register_crd(&self, crd: &CustomResourceDefinition) -> Result<&Self, ApiError> {
        let json = serde_json::to_value(crd).map_err(|e| ApiError::bad_request(e.to_string()))?;
        self.store_crd(&json)?;
        Ok(self)
    }

    /// Stores `object` as if created, keeping its status: a way to seed a test.
    /// Registers `K` (without a status subresource) if nothing has yet; a later
    /// `register` or generated `Clientset::in_memory` keeps what was seeded.
    ///
    /// # Errors
    ///
    /// The [`ApiError`] the server would answer a create with (an invalid object, say).
    pub fn insert<K>(&self, object: &K) -> Result<K, ApiError>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        let key = resource_key::<K>();
        if self.store().info(&key).is_err() {
            self.register::<K>();
        }
        let body =
            serde_json::to_value(object).map_err(|e| ApiError::bad_request(e.to_string()))?;
        let namespace = match self.store().info(&key)?.namespaced {
            true => Some(
                object
                    .meta()
                    .namespace
                    .clone()
                    .unwrap_or_else(|| "default".to_owned()),
            ),
            false => None,
        };
        let stored = self.store().create(
            &key,
            namespace.as_deref(),
            body,
            store::Write {
                dry_run: false,
                owner: store::Owner::Fixture,
            },
        )?;
        serde_json::from_value(stored).map_err(|e| ApiError::bad_request(e.to_string()))
    }

    /// [`insert`](Self::insert) as a builder, for one-line fixtures:
    /// `Clientset::in_memory(&ApiServer::new().with(&a).with(&b))`.
    ///
    /// # Panics
    /// When the object cannot be stored (an invalid name, a duplicate): a broken fixture.
    pub fn with<K>(self, object: &K) -> Self
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + 'static,
        K::Scope: 'static,
    {
        if let Err(e) = self.insert(object) {
            panic!("cannot seed the in-memory API server: {}", e.message);
        }
        self
    }

    /// Ends every open watch, as a dropped connection would: watchers must re-watch.
    pub fn break_watches(&self) {
        self.store().break_watches();
    }

    /// Ends every open watch and refuses new ones (503) until the guard is dropped:
    /// changes made meanwhile reach watchers only through their relist or re-watch.
    pub fn watch_outage(&self) -> WatchOutage {
        self.store().set_outage(true);
        WatchOutage {
            server: self.clone(),
        }
    }

    /// How many watches of `K`'s resource have been opened.
    pub fn watch_count<K: Resource<DynamicType = ()>>(&self) -> usize {
        let key = resource_key::<K>();
        self.store().watch_count(&key)
    }

    /// Forgets the event history, so that watches and `continue` tokens from before now
    /// get 410 Gone and clients must relist.
    pub fn compact(&self) {
        self.store().compact();
    }

    /// Sends a BOOKMARK with the current resourceVersion to every watch that allows them.
    pub fn send_bookmarks(&self) {
        self.store().send_bookmarks();
    }
}

/// An outage of watches: see [`ApiServer::watch_outage`].
#[must_use = "the outage ends when this guard is dropped"]
pub struct WatchOutage {
    server: ApiServer,
}

impl Drop for WatchOutage {
    fn drop(&mut self) {
        self.server.store().set_outage(false);
    }
}

impl tower::Service<::http::Request<kube::client::Body>> for ApiServer {
    type Response = ::http::Response<http::Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ::http::Request<kube::client::Body>) -> Self::Future {
        let server = self.clone();
        Box::pin(async move { Ok(server.handle(request).await) })
    }
}

/// Where `K`'s objects live in the store.
fn resource_key<K: Resource<DynamicType = ()>>() -> store::ResourceKey {
    (
        K::group(&()).into_owned(),
        K::version(&()).into_owned(),
        K::plural(&()).into_owned(),
    )
}
