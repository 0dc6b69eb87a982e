//! The runtime that crdgen-generated code stands on, the way client-go backs
//! code-generator's output.
//!
//! - [`testing`]: an in-memory Kubernetes API server behind `kube::Client`, for testing
//!   generated clientsets and your own controllers without a cluster.
//! - [`client`]: what generated clientsets share.
//! - [`informer`] and [`cache`]: shared informers on kube-runtime's watcher, an indexed
//!   cache, and the factory generated informers wrap.

pub mod cache;
pub mod client;
pub mod informer;
pub mod testing;

pub use tokio_util::sync::CancellationToken;
