//! The kind controller-gen's CRDs in `../../../controller-gen/` were made from, in Rust.
//!
//! +groupName=oracle.example.com

pub mod embeds_types;

pub use embeds_types::*;
