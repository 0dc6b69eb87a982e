//! One module per controller.

pub mod cron_job;
