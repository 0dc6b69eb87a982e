//! `crd`: one CustomResourceDefinition per group and kind, built by `schema` from the
//! model (OpenAPI v3 schemas, checked structural) and written as YAML by the pipeline.

use super::{Context, Generate, Output};
use crate::diag::Diagnostics;

/// The `crd` generator.
pub struct Crd;

impl Generate for Crd {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
        let opts = ctx.opts;
        let crds = crate::schema::crds(
            ctx.model,
            opts.max_description_len,
            crate::known::Options {
                version: opts.kube_version,
                embedded_object_meta: opts.embedded_object_meta,
            },
            &opts.webhook_service,
            diags,
        );
        out.crds.extend(crds);
    }
}
