//! +groupName=bcrds.example.com

pub mod bus_types;
pub use bus_types::*;
