//! What the apiserver does with a CRD's structural schema on every write: defaulting,
//! pruning of unknown fields, then validation.
//!
//! Enforced: `type` (with `nullable`, `x-kubernetes-int-or-string`), `required`, `enum`,
//! `minimum`/`maximum` (and exclusive forms), `multipleOf`, `minLength`/`maxLength`
//! (counted in characters), `pattern`, `format` `date-time`, `date`, `email`, `uuid`,
//! `ipv4`, `ipv6` and `uri`,
//! `minItems`/`maxItems`, `x-kubernetes-list-type` `set` and `map` (unique items and unique
//! keys), `minProperties`/`maxProperties`, `additionalProperties`,
//! `x-kubernetes-embedded-resource` (apiVersion and kind required), each of `allOf`'s
//! value validations, and those of `not`, which must not all hold (CEL rules are
//! [`super::cel`]'s). Not checked: other formats, and `metadata` beyond what the store
//! checks itself.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use serde_json::{Map, Value};

use crate::field::{Error, ErrorType, Path};

/// The string formats checked by pattern, as the apiserver's `strfmt` registry reads
/// them (kube-openapi's `UUIDPattern` for `uuid`); `ipv4`, `ipv6` and `uri` are checked
/// by [`fits_format`]; others pass.
static FORMATS: LazyLock<[(&str, Regex); 4]> = LazyLock::new(|| {
    let re = |pattern: &str| Regex::new(pattern).expect("a valid format pattern");
    [
        (
            "date-time",
            re(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"),
        ),
        ("date", re(r"^\d{4}-\d{2}-\d{2}$")),
        ("email", re(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")),
        (
            "uuid",
            re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
        ),
    ]
});

/// Whether `s` is of the string format `name`, as the apiserver's `strfmt` checks it:
/// `ipv4` an address Go's sloppy parser takes, with a dot; `ipv6` one with a colon;
/// `uri` what Go's `url.ParseRequestURI` takes (an absolute URI or an absolute path).
pub(crate) fn fits_format(name: &str, s: &str) -> bool {
    use std::net::IpAddr;
    match name {
        "ipv4" => s.contains('.') && (sloppy_ipv4(s) || s.parse::<IpAddr>().is_ok()),
        "ipv6" => s.contains(':') && s.parse::<IpAddr>().is_ok(),
        "uri" => {
            static SCHEME: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").expect("a valid scheme pattern")
            });
            !s.chars().any(|c| c.is_ascii_control() || c == ' ')
                && (s.starts_with('/') || SCHEME.is_match(s))
        }
        _ => FORMATS
            .iter()
            .find(|(known, _)| *known == name)
            .is_none_or(|(_, re)| re.is_match(s)),
    }
}

/// Four decimal parts up to 255, leading zeros allowed, as Go's `ParseIPSloppy` reads
/// an IPv4 address.
fn sloppy_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// Fills absent properties that have a `default`, at every level.
pub(super) fn default(schema: &Value, value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    if !map.contains_key(name)
                        && let Some(d) = property.get("default")
                    {
                        map.insert(name.clone(), d.clone());
                    }
                }
                for (name, field) in map.iter_mut() {
                    if let Some(property) = properties.get(name) {
                        default(property, field);
                    }
                }
            } else if let Some(additional) =
                schema.get("additionalProperties").filter(|a| a.is_object())
            {
                map.values_mut().for_each(|v| default(additional, v));
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                items.iter_mut().for_each(|v| default(item, v));
            }
        }
        _ => {}
    }
}

/// Drops fields the schema does not declare, unless it preserves unknown fields. The
/// root and embedded resources keep `apiVersion`, `kind` and `metadata`.
pub(super) fn prune(schema: &Value, value: &mut Value, root: bool) {
    if schema["x-kubernetes-preserve-unknown-fields"] == true && schema.get("properties").is_none()
    {
        return;
    }
    match value {
        Value::Object(map) => {
            let embedded = root || schema["x-kubernetes-embedded-resource"] == true;
            let properties = schema["properties"].as_object();
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            if schema["x-kubernetes-preserve-unknown-fields"] != true && additional.is_none() {
                map.retain(|name, _| {
                    properties.is_some_and(|p| p.contains_key(name))
                        || (embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata"))
                });
            }
            for (name, field) in map.iter_mut() {
                // An object's metadata is ObjectMeta, whatever the schema says of it.
                if embedded && name == "metadata" {
                    continue;
                }
                if let Some(property) = properties.and_then(|p| p.get(name)).or(additional) {
                    prune(property, field, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                items.iter_mut().for_each(|v| prune(item, v, false));
            }
        }
        _ => {}
    }
}

fn join(path: &str, field: &str) -> String {
    match path.is_empty() {
        true => field.to_owned(),
        false => format!("{path}.{field}"),
    }
}

/// Validates `value` at `path` against `schema`, collecting the apiserver's errors.
/// `old` is the value this one replaces, where validation ratchets (an update, from
/// 1.30): a value equal to the one it replaces passes whatever its schema says now, as
/// kube-openapi's ratcheting validator lets it, so that a CRD's new bound does not lock
/// its old objects. Values are matched with their old ones by property name, map key,
/// and for a `map` list by its keys; other lists' items have none.
pub(super) fn check(
    schema: &Value,
    value: &Value,
    old: Option<&Value>,
    path: &str,
    errors: &mut Vec<Error>,
) {
    if old == Some(value) {
        return;
    }
    let at = |kind: ErrorType, why: String| Error {
        kind,
        field: Path::new(path),
        value: Some(value.clone()),
        detail: why,
    };
    if value.is_null() {
        if schema["nullable"] != true && schema.get("type").is_some() {
            let why = format!(
                "{path} in body must be of type {}",
                schema["type"].as_str().unwrap_or("object")
            );
            errors.push(at(ErrorType::TypeInvalid, why));
        }
        return;
    }
    if schema["x-kubernetes-int-or-string"] == true {
        if !(value.is_string() || value.is_i64() || value.is_u64()) {
            errors.push(at(
                ErrorType::TypeInvalid,
                "must be an integer or a string".into(),
            ));
        }
    } else if let Some(kind) = schema["type"].as_str() {
        let fits = match kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => true,
        };
        if !fits {
            // The value shown is its JSON type's name, as kube-openapi gives it.
            let given = match value {
                Value::Object(_) => "object",
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(n) if n.is_f64() => "number",
                Value::Number(_) => "integer",
                Value::Bool(_) => "boolean",
                Value::Null => "null",
            };
            errors.push(Error {
                kind: ErrorType::TypeInvalid,
                field: Path::new(path),
                value: Some(given.into()),
                detail: format!("{path} in body must be of type {kind}: {given:?}"),
            });
            return;
        }
    }
    if let Some(allowed) = schema["enum"].as_array()
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        let why = format!("supported values: {}", list.join(", "));
        errors.push(at(ErrorType::NotSupported, why));
    }
    // An upper bound broken is the apiserver's TooLong or TooMany (not Invalid), which
    // keeps the rules from running (apiextensions-apiserver's validation.go).
    let (max_key, count) = match value {
        Value::String(s) => ("maxLength", s.chars().count()),
        Value::Array(items) => ("maxItems", items.len()),
        Value::Object(map) => ("maxProperties", map.len()),
        _ => ("", 0),
    };
    if let Some(max) = schema.get(max_key).and_then(Value::as_u64)
        && count as u64 > max
    {
        let field = Path::new(path);
        errors.push(match value {
            Value::String(_) => crate::field::too_long(&field, max as usize),
            _ => crate::field::too_many(&field, count, max as usize),
        });
    }
    // kube-openapi's words: the value's path, "in body", what it should be; a count's
    // error shows the count.
    // kube-openapi checks an integral value against its factor made an integer too: a
    // factor under 1 becomes 0, which it refuses (in its words), whatever the value.
    if (value.is_i64() || value.is_u64())
        && let Some(step) = schema["multipleOf"].as_f64()
        && step.trunc() == 0.0
    {
        let why = format!("factor MultipleOf declared for {path} must be positive: 0");
        errors.push(at(ErrorType::Invalid, why));
    }
    // A string not of its format is of the wrong type, in kube-openapi's words.
    if let (Value::String(s), Some(name)) = (value, schema["format"].as_str())
        && !fits_format(name, s)
    {
        let why = format!("{path} in body must be of type {name}: {s:?}");
        errors.push(at(ErrorType::TypeInvalid, why));
    }
    let mut invalid = |why: String, count: Option<usize>| {
        let mut error = at(ErrorType::Invalid, format!("{path} in body {why}"));
        if let Some(count) = count {
            error.value = Some(count.into());
        }
        errors.push(error);
    };
    match value {
        Value::Number(n) => number(schema, n.as_f64().unwrap_or_default(), &mut invalid),
        Value::String(s) => string(schema, s, &mut invalid),
        Value::Array(items) => {
            at_least(schema, items.len(), "minItems", "items", &mut invalid);
            for (i, item) in duplicates(schema, items) {
                errors.push(crate::field::duplicate(
                    &Path::new(&format!("{path}[{i}]")),
                    item,
                ));
            }
            if let Some(item) = schema.get("items") {
                let old_items = old.and_then(Value::as_array).map(Vec::as_slice);
                for (i, v) in items.iter().enumerate() {
                    let before = old_items.and_then(|o| same_item(schema, v, o));
                    check(item, v, before, &format!("{path}[{i}]"), errors);
                }
            }
        }
        Value::Object(map) => {
            object(schema, map, &mut invalid);
            for name in schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !map.contains_key(name) {
                    errors.push(required(join(path, name), ""));
                }
            }
            if schema["x-kubernetes-embedded-resource"] == true {
                for name in ["apiVersion", "kind"] {
                    if map
                        .get(name)
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    {
                        errors.push(required(join(path, name), "must not be empty"));
                    }
                }
            }
            let properties = schema["properties"].as_object();
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (name, field) in map {
                if path.is_empty() && name == "metadata" {
                    continue; // the store checks metadata itself
                }
                if let Some(property) = properties.and_then(|p| p.get(name)).or(additional) {
                    let before = old.and_then(|o| o.get(name));
                    check(property, field, before, &join(path, name), errors);
                }
            }
        }
        _ => {}
    }
    // Value validations in `allOf` (a type's bound and a field's): the value meets each.
    for part in schema["allOf"].as_array().into_iter().flatten() {
        check(part, value, old, path, errors);
    }
    composites(schema, value, path, errors);
}

/// `oneOf`, `anyOf` and `not`, as kube-openapi validates them: a failure is said of the
/// whole object (`<nil>`, the path quoted in the message), and where no branch holds,
/// the errors of the first branch closest to holding follow.
fn composites(schema: &Value, value: &Value, path: &str, errors: &mut Vec<Error>) {
    let composite = |why: String| Error {
        kind: ErrorType::Invalid,
        field: Path::root(),
        value: Some(Value::String(String::new())),
        detail: format!("{path:?} {why}"),
    };
    let branches = |key: &str| -> Vec<Vec<Error>> {
        let branches = schema[key].as_array().into_iter().flatten();
        branches
            .map(|branch| {
                let mut found = Vec::new();
                check(branch, value, None, path, &mut found);
                found
            })
            .collect()
    };
    let closest = |failed: Vec<Vec<Error>>| failed.into_iter().min_by_key(Vec::len);
    let any_of = branches("anyOf");
    if !any_of.is_empty() && any_of.iter().all(|b| !b.is_empty()) {
        errors.push(composite(
            "must validate at least one schema (anyOf)".into(),
        ));
        errors.extend(closest(any_of).unwrap_or_default());
    }
    let one_of = branches("oneOf");
    let valid = one_of.iter().filter(|b| b.is_empty()).count();
    if !one_of.is_empty() && valid != 1 {
        let found = match valid {
            0 => "Found none valid".to_owned(),
            n => format!("Found {n} valid alternatives"),
        };
        let why = format!("must validate one and only one schema (oneOf). {found}");
        errors.push(composite(why));
        if valid == 0 {
            errors.extend(closest(one_of).unwrap_or_default());
        }
    }
    // `not` (a `NonZeroI32`'s `enum: [0]`): the value meets none of its validations.
    if let Some(not) = schema.get("not").filter(|n| n.is_object()) {
        let mut met = Vec::new();
        check(not, value, None, path, &mut met);
        if met.is_empty() {
            errors.push(composite("must not validate the schema (not)".into()));
        }
    }
}

fn required(field: String, detail: &str) -> Error {
    crate::field::required(&Path::new(&field), detail)
}

/// Whether the errors keep CEL rules from running (the apiserver's `hasBlockingErr`): a
/// value of the wrong type, a required field missing, a value too long or a list too
/// long, and (`enum_blocks`, from 1.29) a value outside its enum.
pub(super) fn blocking(errors: &[Error], enum_blocks: bool) -> bool {
    errors.iter().any(|e| match e.kind {
        ErrorType::TypeInvalid | ErrorType::Required | ErrorType::TooLong | ErrorType::TooMany => {
            true
        }
        ErrorType::NotSupported => enum_blocks,
        _ => false,
    })
}

/// What the errors of a value's own validations are given: what it should be, and the
/// count a count's error shows in place of the value.
type Invalid<'a> = dyn FnMut(String, Option<usize>) + 'a;

fn number(schema: &Value, n: f64, invalid: &mut Invalid<'_>) {
    let bound = |key: &str| schema[key].as_f64();
    if let Some(min) = bound("minimum") {
        match schema["exclusiveMinimum"] == true {
            true if n <= min => invalid(format!("should be greater than {min}"), None),
            false if n < min => invalid(format!("should be greater than or equal to {min}"), None),
            _ => {}
        }
    }
    if let Some(max) = bound("maximum") {
        match schema["exclusiveMaximum"] == true {
            true if n >= max => invalid(format!("should be less than {max}"), None),
            false if n > max => invalid(format!("should be less than or equal to {max}"), None),
            _ => {}
        }
    }
    if let Some(step) = bound("multipleOf")
        && step != 0.0
        && !(n.fract() == 0.0 && step.trunc() == 0.0)
        && (n / step).fract() != 0.0
    {
        invalid(format!("should be a multiple of {step}"), None);
    }
}

fn string(schema: &Value, s: &str, invalid: &mut Invalid<'_>) {
    if let Some(min) = schema["minLength"].as_u64()
        && (s.chars().count() as u64) < min
    {
        invalid(format!("should be at least {min} chars long"), None);
    }
    // A string past its maxLength is not matched against its pattern (kube-openapi
    // spares the regular expression a long input): its one error is TooLong.
    let too_long = schema["maxLength"]
        .as_u64()
        .is_some_and(|max| s.chars().count() as u64 > max);
    if let Some(pattern) = schema["pattern"].as_str().filter(|_| !too_long) {
        match Regex::new(pattern) {
            Ok(re) if !re.is_match(s) => invalid(format!("should match '{pattern}'"), None),
            Ok(_) => {}
            Err(e) => invalid(format!("the schema's pattern does not compile: {e}"), None),
        }
    }
}

/// The item of `old` that `item` of a `map` list replaces: the one with its keys.
fn same_item<'a>(schema: &Value, item: &Value, old: &'a [Value]) -> Option<&'a Value> {
    if schema["x-kubernetes-list-type"] != "map" {
        return None;
    }
    let keys = schema["x-kubernetes-list-map-keys"].as_array()?;
    old.iter().find(|o| {
        keys.iter()
            .filter_map(Value::as_str)
            .all(|k| o.get(k) == item.get(k))
    })
}

/// The items of a `set` or `map` list that repeat an earlier one (its keys, for a map),
/// each with its index and what repeats.
fn duplicates(schema: &Value, items: &[Value]) -> Vec<(usize, Value)> {
    let keys: Vec<&str> = match schema["x-kubernetes-list-type"].as_str() {
        Some("set") => Vec::new(),
        Some("map") => schema["x-kubernetes-list-map-keys"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect(),
        _ => return Vec::new(),
    };
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let identity = match keys.is_empty() {
            true => item.clone(),
            false => keys
                .iter()
                .map(|k| (k.to_string(), item[*k].clone()))
                .collect(),
        };
        if !seen.insert(identity.to_string()) {
            out.push((i, identity));
        }
    }
    out
}

fn object(schema: &Value, map: &Map<String, Value>, invalid: &mut Invalid<'_>) {
    at_least(schema, map.len(), "minProperties", "properties", invalid);
}

/// A count against the schema's lower bound keyword.
fn at_least(schema: &Value, count: usize, min_key: &str, what: &str, invalid: &mut Invalid<'_>) {
    if let Some(min) = schema[min_key].as_u64()
        && (count as u64) < min
    {
        invalid(format!("should have at least {min} {what}"), Some(count));
    }
}

#[cfg(test)]
mod tests {
    use super::fits_format;

    #[test]
    fn formats_are_checked_as_the_apiservers_strfmt_checks_them() {
        for (format, good, bad) in [
            ("uuid", "0191b1a5-6f3e-7c9a-8b4e-2a6f1d0c9e11", "not-a-uuid"),
            (
                "uuid",
                "0191B1A56F3E7C9A8B4E2A6F1D0C9E11",
                "0191b1a5-6f3e-7c9a-8b4e",
            ),
            ("ipv4", "10.0.0.1", "10.0.0.256"),
            ("ipv4", "010.000.000.001", "::1"),
            ("ipv6", "fd00::1", "10.0.0.1"),
            ("uri", "https://example.com/a?b=c", "example.com"),
            ("uri", "/healthz", "http://a b"),
            ("date", "2026-12-03", "3 Dec 2026"),
        ] {
            assert!(fits_format(format, good), "{format}: {good}");
            assert!(!fits_format(format, bad), "{format}: {bad}");
        }
        assert!(
            fits_format("hostname", "anything"),
            "formats not checked pass"
        );
    }
}
