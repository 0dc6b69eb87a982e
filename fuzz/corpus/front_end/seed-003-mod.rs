//! +groupName=bcrds.example.com

pub mod example_types;
pub mod variant_types;
pub mod widget_types;

pub use example_types::*;
