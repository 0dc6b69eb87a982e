//! `role.yaml`: the roles of the `+kubebuilder:rbac` markers (see `crate::rbac`), one
//! YAML document each, as controller-gen writes them.

use super::{Context, Generate, Output};
use crate::diag::Diagnostics;

pub struct Rbac;

impl Generate for Rbac {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, _: &mut Diagnostics) {
        let roles = crate::rbac::roles(ctx.rbac_rules, &ctx.opts.role_name);
        // No rule, no file: controller-gen writes none either.
        if roles.is_empty() {
            return;
        }
        let mut text = String::new();
        for role in &roles {
            text.push_str("---\n");
            text.push_str(&crate::yaml::to_string(role));
        }
        out.role = Some(text);
    }
}
