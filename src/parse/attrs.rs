//! `#[derive]`, `#[serde]` and `#[kube]` attributes, read as serde_derive and
//! kube-derive read them. Keys crdgen has no use for are skipped, not rejected: the
//! compiler already checks them.

use std::collections::BTreeMap;

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::Ctx;
use crate::diag::Pos;
use crate::model::rename::RenameRule;
use crate::model::{KubeAttrs, RootRule, SerdeContainer, SerdeField, SerdeVariant, TypeRef};

/// Last segments of every `#[derive(..)]` path: `serde::Serialize` → `Serialize`.
pub(super) fn derives(attrs: &[syn::Attribute], ctx: &mut Ctx<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                out.push(last.ident.to_string());
            }
            Ok(())
        });
        if let Err(e) = parsed {
            ctx.error(
                e.span(),
                format!("malformed #[derive]: {e}"),
                "write derives as `#[derive(Clone, Debug)]`",
            );
        }
    }
    out.sort();
    out.dedup();
    out
}

pub(super) fn serde_container(attrs: &[syn::Attribute], ctx: &mut Ctx<'_>) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    each_serde(attrs, ctx, |meta, ctx| {
        let key = key(&meta);
        match key.as_str() {
            "rename_all" => out.rename_all = rename_rule(&meta, ctx)?,
            "rename" => out.rename = serialize_name(&meta)?,
            "tag" => out.tag = Some(string_value(&meta)?),
            "content" => out.content = Some(string_value(&meta)?),
            "untagged" => out.untagged = true,
            "default" => {
                skip_value(&meta)?;
                out.default = true;
            }
            "transparent" => out.transparent = true,
            // serde's `into`: another type is what its `Serialize` writes.
            "into" => out.wire = Some(type_value(&meta)?),
            "deny_unknown_fields" => out.deny_unknown_fields = true,
            _ => skip_value(&meta)?,
        }
        Ok(())
    });
    out
}

pub(super) fn serde_field(attrs: &[syn::Attribute], ctx: &mut Ctx<'_>) -> SerdeField {
    let mut out = SerdeField::default();
    let (mut skip_ser, mut skip_de) = (false, false);
    each_serde(attrs, ctx, |meta, _| {
        match key(&meta).as_str() {
            "rename" => out.rename = serialize_name(&meta)?,
            "default" => {
                skip_value(&meta)?;
                out.default = true;
            }
            "flatten" => out.flatten = true,
            "skip" => out.skip = true,
            "skip_serializing" => skip_ser = true,
            "skip_deserializing" => skip_de = true,
            "skip_serializing_if" => {
                skip_value(&meta)?;
                out.skip_serializing_if = true;
            }
            "with" | "serialize_with" => out.with = Some(string_value(&meta)?),
            _ => skip_value(&meta)?,
        }
        Ok(())
    });
    out.skip |= skip_ser && skip_de;
    out
}

pub(super) fn serde_variant(attrs: &[syn::Attribute], ctx: &mut Ctx<'_>) -> SerdeVariant {
    let mut out = SerdeVariant::default();
    each_serde(attrs, ctx, |meta, ctx| {
        match key(&meta).as_str() {
            "rename" => out.rename = serialize_name(&meta)?,
            "rename_all" => out.rename_all = rename_rule(&meta, ctx)?,
            "skip" | "skip_serializing" => out.skip = true,
            "other" => out.other = true,
            _ => skip_value(&meta)?,
        }
        Ok(())
    });
    out
}

/// The `#[kube(...)]` attributes of a `#[derive(CustomResource)]` struct, or `None`
/// when the struct has no such derive.
pub(super) fn kube_attrs(attrs: &[syn::Attribute], ctx: &mut Ctx<'_>) -> Option<KubeAttrs> {
    let derives_cr = attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|m| {
                found |= m
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "CustomResource");
                Ok(())
            });
            found
        });
    if !derives_cr {
        return None;
    }
    let mut out = KubeAttrs::default();
    let mut first_pos = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
        first_pos.get_or_insert(Pos::of(attr.span()));
        let parsed = attr.parse_nested_meta(|meta| {
            match key(&meta).as_str() {
                "group" => out.group = string_value(&meta)?,
                "version" => out.version = string_value(&meta)?,
                "kind" => out.kind = string_value(&meta)?,
                "root" => out.root = Some(string_value(&meta)?),
                "namespaced" => out.namespaced = true,
                "status" => out.status = Some(string_value(&meta)?),
                "plural" => out.plural = Some(string_value(&meta)?),
                "singular" => out.singular = Some(string_value(&meta)?),
                "shortname" => out.short_names.push(string_value(&meta)?),
                "category" => out.categories.push(string_value(&meta)?),
                "printcolumn" => out.printcolumns.push(renamed_args(
                    &meta,
                    &[
                        ("type_", "type"),
                        ("json_path", "JSONPath"),
                        ("jsonPath", "JSONPath"),
                    ],
                )?),
                "scale" => {
                    let renames = [
                        ("spec_replicas_path", "specpath"),
                        ("specReplicasPath", "specpath"),
                        ("status_replicas_path", "statuspath"),
                        ("statusReplicasPath", "statuspath"),
                        ("label_selector_path", "selectorpath"),
                        ("labelSelectorPath", "selectorpath"),
                    ];
                    out.scale = Some(renamed_args(&meta, &renames)?);
                }
                "selectable" => out.selectable.push(string_value(&meta)?),
                "storage" => out.storage = Some(bool_value(&meta)?),
                "served" => out.served = Some(bool_value(&meta)?),
                "deprecated" => {
                    out.deprecated = Some(if meta.input.peek(syn::Token![=]) {
                        Some(string_value(&meta)?)
                    } else {
                        None
                    });
                }
                "annotation" => out.annotations.push(pair(&meta)?),
                "label" => out.labels.push(pair(&meta)?),
                "validation" => out.validations.push(root_rule(&meta.value()?.parse()?)?),
                "doc" => out.doc = Some(string_value(&meta)?),
                _ => skip_value(&meta)?,
            }
            Ok(())
        });
        if let Err(e) = parsed {
            ctx.error(
                e.span(),
                format!("malformed #[kube(...)] attribute: {e}"),
                "kube-derive attributes look like `#[kube(group = \"example.com\", version = \"v1\", kind = \"Foo\", namespaced)]`",
            );
        }
    }
    out.pos = first_pos.unwrap_or_default();
    Some(out)
}

/// kube-derive's `validation = "rule"` or `validation = Rule::new("rule")` with an
/// optional `.message("..")`; anything else is refused rather than dropped.
fn root_rule(expr: &syn::Expr) -> syn::Result<RootRule> {
    let refuse = || {
        syn::Error::new_spanned(
            expr,
            "crdgen reads `validation = \"rule\"` or `validation = Rule::new(\"rule\")`, optionally with `.message(\"text\")`",
        )
    };
    if let Some(rule) = str_literal(expr) {
        return Ok(RootRule {
            rule,
            message: None,
        });
    }
    let (new, message) = match expr {
        syn::Expr::MethodCall(call) if call.method == "message" && call.args.len() == 1 => (
            &*call.receiver,
            Some(str_literal(&call.args[0]).ok_or_else(refuse)?),
        ),
        other => (other, None),
    };
    match new {
        syn::Expr::Call(call) if call.args.len() == 1 && is_rule_new(&call.func) => {
            let rule = str_literal(&call.args[0]).ok_or_else(refuse)?;
            Ok(RootRule { rule, message })
        }
        _ => Err(refuse()),
    }
}

/// The value of a string literal expression (`"text"`).
fn str_literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// `Rule::new`, by any path (`kube::core::Rule::new`).
fn is_rule_new(func: &syn::Expr) -> bool {
    let syn::Expr::Path(path) = func else {
        return false;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    names.ends_with(&["Rule".to_owned(), "new".to_owned()])
}

fn each_serde(
    attrs: &[syn::Attribute],
    ctx: &mut Ctx<'_>,
    mut f: impl FnMut(ParseNestedMeta<'_>, &mut Ctx<'_>) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let mut failed: Option<(proc_macro2::Span, String)> = None;
        let parsed = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            f(meta, ctx).inspect_err(|e| failed = Some((span, e.to_string())))
        });
        if let Err(e) = parsed {
            let (span, msg) = failed.unwrap_or_else(|| (e.span(), e.to_string()));
            ctx.error(span, format!("malformed #[serde(...)] attribute: {msg}"), "crdgen reads serde attributes as serde_derive does; see https://serde.rs/attributes.html");
        }
    }
}

fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

fn string_value(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    Ok(lit.value())
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")`: the serialized name.
/// A type written as a string (`into = "String"`).
fn type_value(meta: &ParseNestedMeta<'_>) -> syn::Result<TypeRef> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    Ok(super::type_ref(&lit.parse::<syn::Type>()?))
}

fn serialize_name(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        return string_value(meta).map(Some);
    }
    let mut out = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            out = Some(string_value(&inner)?);
        } else {
            skip_value(&inner)?;
        }
        Ok(())
    })?;
    Ok(out)
}

fn rename_rule(meta: &ParseNestedMeta<'_>, _ctx: &mut Ctx<'_>) -> syn::Result<Option<RenameRule>> {
    let Some(name) = serialize_name(meta)? else {
        return Ok(None);
    };
    RenameRule::from_name(&name).map(Some).ok_or_else(|| {
        let valid: Vec<&str> = RenameRule::ALL.iter().map(|(n, _)| *n).collect();
        meta.error(format!(
            "unknown rename rule `{name}`; serde knows {}",
            valid.join(", ")
        ))
    })
}

/// kube-derive's nested attributes: `key(a = "x", b = 1)` or `key = "{json}"`, as a map
/// with keys renamed to the marker spelling.
fn renamed_args(
    meta: &ParseNestedMeta<'_>,
    renames: &[(&str, &str)],
) -> syn::Result<BTreeMap<String, String>> {
    let rename = |k: &str| {
        renames
            .iter()
            .find(|(from, _)| *from == k)
            .map_or(k, |(_, to)| to)
            .to_owned()
    };
    let mut out = BTreeMap::new();
    if meta.input.peek(syn::Token![=]) {
        let json = string_value(meta)?;
        let value: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| meta.error(format!("not JSON: {e}")))?;
        for (k, v) in value.as_object().into_iter().flatten() {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            out.insert(rename(k), v);
        }
        return Ok(out);
    }
    meta.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let expr: syn::Expr = inner.value()?.parse()?;
        let value = match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_digits().to_owned(),
            other => str_literal(&other)
                .unwrap_or_else(|| quote::ToTokens::to_token_stream(&other).to_string()),
        };
        out.insert(rename(&key), value);
        Ok(())
    })?;
    Ok(out)
}

/// `key` (true) or `key = bool`.
fn bool_value(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        return Ok(lit.value);
    }
    Ok(true)
}

/// `key("name", "value")`.
fn pair(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, String)> {
    let content;
    syn::parenthesized!(content in meta.input);
    let key: syn::LitStr = content.parse()?;
    content.parse::<syn::Token![,]>()?;
    let value: syn::LitStr = content.parse()?;
    Ok((key.value(), value.value()))
}

/// Consumes whatever follows a key crdgen does not read: `= expr` or `(...)`.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::TokenTree = meta.input.parse()?;
    }
    Ok(())
}
