//! +groupName=bcrds.example.com

pub mod names_types;
pub use names_types::*;
