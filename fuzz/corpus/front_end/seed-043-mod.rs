//! +groupName=bcrds.example.com

pub mod example_types;
pub mod gone_types;

pub use example_types::*;
