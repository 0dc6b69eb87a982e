//! +groupName=example-group.hyphens.example.com
//! +groupGoName=ExampleGroup

pub mod example_types;
pub use example_types::*;
