//! The schemas of the everyday Rust types an API type holds beside std's scalars and
//! collections (`Builder::builtin`) and Kubernetes' own (`known`): what their serde
//! `Serialize` writes, in the formats the apiserver checks, as schemars describes them
//! to kube-derive users. The book's "Rust types in a CRD" page lists them.

use serde_json::{Value, json};

/// What a type is on the wire, if it is one of these.
pub(super) enum Wire {
    Schema(Value),
    /// Its schema is that of its type argument `n`'s, with `Self::then` applied.
    Argument(usize, fn(Value) -> Value),
    /// A type whose default serde form is not one a CRD should describe.
    Refused(String, &'static str),
}

/// A path (`chrono::DateTime`, `std::net::IpAddr`) or, unresolved, a bare name.
pub(super) fn wire(path: &str, name: &str) -> Option<Wire> {
    let path = path.trim_start_matches("::");
    let krate = path.split_once("::").map(|(krate, _)| krate);
    let std = matches!(krate, Some("std" | "core" | "alloc"));
    let string = |format: Option<&str>| {
        Wire::Schema(match format {
            Some(format) => json!({"type": "string", "format": format}),
            None => json!({"type": "string"}),
        })
    };
    Some(match (krate, name) {
        (Some("url") | None, "Url") => string(Some("uri")),
        (Some("uuid") | None, "Uuid") => string(Some("uuid")),
        // RFC 3339 in every time zone.
        (Some("chrono") | None, "DateTime") => string(Some("date-time")),
        (Some("chrono") | None, "NaiveDate") => string(Some("date")),
        // No offset, which `date-time` requires: a string the apiserver has no format for.
        (Some("chrono") | None, "NaiveDateTime" | "NaiveTime") => string(None),
        (Some("time") | None, "OffsetDateTime") => Wire::Refused(
            format!(
                "`{name}` goes on the wire in time's own form unless told otherwise, which is no Kubernetes format"
            ),
            "write it as RFC 3339, a `date-time`: `#[serde(with = \"time::serde::rfc3339\")]` (`::option` for an `Option`)",
        ),
        (_, "IpAddr" | "SocketAddr" | "SocketAddrV4" | "SocketAddrV6")
            if std || krate.is_none() =>
        {
            string(None)
        }
        (_, "Ipv4Addr") if std || krate.is_none() => string(Some("ipv4")),
        (_, "Ipv6Addr") if std || krate.is_none() => string(Some("ipv6")),
        (_, nonzero) if (std || krate.is_none()) && nonzero.starts_with("NonZero") => {
            match non_zero(&nonzero["NonZero".len()..]) {
                Some(schema) => Wire::Schema(schema),
                // `NonZero<T>`: T's schema, never zero.
                None if nonzero == "NonZero" => Wire::Argument(0, never_zero),
                None => return None,
            }
        }
        // serde writes a std Duration as its parts; a Go duration string is kube's
        // `kube::core::Duration`.
        (Some("std" | "core"), "Duration") => Wire::Schema(json!({
            "type": "object",
            "properties": {
                "nanos": {"type": "integer", "format": "int64", "minimum": 0},
                "secs": {"type": "integer", "format": "int64", "minimum": 0},
            },
            "required": ["nanos", "secs"],
        })),
        (_, "Cow") if std || krate.is_none() => Wire::Argument(0, |s| s),
        // serde_json writes bytes as a list of numbers (a `ByteString` is base64).
        (Some("bytes"), "Bytes" | "BytesMut") => Wire::Schema(json!({
            "type": "array",
            "items": {"type": "integer", "format": "int32", "minimum": 0},
        })),
        (Some("serde_json"), "Map") => Wire::Schema(json!({
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
        })),
        (Some("ordered_float") | None, "OrderedFloat" | "NotNan") => {
            Wire::Schema(json!({"type": "number"}))
        }
        // indexmap's, as std's sets and maps.
        (Some("indexmap") | None, "IndexSet") => Wire::Argument(
            0,
            |item| json!({"type": "array", "items": item, "x-kubernetes-list-type": "set"}),
        ),
        (Some("indexmap") | None, "IndexMap") => Wire::Argument(
            1,
            |value| json!({"type": "object", "additionalProperties": value}),
        ),
        _ => return None,
    })
}

/// A field's schema when its `with` module writes it in a form of its own.
pub(super) fn written_with(module: &str) -> Option<Value> {
    match module.trim_start_matches("::") {
        "time::serde::rfc3339" | "time::serde::rfc3339::option" => {
            Some(json!({"type": "string", "format": "date-time"}))
        }
        _ => None,
    }
}

/// `NonZeroU32` and the like, by what follows `NonZero`.
fn non_zero(width: &str) -> Option<Value> {
    let unsigned = |format: Option<&str>| {
        let mut schema = json!({"type": "integer", "minimum": 1});
        if let Some(format) = format {
            schema["format"] = json!(format);
        }
        schema
    };
    Some(match width {
        "U8" | "U16" => unsigned(Some("int32")),
        "U32" | "U64" => unsigned(Some("int64")),
        "Usize" => unsigned(None),
        "I8" | "I16" | "I32" => never_zero(json!({"type": "integer", "format": "int32"})),
        "I64" => never_zero(json!({"type": "integer", "format": "int64"})),
        "Isize" => never_zero(json!({"type": "integer"})),
        _ => return None,
    })
}

/// An integer's schema, zero refused: `minimum: 1` when it had `minimum: 0`, else
/// `not: {enum: [0]}` (a value validation every Kubernetes version takes, where a CEL
/// rule needs 1.25).
fn never_zero(mut schema: Value) -> Value {
    if schema["minimum"] == 0 {
        schema["minimum"] = json!(1);
    } else {
        schema["not"] = json!({"enum": [0]});
    }
    schema
}
