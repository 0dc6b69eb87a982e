//! controller-tools' `nogroup`: a group name left empty.
//!
//! +groupName=
pub mod example_types;

pub use example_types::*;
