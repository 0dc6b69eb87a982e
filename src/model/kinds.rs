//! Marker-style kinds (`+genclient`, `+kubebuilder:object:root`): a struct with
//! `metadata: ObjectMeta` and a flattened `TypeMeta`, checked and turned into a `Kind`.

use std::collections::BTreeMap;

use super::{Body, Fields, Kind, KindStyle, Target, TypeDef, TypeKey, TypeRef};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{self, Value};
use crate::naming;

pub(super) fn list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::List(items)) => items.clone(),
        _ => Vec::new(),
    }
}

pub(super) fn marker_kind(
    ty: &TypeDef,
    exceptions: &BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> Option<Kind> {
    let name = &ty.key.name;
    let error = |code: Code, message: String, hint: String| {
        Diagnostic::error(code, message)
            .at(&ty.file, ty.pos)
            .hint(hint)
    };
    let Body::Struct(Fields::Named(fields)) = &ty.body else {
        diags.push(error(Code::Unsupported, format!("kind `{name}` must be a struct with named fields"), "a kind looks like `pub struct Example { pub metadata: ObjectMeta, pub spec: ExampleSpec, .. }`".into()));
        return None;
    };
    if !ty.generics.is_empty() {
        diags.push(error(
            Code::Unsupported,
            format!("kind `{name}` has type parameters"),
            "a kind is a concrete type; move the generic part into a field".into(),
        ));
        return None;
    }
    let by_wire = |wire: &str| {
        fields
            .iter()
            .find(|f| f.wire_name.as_deref() == Some(wire) && !f.serde.flatten)
    };
    let Some(metadata) = by_wire("metadata") else {
        diags.push(error(
            Code::KindWithoutMetadata,
            format!("kind `{name}` has no `metadata` field"),
            "add `pub metadata: ObjectMeta` (k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)".into(),
        ));
        return None;
    };
    match metadata.ty.last_segment() {
        Some("ObjectMeta") => {}
        // A `FooList` marked root, as Go projects do: kube lists need no type of their own.
        Some("ListMeta") => return None,
        _ => {
            diags.push(
                Diagnostic::error(
                    Code::KindWithoutMetadata,
                    format!("`metadata` of kind `{name}` must be `ObjectMeta`"),
                )
                .at(&ty.file, metadata.pos)
                .hint("use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta"),
            );
            return None;
        }
    }
    let type_meta = fields.iter().find(|f| {
        f.serde.flatten
            && (f.ty.last_segment() == Some("TypeMeta")
                || f.ty.option_inner().and_then(TypeRef::last_segment) == Some("TypeMeta"))
    });
    let type_meta_hint = "add `#[serde(flatten, default)] pub types: Option<TypeMeta>` (kube::core::TypeMeta), as Go kinds embed metav1.TypeMeta";
    match type_meta {
        None => {
            diags.push(error(
                Code::KindWithoutTypeMeta,
                format!("kind `{name}` has no flattened `TypeMeta` field, so it cannot carry apiVersion and kind"),
                type_meta_hint.into(),
            ));
            return None;
        }
        Some(f) if f.ty.option_inner().is_none() => {
            diags.push(
                Diagnostic::error(Code::KindWithoutTypeMeta, format!("`{}` of kind `{name}` must be `Option<TypeMeta>`", f.name))
                    .at(&ty.file, f.pos)
                    .hint("list items from the apiserver carry no apiVersion or kind; only an Option lets them deserialize"),
            );
            return None;
        }
        Some(_) => {}
    }
    for field in [Some(metadata), type_meta].into_iter().flatten() {
        if !field.visibility.crate_visible() {
            diags.push(
                Diagnostic::error(
                    Code::UnreachableType,
                    format!(
                        "field `{}` of kind `{name}` is private to its module",
                        field.name
                    ),
                )
                .at(&ty.file, field.pos)
                .hint(
                    "generated code lives in another module: make the field `pub` or `pub(crate)`",
                ),
            );
        }
    }
    let path = reachable(ty, diags)?;

    let scope = markers::RESOURCE.arg_text(&ty.markers, "scope");
    let non_namespaced = markers::NON_NAMESPACED.is_set(&ty.markers);
    let namespaced = match scope {
        None => !non_namespaced,
        Some("Cluster") => false,
        Some("Namespaced") if non_namespaced => {
            diags.push(error(
                Code::Conflict,
                format!(
                    "kind `{name}` is marked both `+genclient:nonNamespaced` and `scope=Namespaced`"
                ),
                "keep one of the two".into(),
            ));
            true
        }
        Some("Namespaced") => true,
        Some(other) => {
            diags.push(error(
                Code::BadMarkerArgument,
                format!("`scope={other}` on kind `{name}` is neither `Namespaced` nor `Cluster`"),
                "write `+kubebuilder:resource:scope=Cluster` or `scope=Namespaced`".into(),
            ));
            true
        }
    };
    let resource_name = markers::RESOURCE_NAME.text(&ty.markers);
    let path_marker = markers::RESOURCE.arg_text(&ty.markers, "path");
    let plural = match (resource_name, path_marker) {
        (Some(a), Some(b)) if a != b => {
            diags.push(error(
                Code::Conflict,
                format!("kind `{name}` has two plurals: `+resourceName={a}` and `path={b}`"),
                "keep one of the two".into(),
            ));
            a.to_owned()
        }
        (Some(p), _) | (None, Some(p)) => p.to_owned(),
        (None, None) => naming::plural(name, exceptions),
    };
    let names_pos = ty
        .markers
        .iter()
        .rev()
        .find(|m| m.def == &markers::RESOURCE || m.def == &markers::RESOURCE_NAME)
        .map_or(ty.pos, |m| m.pos);
    let by_rust_wire = |wire: &str| by_wire(wire).map(|f| f.ty.clone());
    Some(Kind {
        name: name.clone(),
        style: KindStyle::Markers,
        root: ty.key.clone(),
        path,
        spec: by_rust_wire("spec"),
        status: by_rust_wire("status").map(|t| t.option_inner().cloned().unwrap_or(t)),
        status_subresource: markers::STATUS.is_set(&ty.markers),
        plural,
        names_pos,
        singular: markers::RESOURCE
            .arg_text(&ty.markers, "singular")
            .map_or_else(|| naming::singular(name), str::to_owned),
        namespaced,
        short_names: list(markers::RESOURCE.arg(&ty.markers, "shortName")),
        categories: list(markers::RESOURCE.arg(&ty.markers, "categories")),
        type_meta_field: type_meta.map(|f| f.name.clone()),
        markers: ty.markers.clone(),
        root_rules: Vec::new(),
        file: ty.file.clone(),
        pos: ty.pos,
    })
}

/// The module path generated code names `ty` by, or an error saying why it cannot.
pub(super) fn reachable(ty: &TypeDef, diags: &mut Diagnostics) -> Option<Vec<String>> {
    if ty.reachable_via.is_none() {
        let hint = if ty.visibility.crate_visible() {
            format!(
                "declare its module `pub`, or re-export it with `pub use {}::*;` in the version's mod.rs",
                ty.key.module.as_deref().unwrap_or("self")
            )
        } else {
            format!("make `{}` `pub`", ty.key.name)
        };
        diags.push(
            Diagnostic::error(
                Code::UnreachableType,
                format!(
                    "generated code cannot name `{}`: it is not visible outside its module",
                    ty.key.name
                ),
            )
            .at(&ty.file, ty.pos)
            .hint(hint),
        );
    }
    ty.reachable_via.clone()
}

impl Kind {
    /// The model type of the spec, when it is one.
    pub fn spec_key(&self) -> Option<&TypeKey> {
        match self.spec.as_ref()? {
            TypeRef::Path {
                target: Some(target),
                ..
            } => match &**target {
                Target::Local(key) => Some(key),
                Target::Absolute(_) => None,
            },
            _ => None,
        }
    }
}
