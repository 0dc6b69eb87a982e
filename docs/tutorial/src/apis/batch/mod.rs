//! The `batch.tutorial.crdgen.dev` API group.
//!
//! +groupName=batch.tutorial.crdgen.dev

pub mod v1;
