//! +groupName=bcrds.example.com

pub mod example_types;
pub mod more_types;

pub use example_types::*;
