//! +groupName=example-group.hyphens.example.com
//! +groupGoName=HyphenGroup

pub mod example_types;
pub use example_types::*;
