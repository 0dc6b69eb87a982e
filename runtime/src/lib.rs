//! The runtime that crdgen-generated code stands on, the way client-go backs
//! code-generator's output.
//!
//! - [`testing`]: an in-memory Kubernetes API server behind `kube::Client`, for testing
//!   generated clientsets and your own controllers without a cluster.
//! - [`client`]: what generated clientsets share.

pub mod client;
pub mod testing;
