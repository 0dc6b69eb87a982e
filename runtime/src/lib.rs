//! The runtime that crdgen-generated code stands on, the way client-go backs
//! code-generator's output.
//!
//! - `testing` (the `testing` feature, for tests only): an in-memory Kubernetes API server behind `kube::Client`, for testing
//!   generated clientsets and your own controllers without a cluster; and, for
//!   end-to-end tests against a real one, installing and removing CRDs.
//! - `crd` (the `crd` feature, which `testing` brings): what the apiserver does with a
//!   custom resource on a write, defaults, pruning, schema validation and CEL rules, for
//!   unit tests and webhooks to run without a server.
//! - [`field`]: apimachinery's field errors, as webhooks deny with them.
//! - [`client`]: what generated clientsets share.
//! - [`informer`] and [`cache`]: shared informers on kube-runtime's watcher, an indexed
//!   cache, and the factory generated informers wrap.
//! - [`workqueue`] and [`ratelimit`]: client-go's rate-limited work queue.
//! - [`leaderelection`]: client-go's leader election on a Lease.
//! - `manager` (the `manager` feature): the Prometheus endpoint and health probes an
//!   operator serves.
//! - [`finalizer`], [`conditions`], [`owner`], [`events`]: what a sync needs besides
//!   its client (kube-runtime's finalizer and event recorder where it has them).
//! - [`controller`]: client-go's controller pattern (N workers, error classes, graceful
//!   shutdown) around a `sync(key)`, and event handlers that feed it.

#![deny(missing_docs)]

pub mod cache;
pub mod client;
pub mod conditions;
pub mod controller;
#[cfg(feature = "crd")]
pub mod crd;
pub mod events;
pub mod field;
pub mod finalizer;
pub mod informer;
pub mod leaderelection;
#[cfg(feature = "manager")]
pub mod manager;
pub mod owner;
mod panics;
pub mod ratelimit;
#[cfg(feature = "serve")]
mod serve;
pub mod sharding;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "tls")]
mod tls;
#[cfg(feature = "webhook")]
pub mod webhook;
pub mod workqueue;

pub use tokio_util::sync::CancellationToken;
