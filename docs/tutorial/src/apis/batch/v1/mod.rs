//! Version `v1` of `batch.tutorial.crdgen.dev`.

pub mod cron_job_types;

pub use cron_job_types::*;
