//! Kind-level markers, and the same through kube-derive's attributes.
//!
//! +groupName=kinds.crdgen.dev

pub mod kinds_types;

pub use kinds_types::*;
