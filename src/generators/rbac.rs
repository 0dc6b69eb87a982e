//! `role.yaml`: the roles of the `+kubebuilder:rbac` markers (see `crate::rbac`), one
//! YAML document each, as controller-gen writes them.

use super::{Context, Generate, Output};
use crate::diag::Diagnostics;

pub struct Rbac;

impl Generate for Rbac {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, _: &mut Diagnostics) {
        out.role = super::yaml_documents(&crate::rbac::roles(ctx.rbac_rules, &ctx.opts.role_name));
    }
}
