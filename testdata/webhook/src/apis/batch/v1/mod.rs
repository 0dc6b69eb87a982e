//! +groupName=batch.tutorial.kubebuilder.io

pub mod cronjob_types;
pub mod cronjob_webhook;
pub use cronjob_types::*;
