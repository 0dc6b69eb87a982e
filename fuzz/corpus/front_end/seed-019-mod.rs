//! One field per type mapping.
//!
//! +groupName=types.crdgen.dev

pub mod mapped_types;

pub use mapped_types::*;
