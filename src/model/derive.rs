//! kube-derive kinds (`#[derive(CustomResource)]`): the `#[kube(..)]` attributes turned
//! into a `Kind`, and into the markers that mean the same, so that the CRD generator
//! reads one language.

use std::collections::BTreeMap;

use super::kinds::reachable;
use super::names;
use super::resolve::{Resolver, Scope};
use super::{Kind, KindStyle, Target, TypeDef, TypeKey, TypeRef, Version};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{self, Marker, MarkerDef, Value};
use crate::naming;

pub(super) fn derive_kind(
    ty: &TypeDef,
    attrs: &super::KubeAttrs,
    version: &Version,
    scope: Option<&Scope>,
    resolver: &Resolver<'_>,
    exceptions: &BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> Option<Kind> {
    let error = |message: String, hint: &str| {
        Diagnostic::error(Code::BadAttribute, message)
            .at(&ty.file, attrs.pos)
            .hint(hint)
    };
    let mut ok = true;
    for (key, value) in [
        ("group", &attrs.group),
        ("version", &attrs.version),
        ("kind", &attrs.kind),
    ] {
        if value.is_empty() {
            diags.push(error(
                format!("`#[kube(...)]` on `{}` has no `{key}`", ty.key.name),
                "kube-derive needs `group`, `version` and `kind`",
            ));
            ok = false;
        }
    }
    for (key, value) in [("kind", Some(&attrs.kind)), ("root", attrs.root.as_ref())] {
        if let Some(value) = value.filter(|v| !v.is_empty() && !naming::is_identifier(v)) {
            diags.push(error(
                format!(
                    "`{key} = \"{value}\"` on `{}` is not a Rust type name",
                    ty.key.name
                ),
                "kube-derive names the generated root type after it: use a PascalCase identifier",
            ));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    if let Err(d) = names::check_group(&attrs.group, false, &ty.file, attrs.pos) {
        diags.push(d);
        return None;
    }
    if attrs.version != version.name {
        diags.push(
            Diagnostic::error(
                Code::Conflict,
                format!(
                    "`{}` declares version `{}` but lives in `{}`",
                    ty.key.name, attrs.version, version.name
                ),
            )
            .at(&ty.file, attrs.pos)
            .hint(format!(
                "move it to the `{}` directory or change `version`",
                attrs.version
            )),
        );
        return None;
    }
    let kind = attrs.kind.clone();
    let singular = attrs
        .singular
        .clone()
        .unwrap_or_else(|| naming::singular(&kind));
    let plural = attrs
        .plural
        .clone()
        .unwrap_or_else(|| naming::pluralize(&singular));
    if let Some(exception) = exceptions.get(&kind).filter(|e| **e != plural) {
        diags.push(
            Diagnostic::error(Code::Conflict, format!("plural exception `{kind}:{exception}` cannot change kube-derive's plural `{plural}`"))
                .at(&ty.file, attrs.pos)
                .hint(format!("set `#[kube(plural = \"{exception}\")]` on `{}` instead", ty.key.name)),
        );
    }
    let root_name = attrs.root.clone().unwrap_or_else(|| kind.clone());
    let root = TypeKey {
        name: root_name,
        ..ty.key.clone()
    };
    let path = reachable(ty, diags)?;
    let status = attrs.status.as_ref().map(|s| {
        let mut status = TypeRef::Path {
            segments: s.split("::").map(str::to_owned).collect(),
            lifetimes: Vec::new(),
            args: Vec::new(),
            target: None,
        };
        if let Some(scope) = scope {
            resolver.resolve(&mut status, scope);
        }
        status
    });
    Some(Kind {
        name: kind,
        style: KindStyle::KubeDerive,
        root,
        path,
        spec: Some(TypeRef::Path {
            segments: vec![ty.key.name.clone()],
            lifetimes: Vec::new(),
            args: Vec::new(),
            target: Some(Box::new(Target::Local(ty.key.clone()))),
        }),
        status_subresource: status.is_some(),
        status,
        plural,
        singular,
        names_pos: attrs.pos,
        namespaced: attrs.namespaced,
        short_names: attrs.short_names.clone(),
        categories: attrs.categories.clone(),
        type_meta_field: None,
        markers: derive_markers(ty, attrs),
        root_rules: attrs.validations.clone(),
        file: ty.file.clone(),
        pos: ty.pos,
    })
}

/// The spec struct's markers, plus kube-derive's CRD attributes said as the markers
/// that mean the same, so that the CRD generator reads one language.
pub(super) fn derive_markers(ty: &TypeDef, attrs: &super::KubeAttrs) -> Vec<Marker> {
    let mut out = ty.markers.clone();
    let marker = |def: &'static MarkerDef, value: Value| Marker::new(def, value, attrs.pos);
    let args = |map: &BTreeMap<String, String>| {
        Value::Args(
            map.iter()
                .map(|(k, v)| {
                    let value = match (k.as_str(), v.parse::<i64>()) {
                        ("priority", Ok(n)) => Value::Int(n),
                        _ => Value::String(v.clone()),
                    };
                    (k.clone(), value)
                })
                .collect(),
        )
    };
    out.extend(
        attrs
            .printcolumns
            .iter()
            .map(|p| marker(&markers::PRINT_COLUMN, args(p))),
    );
    out.extend(attrs.scale.iter().map(|s| marker(&markers::SCALE, args(s))));
    out.extend(attrs.selectable.iter().map(|path| {
        marker(
            &markers::SELECTABLE_FIELD,
            args(&BTreeMap::from([("JSONPath".to_owned(), path.clone())])),
        )
    }));
    if attrs.storage != Some(false) {
        out.push(marker(&markers::STORAGE_VERSION, Value::Bool(true)));
    }
    if attrs.served == Some(false) {
        out.push(marker(&markers::UNSERVED_VERSION, Value::Bool(true)));
    }
    if let Some(warning) = &attrs.deprecated {
        let warning: BTreeMap<String, String> = warning
            .iter()
            .map(|w| ("warning".to_owned(), w.clone()))
            .collect();
        out.push(marker(&markers::DEPRECATED_VERSION, args(&warning)));
    }
    if !attrs.annotations.is_empty() || !attrs.labels.is_empty() {
        let list = |pairs: &[(String, String)]| {
            Value::List(pairs.iter().map(|(k, v)| format!("{k}={v}")).collect())
        };
        let metadata = BTreeMap::from([
            ("annotations".to_owned(), list(&attrs.annotations)),
            ("labels".to_owned(), list(&attrs.labels)),
        ]);
        out.push(marker(&markers::METADATA, Value::Args(metadata)));
    }
    out
}

/// kube-derive kinds must agree with the group name their directory declares.
pub(super) fn check_derive_groups(group_name: &str, version: &Version, diags: &mut Diagnostics) {
    for kind in version
        .kinds
        .values()
        .filter(|k| k.style == KindStyle::KubeDerive)
    {
        let Some(attrs) = kind
            .spec_key()
            .and_then(|k| version.types.get(&k.id())?.kube.as_ref())
        else {
            continue;
        };
        if !group_name.is_empty() && attrs.group != group_name {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "kind `{}` declares group `{}` but its directory's group is `{group_name}`",
                        kind.name, attrs.group
                    ),
                )
                .at(&kind.file, attrs.pos)
                .hint("kinds of one group directory share one API group"),
            );
        }
    }
}
