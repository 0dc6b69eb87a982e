//! +groupName=bcrds.example.com

pub mod example_types;
pub use example_types::*;
