//! A rule's `fieldPath`, checked as kube-apiserver checks it when a CRD is written
//! (apiextensions-apiserver's `ValidFieldPath`): a path of `.name` and `['name']` steps
//! from the rule's node, each naming a declared property, or any key of a map.

use serde_json::Value;

/// Why `path` names no field of `schema` (the rule's node), in the apiserver's words.
pub fn invalid(schema: &Value, path: &str) -> Option<String> {
    let tokens = tokens(path);
    let mut schema = schema;
    let mut i = 0;
    while i < tokens.len() {
        let name = match tokens[i] {
            "[" => {
                let Some(quoted) = tokens.get(i + 1) else {
                    return Some("unexpected end of JSON path".to_owned());
                };
                if quoted.len() < 2 || !quoted.starts_with('\'') || !quoted.ends_with('\'') {
                    return Some(format!("expected single quoted string but got {quoted}"));
                }
                if tokens.get(i + 2) != Some(&"]") {
                    return Some(match tokens.get(i + 2) {
                        Some(t) => format!("expected ] but got {t}"),
                        None => "unexpected end of JSON path".to_owned(),
                    });
                }
                i += 3;
                match unescape(&quoted[1..quoted.len() - 1]) {
                    Ok(name) => name,
                    Err(e) => return Some(format!("invalid string literal: {e}")),
                }
            }
            "." => {
                let Some(name) = tokens.get(i + 1) else {
                    return Some("unexpected end of JSON path".to_owned());
                };
                i += 2;
                (*name).to_owned()
            }
            other => return Some(format!("expected [ or . but got: {other}")),
        };
        schema = match (schema.get("properties"), schema.get("additionalProperties")) {
            (Some(properties), _) => match properties.get(&name) {
                Some(property) => property,
                None => return Some("does not refer to a valid field".to_owned()),
            },
            (None, Some(values)) if values.is_object() => values,
            _ => return Some("does not refer to a valid field".to_owned()),
        };
    }
    None
}

/// A quoted name's escapes read as the apiserver reads them (`\\'`, `\\\\`, `\\n`, …).
fn unescape(quoted: &str) -> Result<String, String> {
    let mut name = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            name.push(c);
            continue;
        }
        name.push(match chars.next() {
            Some('a') => '\u{7}',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('v') => '\u{b}',
            Some('\'') => '\'',
            Some('\\') => '\\',
            Some(other) => return Err(format!("invalid escape char \\{other}")),
            None => return Err("invalid escape char \\".to_owned()),
        });
    }
    Ok(name)
}

/// The path's tokens: `.`, `[`, `]`, single-quoted strings (delimiters inside them
/// kept) and the text between.
fn tokens(path: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let bytes = path.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start] == b'\'' {
            let mut end = start + 1;
            while end < bytes.len() && !(bytes[end] == b'\'' && bytes[end - 1] != b'\\') {
                end += 1;
            }
            let end = (end + 1).min(bytes.len());
            tokens.push(&path[start..end]);
            start = end;
            continue;
        }
        if matches!(bytes[start], b'.' | b'[' | b']') {
            tokens.push(&path[start..=start]);
            start += 1;
            continue;
        }
        let end = path[start..]
            .find(['.', '[', ']'])
            .map_or(path.len(), |i| start + i);
        tokens.push(&path[start..end]);
        start = end;
    }
    tokens
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_name_declared_fields_or_map_keys() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b.c": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
        }});
        assert_eq!(invalid(&schema, ".a"), None);
        assert_eq!(invalid(&schema, ".a['b.c']"), None);
        assert_eq!(invalid(&schema, ".m.anything"), None);
        assert_eq!(
            invalid(&schema, ".x").as_deref(),
            Some("does not refer to a valid field")
        );
        assert_eq!(
            invalid(&schema, "a").as_deref(),
            Some("expected [ or . but got: a")
        );
        assert_eq!(
            invalid(&schema, ".a.").as_deref(),
            Some("unexpected end of JSON path")
        );
    }
}
