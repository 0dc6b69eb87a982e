//! +groupName=Bad Group!

pub mod example_types;
pub use example_types::*;
