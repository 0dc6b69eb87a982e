//! The bcrds API group.
//!
//! +groupName=bcrds.example.com

pub mod v1alpha1;
