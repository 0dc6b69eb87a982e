//! +groupName=example-group.hyphens.example.com
//! +groupGoName=Example-Group

pub mod example_types;
pub use example_types::*;
