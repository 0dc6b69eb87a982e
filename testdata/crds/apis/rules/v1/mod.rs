//! CEL rules at every level of a schema, from every marker that writes one.
//!
//! +groupName=rules.crdgen.dev

pub mod ruled_types;

pub use ruled_types::*;
