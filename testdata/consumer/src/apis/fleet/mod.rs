//! A kind with two versions that convert by webhook, through the hub `v1`.
//!
//! +groupName=fleet.example.com

pub mod v1;
pub mod v1alpha1;
