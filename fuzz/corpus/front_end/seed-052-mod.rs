//! +groupName=../../../../x/grp

pub mod example_types;
pub use example_types::*;
