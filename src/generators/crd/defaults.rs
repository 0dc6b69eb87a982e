//! The defaults of a CRD version's schema, checked as kube-apiserver checks them when the
//! CRD is written: each must meet its node's validations and rules and keep no field its
//! schema prunes. A default the apiserver would refuse is an error at its marker, in the
//! apiserver's words. The check is crdgen-runtime's (the in-memory API server refuses
//! such a CRD with the same answer), which the command line has; a build script's crdgen
//! leaves it to the command line and the apiserver.

use serde_json::Value;

use crate::diag::Diagnostics;
use crate::markers::schema::DEFAULT_ORIGIN;
use crate::model::Kind;

/// Reports every default of `schema` (the `version` of `kind`) the apiserver of
/// Kubernetes 1.`minor` would refuse, and takes the defaults' origins off.
pub(super) fn check(
    schema: &mut Value,
    kind: &Kind,
    version: &str,
    minor: u16,
    diags: &mut Diagnostics,
) {
    #[cfg(feature = "cli")]
    refused(schema, kind, version, minor, diags);
    #[cfg(not(feature = "cli"))]
    let _ = (kind, version, minor, &diags);
    crate::markers::schema::strip_origin(schema, DEFAULT_ORIGIN);
}

/// Reports each default of `schema` the apiserver refuses, at its marker (at the kind
/// for a default of no marker of the user's).
#[cfg(feature = "cli")]
fn refused(schema: &Value, kind: &Kind, version: &str, minor: u16, diags: &mut Diagnostics) {
    use crate::diag::{Code, Diagnostic, Pos};
    crdgen_runtime::crd::refused_defaults(schema, minor, |node, errors| {
        let origin = &node[DEFAULT_ORIGIN];
        let file = origin["file"].as_str().filter(|f| !f.is_empty());
        let pos = Pos {
            line: origin["line"].as_u64().unwrap_or(0) as usize,
            col: origin["col"].as_u64().unwrap_or(0) as usize,
        };
        for error in errors {
            let diagnostic = Diagnostic::error(
                Code::BadMarkerArgument,
                format!(
                    "kube-apiserver refuses the CRD of `{}` {version}: `openAPIV3Schema.{error}`",
                    kind.name
                ),
            )
            .hint("a default must meet its field's own validations and rules: change the one or the other");
            diags.push(match file {
                Some(file) if pos.line > 0 => diagnostic.at(file, pos),
                _ => diagnostic.at(&kind.file, kind.pos),
            });
        }
    });
}
