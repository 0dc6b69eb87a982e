//! `manifests.yaml`: the webhook configurations of the `+kubebuilder:webhook` markers
//! (see `crate::webhook`), one YAML document each, as controller-gen writes them.

use super::{Context, Generate, Output};
use crate::diag::Diagnostics;

pub struct Webhooks;

impl Generate for Webhooks {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, _: &mut Diagnostics) {
        let configurations =
            crate::webhook::configurations(ctx.webhooks, &ctx.opts.webhook_service);
        out.webhooks = super::yaml_documents(&configurations);
    }
}
