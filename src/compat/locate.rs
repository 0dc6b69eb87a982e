//! Where in the Rust source a finding on generated CRDs comes from: the field its
//! schema path leads to (through `Option`, `Box`, lists, maps and flattened structs),
//! and on that field the marker the rule is about, when it has one. A path the source
//! no longer has (a field removed) stops at the nearest field it still has.

use super::Finding;
use crate::diag::{Code, Pos};
use crate::model::{Field, Kind, Model, Target, TypeDef, TypeRef};

/// Points each finding of `findings` that `model` makes at its source.
pub fn locate(model: &Model, findings: &mut [Finding]) {
    for finding in findings {
        if let Some(at) = source(model, finding) {
            finding.at = at;
        }
    }
}

fn source(model: &Model, f: &Finding) -> Option<(String, Pos)> {
    let (plural, group) = f.crd.split_once('.')?;
    let version = model
        .groups
        .values()
        .find(|g| g.name == group)?
        .versions
        .get(f.version.as_deref()?)?;
    let kind = version.kinds.values().find(|k| k.plural == plural)?;
    let mut at = (kind.file.clone(), kind.pos);
    let mut def = model.type_def(&kind.root);
    let mut markers = def.map(|d| (d.file.as_str(), d.markers.as_slice()));
    let mut ty: Option<&TypeRef> = None;
    for step in super::steps(&f.change.path) {
        match step {
            "[*]" | "*" => {
                ty = ty.and_then(element);
                def = ty.and_then(|t| resolve(model, t));
                markers = None;
            }
            name => {
                let (holder, field) = match def.and_then(|d| field(model, d, name)) {
                    Some(found) => found,
                    None => match root_field(kind, name, def.is_none()) {
                        Some(t) => {
                            ty = Some(t);
                            def = resolve(model, t);
                            markers = def.map(|d| (d.file.as_str(), d.markers.as_slice()));
                            continue;
                        }
                        None => break,
                    },
                };
                at = (holder.file.clone(), field.pos);
                markers = Some((holder.file.as_str(), field.markers.as_slice()));
                ty = Some(&field.ty);
                def = resolve(model, &field.ty);
            }
        }
    }
    let about = about(f.change.code);
    if let Some((file, markers)) = markers
        && let Some(marker) = markers.iter().find(|m| {
            about
                .iter()
                .any(|word| m.name.to_lowercase().contains(word))
        })
    {
        at = (file.to_owned(), marker.pos);
    }
    Some(at)
}

/// The words of the markers a rule is about (lowercased).
fn about(code: Code) -> &'static [&'static str] {
    match code {
        Code::PatternChanged => &["pattern"],
        Code::FormatChanged => &["format"],
        Code::EnumNarrowed => &["enum"],
        Code::DefaultChanged => &["default"],
        Code::RuleAdded | Code::RuleChanged => &["xvalidation"],
        Code::ListTypeChanged => &["listtype", "listmapkey", "maptype"],
        Code::NullableRemoved => &["nullable"],
        Code::BoundTightened => &[
            "maximum",
            "minimum",
            "maxlength",
            "minlength",
            "maxitems",
            "minitems",
            "maxproperties",
            "minproperties",
            "multipleof",
            "exclusive",
        ],
        Code::PreserveUnknownRemoved => &["preserveunknownfields"],
        Code::FieldRequired => &["required"],
        _ => &[],
    }
}

/// A kube-derive kind's `spec` and `status`, whose root type crdgen writes itself.
fn root_field<'a>(kind: &'a Kind, name: &str, at_root: bool) -> Option<&'a TypeRef> {
    match (name, at_root) {
        ("spec", true) => kind.spec.as_ref(),
        ("status", true) => kind.status.as_ref(),
        _ => None,
    }
}

/// The field of `def` whose wire name is `name`, looking into flattened fields; with
/// the type it is declared in.
fn field<'a>(model: &'a Model, def: &'a TypeDef, name: &str) -> Option<(&'a TypeDef, &'a Field)> {
    for f in def.named_fields() {
        if f.serde.flatten {
            if let Some(found) = resolve(model, &f.ty).and_then(|inner| field(model, inner, name)) {
                return Some(found);
            }
        } else if f.wire_name.as_deref().unwrap_or(&f.name) == name {
            return Some((def, f));
        }
    }
    None
}

/// What a list's or map's elements are: `Vec<T>`'s `T`, `BTreeMap<K, V>`'s `V`.
fn element(ty: &TypeRef) -> Option<&TypeRef> {
    match unwrapped(ty) {
        TypeRef::Path { args, .. } => args.last(),
        TypeRef::Array { elem, .. } => Some(elem),
        TypeRef::Other(_) => None,
    }
}

/// `T` of `Option<T>`, `Box<T>` and `Arc<T>`, as often as they nest.
fn unwrapped(ty: &TypeRef) -> &TypeRef {
    match ty {
        TypeRef::Path { args, .. }
            if matches!(ty.last_segment(), Some("Option" | "Box" | "Arc" | "Rc"))
                && args.len() == 1 =>
        {
            unwrapped(&args[0])
        }
        _ => ty,
    }
}

/// The model's struct or enum `ty` names.
fn resolve<'a>(model: &'a Model, ty: &TypeRef) -> Option<&'a TypeDef> {
    match unwrapped(ty) {
        TypeRef::Path {
            target: Some(target),
            ..
        } => match target.as_ref() {
            Target::Local(key) => model.type_def(key),
            Target::Absolute(_) => None,
        },
        _ => None,
    }
}
