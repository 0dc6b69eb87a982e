//! Kubernetes' `format` library (apiserver's `pkg/cel/library/format.go`), in place of
//! kube-cel's: `format.dns1123Label()` and the other named formats, `format.named(name)`
//! (an optional, none for a name there is no format of), and `validate(value)`, which
//! answers with apimachinery's own messages ([`crdgen_apimachinery::content`]).

use std::sync::Arc;

use base64::Engine as _;
use crdgen_apimachinery::content;
use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Opaque, OptionalValue};
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

/// A named format, the value `format.<name>()` gives.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Format(&'static str);

impl Opaque for Format {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

/// The formats, by their names in `format.<name>()`.
const NAMES: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

/// The longest pattern the apiserver assumes a format's check runs (its
/// `MaxRegexSize`, pkg/cel/library/format.go), which `validate` is charged by.
pub(super) fn max_regex_size(format: &Value) -> Option<u64> {
    let Value::Opaque(o) = format else {
        return None;
    };
    let Format(name) = o.as_ref().downcast_ref::<Format>()?;
    Some(match *name {
        "dns1123Label" | "dns1035Label" | "dns1123LabelPrefix" | "dns1035LabelPrefix" => 30,
        "dns1123Subdomain" | "qualifiedName" | "dns1123SubdomainPrefix" => 60,
        "labelValue" => 40,
        "uri" => 1103,
        // kube-openapi's strfmt UUIDPattern and DateTimePattern.
        "uuid" => 70,
        "byte" => 84,
        _ => 71,
    })
}

/// Registers the library on `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    for name in NAMES {
        ctx.add_function(&format!("format.{name}"), move || -> ResolveResult {
            Ok(Value::Opaque(Arc::new(Format(name))))
        });
    }
    ctx.add_function("format.named", named);
    ctx.add_function("validate", validate);
}

fn optional(value: Option<Value>) -> Value {
    Value::Opaque(Arc::new(match value {
        Some(value) => OptionalValue::of(value),
        None => OptionalValue::none(),
    }))
}

/// `format.named(name)`: the format, or none.
fn named(name: Arc<String>) -> ResolveResult {
    let found = NAMES.iter().find(|n| **n == name.as_str());
    Ok(optional(
        found.map(|name| Value::Opaque(Arc::new(Format(name)))),
    ))
}

/// `f.validate(value)`: none when `value` is of the format, else what is wrong with it.
fn validate(This(this): This<Value>, value: Arc<String>) -> ResolveResult {
    let Value::Opaque(opaque) = &this else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let Some(Format(name)) = opaque.downcast_ref::<Format>() else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let errors = errors(name, &value);
    Ok(optional((!errors.is_empty()).then(|| {
        Value::List(Arc::new(
            errors
                .into_iter()
                .map(|e| Value::String(Arc::new(e)))
                .collect(),
        ))
    })))
}

/// What is wrong with `value` as the format `name`.
fn errors(name: &str, value: &str) -> Vec<String> {
    let one = |ok: bool, message: &str| match ok {
        true => Vec::new(),
        false => vec![message.to_owned()],
    };
    match name {
        "dns1123Label" => content::dns1123_label(value),
        "dns1123Subdomain" => content::dns1123_subdomain(value),
        "dns1035Label" => content::dns1035_label(value),
        "qualifiedName" => content::qualified_name(value),
        "dns1123LabelPrefix" => content::dns1123_label(&content::mask_trailing_dash(value)),
        "dns1123SubdomainPrefix" => content::dns1123_subdomain(&content::mask_trailing_dash(value)),
        "dns1035LabelPrefix" => content::dns1035_label(&content::mask_trailing_dash(value)),
        "labelValue" => content::label_value(value),
        "uri" => uri(value).err().into_iter().collect(),
        "uuid" => one(
            crate::crd::schema::fits_format("uuid", value),
            "does not match the UUID format",
        ),
        "byte" => one(
            base64::engine::general_purpose::STANDARD
                .decode(value)
                .is_ok(),
            "invalid base64",
        ),
        "date" => one(
            chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok(),
            "invalid date",
        ),
        _ => one(
            chrono::DateTime::parse_from_rfc3339(value).is_ok(),
            "invalid datetime",
        ),
    }
}

/// Go's `url.ParseRequestURI`, as far as its verdict and message: an absolute URI or
/// an absolute path.
fn uri(value: &str) -> Result<(), String> {
    let fail = |why: &str| Err(format!("parse \"{value}\": {why}"));
    if value.is_empty() {
        return fail("empty url");
    }
    if value.starts_with('/') {
        return Ok(());
    }
    let scheme_end = value
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .filter(|&i| value[i..].starts_with(':'));
    match scheme_end {
        Some(0) => fail("missing protocol scheme"),
        Some(_) if value.starts_with(|c: char| c.is_ascii_alphabetic()) => Ok(()),
        _ => fail("invalid URI for request"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_read_as_kubernetes_reads_them() {
        assert!(uri("http://example.com").is_ok());
        assert!(uri("/path").is_ok());
        assert_eq!(
            uri("example.com").unwrap_err(),
            "parse \"example.com\": invalid URI for request"
        );
    }
}
