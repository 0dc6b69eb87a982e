//! +groupName=bcrds.example.com

pub mod a_types;
pub mod b_types;
pub use a_types::*;
