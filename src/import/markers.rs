//! A schema node's keywords as the markers that write them: `minimum: 1` as
//! `+kubebuilder:validation:Minimum=1`, a CEL rule as `+kubebuilder:validation:XValidation:…`.
//! Names come from crdgen's marker table, so an import writes only markers crdgen reads.

use serde_json::Value;

use crate::markers::{self as table, MarkerDef};

/// Where a marker is written: on a field, or on a type (a struct, enum or alias).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Site {
    Field,
    Type,
}

/// `+name` or `+name=value`.
pub fn marker(def: &MarkerDef, value: Option<&str>) -> String {
    match value {
        Some(value) => format!("+{}={value}", def.name),
        None => format!("+{}", def.name),
    }
}

/// `+name:key=value,…`, of the arguments given.
fn named(def: &MarkerDef, args: &[(&str, Option<String>)]) -> String {
    let args: Vec<String> = args
        .iter()
        .filter_map(|(key, value)| Some(format!("{key}={}", value.as_ref()?)))
        .collect();
    format!("+{}:{}", def.name, args.join(","))
}

/// A string as a marker argument reads it back: bare where nothing in it is special
/// to the marker syntax; raw in backticks where it holds quotes or backslashes (a
/// pattern, a CEL rule) and no backtick or line break; else quoted, with `\"`, `\\`,
/// `\n` and `\t` escaped.
pub fn quote(s: &str) -> String {
    let bare = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+".contains(c))
        && !matches!(s, "true" | "false");
    if bare {
        return s.to_owned();
    }
    if s.contains(['"', '\\']) && !s.contains(['`', '\n', '\t', '\r']) {
        return format!("`{s}`");
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON value in flow form, as `+kubebuilder:default=` reads it (YAML, of which this
/// is a part): `{"a": 1, "b": [true]}`.
pub fn flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), flow(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

/// The markers that write `node`'s keywords but `implied` (those its Rust type writes)
/// and its description (which is the doc comment), at `site`. Keywords no marker writes
/// are left out: the round-trip check names what is lost.
pub fn of(node: &Value, implied: &[&str], site: Site) -> Vec<String> {
    let Some(map) = node.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in map {
        if implied.contains(&key.as_str()) || key == "description" {
            continue;
        }
        let number = || value.to_string();
        let flag = value == &Value::Bool(true);
        let def: &MarkerDef = match key.as_str() {
            "minimum" => &table::MINIMUM,
            "maximum" => &table::MAXIMUM,
            "multipleOf" => &table::MULTIPLE_OF,
            "minLength" => &table::MIN_LENGTH,
            "maxLength" => &table::MAX_LENGTH,
            "minItems" => &table::MIN_ITEMS,
            "maxItems" => &table::MAX_ITEMS,
            "minProperties" => &table::MIN_PROPERTIES,
            "maxProperties" => &table::MAX_PROPERTIES,
            "exclusiveMinimum"
            | "exclusiveMaximum"
            | "nullable"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string"
                if !flag =>
            {
                continue;
            }
            "exclusiveMinimum" => {
                out.push(marker(&table::EXCLUSIVE_MINIMUM, Some("true")));
                continue;
            }
            "exclusiveMaximum" => {
                out.push(marker(&table::EXCLUSIVE_MAXIMUM, Some("true")));
                continue;
            }
            "nullable" => {
                let def = match site {
                    Site::Field => &table::NULLABLE,
                    Site::Type => &table::NULLABLE_VALIDATION,
                };
                out.push(marker(def, None));
                continue;
            }
            "x-kubernetes-preserve-unknown-fields" => {
                out.push(marker(&table::PRESERVE_UNKNOWN_FIELDS, None));
                continue;
            }
            "x-kubernetes-embedded-resource" => {
                out.push(marker(&table::X_EMBEDDED_RESOURCE, None));
                continue;
            }
            "x-kubernetes-int-or-string" => {
                out.push(marker(&table::X_INT_OR_STRING, None));
                continue;
            }
            "pattern" | "format" | "title" | "type" => {
                let def = match key.as_str() {
                    "pattern" => &table::PATTERN,
                    "format" => &table::FORMAT,
                    "title" => &table::TITLE,
                    _ => &table::TYPE,
                };
                if let Some(text) = value.as_str() {
                    out.push(marker(def, Some(&quote(text))));
                }
                continue;
            }
            "enum" => {
                if let Some(values) = value.as_array() {
                    let items: Vec<String> = values
                        .iter()
                        .map(|v| match v {
                            Value::String(s) => quote_item(s),
                            other => other.to_string(),
                        })
                        .collect();
                    out.push(marker(&table::ENUM, Some(&items.join(";"))));
                }
                continue;
            }
            "default" => {
                out.push(marker(&table::KUBEBUILDER_DEFAULT, Some(&flow(value))));
                continue;
            }
            "example" => {
                out.push(marker(&table::EXAMPLE, Some(&flow(value))));
                continue;
            }
            "externalDocs" => {
                let arg = |k: &str| value.get(k).and_then(Value::as_str).map(quote);
                out.push(named(
                    &table::EXTERNAL_DOCS,
                    &[("url", arg("url")), ("description", arg("description"))],
                ));
                continue;
            }
            "x-kubernetes-validations" => {
                for rule in value.as_array().into_iter().flatten() {
                    out.push(validation(rule));
                }
                continue;
            }
            "x-kubernetes-list-type" => {
                out.push(marker(&table::LIST_TYPE, value.as_str()));
                continue;
            }
            "x-kubernetes-list-map-keys" => {
                for key in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    out.push(marker(&table::LIST_MAP_KEY, Some(key)));
                }
                continue;
            }
            "x-kubernetes-map-type" => {
                let def = match map.get("type").and_then(Value::as_str) {
                    Some("object") if map.contains_key("properties") => &table::STRUCT_TYPE,
                    _ => &table::MAP_TYPE,
                };
                out.push(marker(def, value.as_str()));
                continue;
            }
            // anyOf, allOf, oneOf, not, uniqueItems, …: no marker writes them.
            _ => continue,
        };
        out.push(marker(def, Some(&number())));
    }
    out
}

/// An `Enum=` item: quoted always, so that `1` or `true` stays a string.
fn quote_item(s: &str) -> String {
    let quoted = quote(s);
    if quoted.starts_with(['"', '`']) {
        quoted
    } else {
        format!("\"{s}\"")
    }
}

/// One `x-kubernetes-validations` rule as its marker.
fn validation(rule: &Value) -> String {
    let text = |k: &str| rule.get(k).and_then(Value::as_str).map(quote);
    let optional_old_self = rule
        .get("optionalOldSelf")
        .and_then(Value::as_bool)
        .map(|b| b.to_string());
    named(
        &table::X_VALIDATION,
        &[
            ("rule", text("rule")),
            ("message", text("message")),
            ("messageExpression", text("messageExpression")),
            ("reason", text("reason")),
            ("fieldPath", text("fieldPath")),
            ("optionalOldSelf", optional_old_self),
        ],
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_are_bare_only_where_the_marker_syntax_reads_them_back_as_they_are() {
        assert_eq!(quote("date-time"), "date-time");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("true"), "\"true\"");
        assert_eq!(quote("say \"hi\"\\n\n"), "\"say \\\"hi\\\"\\\\n\\n\"");
        assert_eq!(quote(r"^\d+$"), r"`^\d+$`");
        assert_eq!(quote(r#"self == "a""#), r#"`self == "a"`"#);
        assert_eq!(quote(""), "\"\"");
    }

    #[test]
    fn keywords_become_markers_and_implied_ones_are_left_to_the_type() {
        let node = json!({
            "type": "string", "description": "d", "maxLength": 10, "pattern": "^a+$",
            "enum": ["a", "1"], "default": "a", "nullable": true,
            "x-kubernetes-validations": [{"rule": "self != 'b'", "message": "not b"}],
        });
        assert_eq!(
            of(&node, &["type"], Site::Field),
            [
                "+kubebuilder:default=\"a\"",
                "+kubebuilder:validation:Enum=\"a\";\"1\"",
                "+kubebuilder:validation:MaxLength=10",
                "+nullable",
                "+kubebuilder:validation:Pattern=\"^a+$\"",
                "+kubebuilder:validation:XValidation:rule=\"self != 'b'\",message=\"not b\"",
            ]
        );
        assert_eq!(
            of(&json!({"nullable": true}), &[], Site::Type),
            ["+kubebuilder:validation:Nullable"]
        );
    }

    #[test]
    fn values_are_written_in_flow_form() {
        assert_eq!(
            flow(&json!({"a": [1, "x,y"], "b": {}})),
            r#"{"a": [1, "x,y"], "b": {}}"#
        );
    }
}
