//! Fields and variants finished: their docs and markers, wire names after serde's
//! `rename` and `rename_all`, optionality, and two fields that would share a name.

use std::collections::BTreeMap;

use super::rename::RenameRule;
use super::{Body, Field, Fields};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers;
use crate::naming;

/// Markers and docs of fields and variants, wire names and optionality.
pub(super) fn finish_body(
    body: &mut Body,
    rule: Option<RenameRule>,
    container_default: bool,
    file: &str,
    diags: &mut Diagnostics,
) {
    match body {
        Body::Struct(fields) => finish_fields(fields, rule, container_default, file, diags),
        Body::Enum(variants) => {
            for variant in variants {
                let raw_docs = std::mem::take(&mut variant.raw_docs);
                let extracted = markers::extract(&raw_docs, markers::Target::Field, file, diags);
                variant.docs = extracted.docs;
                variant.markers = extracted.markers;
                variant.wire_name = match (&variant.serde.rename, rule) {
                    (Some(name), _) => name.clone(),
                    (None, Some(rule)) => rule.apply_to_variant(&variant.name),
                    (None, None) => variant.name.clone(),
                };
                finish_fields(
                    &mut variant.fields,
                    variant.serde.rename_all,
                    false,
                    file,
                    diags,
                );
            }
        }
    }
}

pub(super) fn finish_fields(
    fields: &mut Fields,
    rule: Option<RenameRule>,
    container_default: bool,
    file: &str,
    diags: &mut Diagnostics,
) {
    let named = matches!(fields, Fields::Named(_));
    let fields = match fields {
        Fields::Named(f) | Fields::Tuple(f) => f,
        Fields::Unit => return,
    };
    for field in fields.iter_mut() {
        let raw_docs = std::mem::take(&mut field.raw_docs);
        let extracted = markers::extract(&raw_docs, markers::Target::Field, file, diags);
        field.docs = extracted.docs;
        field.markers = extracted.markers;
        if named {
            let rust_name = naming::unraw(&field.name);
            field.wire_name = Some(match (&field.serde.rename, rule) {
                (Some(name), _) => name.clone(),
                (None, Some(rule)) => rule.apply_to_field(rust_name),
                (None, None) => rust_name.to_owned(),
            });
        }
        let has = |marker: &markers::MarkerDef| marker.is_present(&field.markers);
        field.optional = !has(&markers::REQUIRED)
            && !has(&markers::K8S_REQUIRED)
            && (field.ty.option_inner().is_some()
                || field.serde.default
                || container_default
                || field.serde.skip_serializing_if
                || has(&markers::OPTIONAL)
                || has(&markers::K8S_OPTIONAL));
    }
    if named {
        report_field_collisions(fields, file, diags);
    }
}

/// Two fields of one Rust name (`#[cfg]` lets a struct declare both) or one wire name
/// would make generated code declare a field twice, or one of them vanish from the CRD.
pub(super) fn report_field_collisions(fields: &[Field], file: &str, diags: &mut Diagnostics) {
    let mut rust: BTreeMap<&str, &Field> = BTreeMap::new();
    let mut wire: BTreeMap<&str, &Field> = BTreeMap::new();
    for field in fields {
        let clash = match rust.insert(naming::unraw(&field.name), field) {
            Some(first) => Some((
                first,
                "is declared twice",
                "keep one field of each name; crdgen does not evaluate `#[cfg]`",
            )),
            None if field.serde.flatten => None,
            None => field
                .wire_name
                .as_deref()
                .and_then(|w| wire.insert(w, field))
                .map(|first| {
                    (
                        first,
                        "serializes under the same name as another field",
                        "give one of them another `#[serde(rename = \"..\")]`",
                    )
                }),
        };
        if let Some((first, what, hint)) = clash {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "field `{}` {what}: `{}` at {file}:{}:{} is also `{}`",
                        field.name,
                        first.name,
                        first.pos.line,
                        first.pos.col,
                        field.wire_name.as_deref().unwrap_or(&field.name),
                    ),
                )
                .at(file, field.pos)
                .hint(hint),
            );
        }
    }
}
