//! A JSON value as a rule sees it, by its schema node (the apiserver's
//! `UnstructuredToVal`): properties by their escaped names, `number`s as doubles, strings
//! of the `byte`, `duration`, `date` and `date-time` formats as bytes, durations and
//! timestamps, a resource's metadata as just its name and generateName.

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::Value as Cel;
use kube_cel::cel::objects::{Key, Map};
use serde_json::Value;

use super::compile::{Format, Node, Shape};

/// `value` under `node`.
pub(super) fn to_cel(node: &Node, value: &Value) -> Cel {
    match (&node.shape, value) {
        (_, Value::Null) => Cel::Null,
        (
            Shape::Object {
                properties,
                resource,
                keeps_unknown,
            },
            Value::Object(fields),
        ) => {
            let mut map = HashMap::with_capacity(properties.len());
            for (name, property) in properties {
                let Some(field) = fields.get(name).filter(|f| !f.is_null()) else {
                    continue;
                };
                let value = to_cel(&property.node, field);
                match &property.escaped {
                    Some(escaped) => {
                        // Since Kubernetes 1.31 a reserved word (`if`, `namespace`) is
                        // also reachable as written.
                        if escaped != name && crdgen_apimachinery::cel::is_reserved(name) {
                            map.insert(key(name), value.clone());
                        }
                        map.insert(key(escaped), value);
                    }
                    // A name no rule can spell is kept as it is: the object still
                    // compares with it (and a map list's key may be it), as in cel-go.
                    None => {
                        map.insert(key(name), value);
                    }
                }
            }
            if *keeps_unknown {
                for (name, field) in fields {
                    if !properties.contains_key(name) && !field.is_null() {
                        map.entry(key(name)).or_insert_with(|| plain(field));
                    }
                }
            }
            if *resource {
                for name in ["apiVersion", "kind"] {
                    if let Some(Value::String(s)) = fields.get(name) {
                        map.insert(key(name), Cel::String(Arc::new(s.clone())));
                    }
                }
                if let Some(metadata) = fields.get("metadata") {
                    map.insert(key("metadata"), resource_metadata(metadata));
                }
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
        (Shape::Map(values), Value::Object(fields)) => {
            let map = fields
                .iter()
                .map(|(k, v)| (key(k), to_cel(values, v)))
                .collect();
            Cel::Map(Map { map: Arc::new(map) })
        }
        (Shape::List { items, .. }, Value::Array(list)) => {
            Cel::List(Arc::new(list.iter().map(|v| to_cel(items, v)).collect()))
        }
        (Shape::Number, Value::Number(n)) => Cel::Float(n.as_f64().unwrap_or_default()),
        (Shape::Formatted(format), Value::String(s)) => formatted(*format, s),
        _ => plain(value),
    }
}

fn key(name: &str) -> Key {
    Key::String(Arc::new(name.to_owned()))
}

/// The metadata a rule at a resource's root sees: `name` and `generateName` only.
fn resource_metadata(metadata: &Value) -> Cel {
    let map = ["name", "generateName"]
        .into_iter()
        .filter_map(|name| Some((key(name), plain(metadata.get(name)?))))
        .collect();
    Cel::Map(Map { map: Arc::new(map) })
}

/// JSON without a schema to read it by.
fn plain(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Cel::Int(i),
            (None, Some(u)) => Cel::UInt(u),
            _ => Cel::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(items) => Cel::List(Arc::new(items.iter().map(plain).collect())),
        Value::Object(fields) => Cel::Map(Map {
            map: Arc::new(fields.iter().map(|(k, v)| (key(k), plain(v))).collect()),
        }),
    }
}

/// A string of a format with a CEL type; one that does not parse stays a string (schema
/// validation has refused it already).
fn formatted(format: Format, s: &str) -> Cel {
    use base64::Engine as _;
    let parsed = match format {
        Format::Bytes => base64::engine::general_purpose::STANDARD
            .decode(s)
            .ok()
            .map(|b| Cel::Bytes(Arc::new(b))),
        Format::Duration => duration(s).map(Cel::Duration),
        Format::Date => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| Cel::Timestamp(t.and_utc().fixed_offset())),
        Format::DateTime => chrono::DateTime::parse_from_rfc3339(s)
            .ok()
            .map(Cel::Timestamp),
    };
    parsed.unwrap_or_else(|| Cel::String(Arc::new(s.to_owned())))
}

/// A Go duration (`1h30m`, `250ms`, `-1.5h`), read by kube's own `Duration`.
fn duration(s: &str) -> Option<chrono::Duration> {
    let parsed: kube::core::Duration = s.parse().ok()?;
    let magnitude = chrono::Duration::from_std(std::time::Duration::from(parsed)).ok()?;
    Some(match parsed.is_negative() {
        true => -magnitude,
        false => magnitude,
    })
}
