//! controller-gen's schema markers, applied to a schema with controller-gen's meaning.
//! A marker that does not fit the schema's type (`Minimum` on a string) is an error.

use serde_json::{Value, json};

use super::table::ITEMS_PREFIX;
use super::{Marker, Value as MarkerValue};
use crate::diag::{Code, Diagnostic, Diagnostics};

const VALIDATION: &str = "kubebuilder:validation:";

/// Applies every schema marker of `markers` (read from `file`) to `schema`; other
/// markers are left alone.
pub fn apply(schema: &mut Value, markers: &[Marker], file: &str, diags: &mut Diagnostics) {
    // Every field and type of a run comes through here, most with no marker at all.
    if markers.is_empty() {
        return;
    }
    let mut ordered: Vec<&Marker> = markers.iter().collect();
    ordered.sort_by_cached_key(|m| priority(&m.name));
    for marker in ordered {
        let result = if let Some(name) = marker.name.strip_prefix(ITEMS_PREFIX) {
            match schema.get_mut("items") {
                Some(items) => one(items, name, &marker.value),
                None => Err("an `items:` marker applies to lists only".to_owned()),
            }
        } else {
            let name = marker.name.strip_prefix(VALIDATION).unwrap_or(&marker.name);
            one(schema, name, &marker.value)
        };
        if let Err(why) = result {
            diags.push(
                Diagnostic::error(
                    Code::BadMarkerArgument,
                    format!("`+{}` cannot apply here: {why}", marker.name),
                )
                .at(file, marker.pos)
                .hint("check the marker against the field's type"),
            );
        }
    }
}

/// controller-gen's order of application, whatever the order in the source: `Type`,
/// `XIntOrString`, list types and `+default` first (so that `+kubebuilder:default` stomps
/// `+default`, and a bound finds its type), the one-of rules after every other CEL rule,
/// `items:` forms last. Within a priority, source order.
fn priority(name: &str) -> u8 {
    if name.starts_with(ITEMS_PREFIX) {
        return 100 + priority(&name.replacen("items:", "", 1));
    }
    match name.strip_prefix(VALIDATION).unwrap_or(name) {
        "Type" | "XIntOrString" | "listType" | "k8s:listType" | "default" => 9,
        "AtMostOneOf" => 11,
        "ExactlyOneOf" => 12,
        "AtLeastOneOf" => 13,
        _ => 10,
    }
}

fn kind(schema: &Value) -> &str {
    schema.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Strings, and int-or-string values (`IntOrString`, `Quantity`): the apiserver applies
/// string validations to such a value when it is a string, and controller-gen allows
/// them there (the Quantity pattern on resource limits).
fn expect_text(schema: &Value) -> Result<(), String> {
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Ok(());
    }
    expect(schema, &["string"], "strings")
}

fn expect(schema: &Value, types: &[&str], what: &str) -> Result<(), String> {
    if types.contains(&kind(schema)) {
        Ok(())
    } else {
        let actual = match kind(schema) {
            "" => "a value without a type".to_owned(),
            t => format!("a {t}"),
        };
        Err(format!("it constrains {what}, and this is {actual}"))
    }
}

fn number(value: &MarkerValue) -> Value {
    match value {
        MarkerValue::Int(i) => json!(i),
        MarkerValue::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => json!(*n as i64),
        MarkerValue::Number(n) => json!(n),
        other => json!(text(other)),
    }
}

fn text(value: &MarkerValue) -> String {
    match value {
        MarkerValue::String(s) => s.clone(),
        MarkerValue::Bool(b) => b.to_string(),
        MarkerValue::Int(i) => i.to_string(),
        MarkerValue::Number(n) => n.to_string(),
        MarkerValue::List(items) => items.join(";"),
        MarkerValue::Args(_) => String::new(),
    }
}

/// A raw marker value (`default`, `example`, enum items) as the schema's type wants it.
///
/// For a string, text that YAML reads as a scalar of another type, or cannot read at all,
/// is the string as written: `1.10` stays `1.10` (not `1.1`), `0x1F` and `1e3` stay
/// themselves, and `*` (a quoted enum item arrives unquoted) is `*`, as in controller-gen.
fn literal(schema: &Value, raw: &str) -> Result<Value, String> {
    // controller-gen's list syntax, for a list: `{a,b}`, `{{name: x},{name: y}}`, and
    // `{}` for the empty list (YAML would read each as a map).
    if kind(schema) == "array"
        && let Some(inner) = raw
            .trim()
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
    {
        let items = schema.get("items").cloned().unwrap_or_else(|| json!({}));
        return top_level_items(inner)
            .into_iter()
            .map(|item| literal(&items, item))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    let parsed = crate::yaml::parse(raw);
    if kind(schema) == "string"
        && matches!(
            parsed,
            Err(_) | Ok(Value::Null | Value::Bool(_) | Value::Number(_))
        )
    {
        return Ok(Value::String(raw.to_owned()));
    }
    let parsed = parsed.map_err(|e| format!("`{raw}` is not a YAML or JSON value: {e}"))?;
    Ok(match (kind(schema), parsed) {
        ("string", Value::String(s)) => Value::String(s),
        ("integer", v) if v.is_i64() || v.is_u64() => v,
        ("number", v) if v.is_number() => v,
        ("boolean", v) if v.is_boolean() => v,
        ("array", v) if v.is_array() => v,
        ("object", v) if v.is_object() => v,
        ("", v) => v,
        (t, v) => return Err(format!("`{v}` is not a {t}")),
    })
}

/// The comma-separated items of a list literal's inside, commas within braces, brackets
/// or quotes left alone.
fn top_level_items(inner: &str) -> Vec<&str> {
    let (mut items, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(inner[start..].trim());
    items.retain(|item| !item.is_empty());
    items
}

fn one(schema: &mut Value, name: &str, value: &MarkerValue) -> Result<(), String> {
    let set = |schema: &mut Value, key: &str, v: Value| {
        schema[key] = v;
        Ok(())
    };
    match name {
        "Minimum" | "Maximum" | "MultipleOf" => {
            expect(schema, &["integer", "number"], "numbers")?;
            let key = match name {
                "Minimum" => "minimum",
                "Maximum" => "maximum",
                _ => "multipleOf",
            };
            set(schema, key, number(value))
        }
        "ExclusiveMinimum" | "ExclusiveMaximum" => {
            expect(schema, &["integer", "number"], "numbers")?;
            let key = if name == "ExclusiveMinimum" {
                "exclusiveMinimum"
            } else {
                "exclusiveMaximum"
            };
            set(schema, key, json!(matches!(value, MarkerValue::Bool(true))))
        }
        "MinLength" | "MaxLength" => {
            expect_text(schema)?;
            let key = if name == "MinLength" {
                "minLength"
            } else {
                "maxLength"
            };
            set(schema, key, count(value)?)
        }
        "Pattern" => {
            expect_text(schema)?;
            let pattern = text(value);
            // The apiserver compiles every pattern (Go's RE2 syntax, which the regex
            // crate shares: no look-around, no back-references) and refuses the CRD when
            // one does not compile.
            if let Err(e) = regex::Regex::new(&pattern) {
                let why = e.to_string();
                let last = why
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default();
                let why = last.trim().trim_start_matches("error: ");
                return Err(format!("`{pattern}` is not a regular expression: {why}"));
            }
            set(schema, "pattern", json!(pattern))
        }
        "MinItems" | "MaxItems" => {
            expect(schema, &["array"], "lists")?;
            set(
                schema,
                if name == "MinItems" {
                    "minItems"
                } else {
                    "maxItems"
                },
                count(value)?,
            )
        }
        "UniqueItems" => match value {
            MarkerValue::Bool(true) => {
                Err("the apiserver rejects `uniqueItems: true`; use `+listType=set`".to_owned())
            }
            _ => Ok(()),
        },
        "MinProperties" | "MaxProperties" => {
            expect(schema, &["object"], "maps and objects")?;
            set(
                schema,
                if name == "MinProperties" {
                    "minProperties"
                } else {
                    "maxProperties"
                },
                count(value)?,
            )
        }
        "Enum" => {
            let MarkerValue::List(items) = value else {
                return Err("it needs a list".into());
            };
            let values = items
                .iter()
                .map(|i| literal(schema, i))
                .collect::<Result<Vec<_>, _>>()?;
            set(schema, "enum", json!(values))
        }
        "Format" => set(schema, "format", json!(text(value))),
        "Type" => {
            let t = text(value);
            if !["string", "integer", "number", "boolean", "array", "object"].contains(&t.as_str())
            {
                return Err(format!("`{t}` is not an OpenAPI type"));
            }
            if let Some(map) = schema.as_object_mut() {
                map.remove("format");
            }
            set(schema, "type", json!(t))
        }
        "Nullable" | "nullable" => set(schema, "nullable", json!(true)),
        "XPreserveUnknownFields" | "kubebuilder:pruning:PreserveUnknownFields" => {
            set(schema, "x-kubernetes-preserve-unknown-fields", json!(true))
        }
        "XEmbeddedResource" | "EmbeddedResource" => {
            expect(schema, &["object"], "objects")?;
            set(schema, "x-kubernetes-embedded-resource", json!(true))
        }
        "XIntOrString" => {
            if let Some(map) = schema.as_object_mut() {
                map.remove("type");
                map.remove("format");
            }
            set(schema, "x-kubernetes-int-or-string", json!(true))
        }
        "XValidation" => {
            let MarkerValue::Args(args) = value else {
                return Err("it needs arguments".into());
            };
            let mut rule = serde_json::Map::new();
            for (key, v) in args {
                rule.insert(
                    key.clone(),
                    match v {
                        MarkerValue::Bool(b) => json!(b),
                        other => json!(text(other)),
                    },
                );
            }
            push_rule(schema, Value::Object(rule));
            Ok(())
        }
        // The builder gives a Schemaless field an empty schema before any marker applies.
        "Schemaless" => Ok(()),
        "kubebuilder:default" | "kubebuilder:example" => {
            let key = if name == "kubebuilder:default" {
                "default"
            } else {
                "example"
            };
            let v = literal(schema, &text(value))?;
            set(schema, key, v)
        }
        "default" => {
            let raw = text(value);
            // controller-gen skips `ref(Constant)`: a Go constant has no value in source.
            if raw.trim_start().starts_with("ref(") {
                return Ok(());
            }
            let v = serde_json::from_str(&raw).map_err(|e| {
                format!("`{raw}` is not JSON ({e}); `+kubebuilder:default` takes YAML")
            })?;
            set(schema, "default", v)
        }
        "kubebuilder:title" => set(schema, "title", json!(text(value))),
        "kubebuilder:externalDocs" => {
            let MarkerValue::Args(args) = value else {
                return Err("it needs `url=`".into());
            };
            let url = args.get("url").map(text).unwrap_or_default();
            // Go's url.ParseRequestURI, which controller-gen checks with: an absolute
            // URI or an absolute path.
            let absolute = url.split_once(':').is_some_and(|(scheme, rest)| {
                !rest.is_empty()
                    && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            });
            if !(absolute || url.starts_with('/')) || url.contains(char::is_whitespace) {
                return Err(format!("`{url}` is not an absolute URL"));
            }
            let mut docs = json!({"url": url});
            if let Some(description) = args.get("description").map(text).filter(|d| !d.is_empty()) {
                docs["description"] = json!(description);
            }
            set(schema, "externalDocs", docs)
        }
        "ExactlyOneOf" | "AtMostOneOf" | "AtLeastOneOf" => {
            let MarkerValue::List(fields) = value else {
                return Err("it needs a list of field names".into());
            };
            if fields.is_empty() {
                return Ok(());
            }
            let has: Vec<String> = fields.iter().map(|f| format!("has(self.{f})")).collect();
            let count = format!("[{}].filter(x,x==true).size()", has.join(","));
            // Go's `%v` of the names: `[a b]`.
            let names = format!("[{}]", fields.join(" "));
            let (rule, message) = match name {
                "ExactlyOneOf" => (
                    format!("{count} == 1"),
                    format!("exactly one of the fields in {names} must be set"),
                ),
                "AtMostOneOf" => (
                    format!("{count} <= 1"),
                    format!("at most one of the fields in {names} may be set"),
                ),
                _ => (
                    format!("{count} >= 1"),
                    format!("at least one of the fields in {names} must be set"),
                ),
            };
            push_rule(schema, json!({"rule": rule, "message": message}));
            Ok(())
        }
        "k8s:immutable" => {
            push_rule(
                schema,
                json!({"rule": "self == oldSelf", "message": "field is immutable"}),
            );
            Ok(())
        }
        // controller-gen lists a `+k8s:enum` type's values sorted (as JSON text).
        "k8s:enum" => match schema.get_mut("enum") {
            Some(Value::Array(values)) => {
                values.sort_by_key(|v| v.to_string());
                Ok(())
            }
            _ => Err(
                "`+k8s:enum` takes its values from the variants of a unit enum, and this is none"
                    .into(),
            ),
        },
        "listType" | "k8s:listType" => {
            expect(schema, &["array"], "lists")?;
            let t = text(value);
            if !["atomic", "set", "map"].contains(&t.as_str()) {
                return Err(format!("list type `{t}` is none of atomic, set, map"));
            }
            set(schema, "x-kubernetes-list-type", json!(t))
        }
        "listMapKey" | "k8s:listMapKey" => {
            expect(schema, &["array"], "lists")?;
            let keys = schema.as_object_mut().map(|m| {
                m.entry("x-kubernetes-list-map-keys")
                    .or_insert_with(|| json!([]))
            });
            if let Some(Value::Array(keys)) = keys {
                keys.push(json!(text(value)));
            }
            Ok(())
        }
        "mapType" | "structType" => {
            expect(schema, &["object"], "maps and objects")?;
            let t = text(value);
            if !["granular", "atomic"].contains(&t.as_str()) {
                return Err(format!("`{t}` is neither granular nor atomic"));
            }
            set(schema, "x-kubernetes-map-type", json!(t))
        }
        // Kind, client and package markers, and optional/required (read by the builder).
        _ => Ok(()),
    }
}

/// Adds a CEL rule to the schema's `x-kubernetes-validations`.
pub fn push_rule(schema: &mut Value, rule: Value) {
    let rules = schema.as_object_mut().map(|m| {
        m.entry("x-kubernetes-validations")
            .or_insert_with(|| json!([]))
    });
    if let Some(Value::Array(rules)) = rules {
        rules.push(rule);
    }
}

/// A length or count bound: the apiserver takes only a non-negative integer.
fn count(value: &MarkerValue) -> Result<Value, String> {
    match value {
        MarkerValue::Int(n) if *n >= 0 => Ok(json!(n)),
        other => Err(format!(
            "`{}` is not a count: it must be a whole number, 0 or more",
            text(other)
        )),
    }
}
