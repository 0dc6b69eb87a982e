//! +groupName=ab.example.com
//! +groupGoName=Shared

pub mod example_types;
pub use example_types::*;
