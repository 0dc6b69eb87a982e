//! One field per schema marker.
//!
//! +groupName=markers.crdgen.dev

pub mod validated_types;

pub use validated_types::*;
