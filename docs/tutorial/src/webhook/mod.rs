//! The operator's webhooks, served by crdgen-runtime's webhook server, which `main.rs`
//! starts beside the controllers (with the certificate in `--cert-dir`; `--no-webhooks`
//! runs without it). `crdgen create webhook` adds each kind's here.

pub mod cron_job;

use crdgen_runtime::webhook::Webhooks;

/// Every webhook of the operator, by path.
pub fn webhooks() -> Webhooks {
    let webhooks = Webhooks::new();
    let webhooks = cron_job::register(webhooks);
    // crdgen:add-webhooks
    webhooks
}
