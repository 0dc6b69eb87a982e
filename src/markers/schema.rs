//! controller-gen's schema markers, applied to a schema with controller-gen's meaning.
//! A marker that does not fit the schema's type (`Minimum` on a string) is an error.

use serde_json::{Value, json};

use super::{ITEMS_PREFIX, Marker, Value as MarkerValue};
use crate::diag::{Code, Diagnostic, Diagnostics};

/// Applies every schema marker of `markers` (read from `file`) to `schema`; other
/// markers are left alone.
pub fn apply(schema: &mut Value, markers: &[Marker], file: &str, diags: &mut Diagnostics) {
    // Every field and type of a run comes through here, most with no marker at all.
    if markers.is_empty() {
        return;
    }
    let mut ordered: Vec<&Marker> = markers.iter().filter(|m| m.def.apply.is_some()).collect();
    // controller-gen's order of application, whatever the order in the source (see
    // `MarkerDef::priority`), `items:` forms last; within a priority, source order.
    ordered.sort_by_key(|m| (m.name.starts_with(ITEMS_PREFIX), m.def.priority));
    for marker in ordered {
        let Some(apply) = marker.def.apply else {
            continue;
        };
        let target = match marker.name.starts_with(ITEMS_PREFIX) {
            true => schema.get_mut("items"),
            false => Some(&mut *schema),
        };
        let result = match target {
            Some(target) => {
                let before = (rule_count(target), target.get("default").cloned());
                let result = apply(target, &marker.value);
                mark_origin(target, before, file, marker.pos);
                result
            }
            None => Err("an `items:` marker applies to lists only".to_owned()),
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

/// The key a CEL rule carries while its CRD is built: where its marker is written, so
/// that the rule's checks point there. Taken off before the CRD is written.
pub const RULE_ORIGIN: &str = "x-crdgen-origin";

fn rule_count(schema: &Value) -> usize {
    schema["x-kubernetes-validations"]
        .as_array()
        .map_or(0, Vec::len)
}

/// `schema` without the origin `key` (`RULE_ORIGIN`, `DEFAULT_ORIGIN`) at any depth.
pub fn strip_origin(schema: &mut Value, key: &str) {
    match schema {
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| strip_origin(v, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_origin(v, key)),
        _ => {}
    }
}

/// The key a default carries beside it while its CRD is built: where its marker is
/// written, so that the apiserver's check of it points there. Taken off before the CRD
/// is written.
pub const DEFAULT_ORIGIN: &str = "x-crdgen-default-origin";

/// Marks what a marker added with its place: the rules after the first `before.0`, and
/// the default when it set another than `before.1`.
fn mark_origin(
    schema: &mut Value,
    before: (usize, Option<Value>),
    file: &str,
    pos: crate::diag::Pos,
) {
    let origin = json!({"file": file, "line": pos.line, "col": pos.col});
    if let Some(Value::Array(rules)) = schema.get_mut("x-kubernetes-validations") {
        for rule in rules.iter_mut().skip(before.0) {
            rule[RULE_ORIGIN] = origin.clone();
        }
    }
    // Kubernetes' own types' defaults (no file of the user's) are the apiserver's own.
    if !file.is_empty()
        && schema.get("default").is_some()
        && schema.get("default") != before.1.as_ref()
    {
        schema[DEFAULT_ORIGIN] = origin;
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
    let parsed = match go_leading_zero(raw.trim()) {
        Some(value) => Ok(value),
        None => crate::yaml::parse(raw),
    };
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

/// A number written with a leading zero, as controller-gen's marker parser reads it
/// (Go's octal, and since controller-tools #1366 a string when it is no octal number:
/// `0777` is 511, `0987` is `"0987"`); `None` for anything else, which YAML reads.
fn go_leading_zero(raw: &str) -> Option<Value> {
    let (sign, digits) = match raw.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, raw.strip_prefix('+').unwrap_or(raw)),
    };
    let octal = digits
        .strip_prefix('0')
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
    Some(match i64::from_str_radix(octal, 8) {
        Ok(n) => json!(sign * n),
        Err(_) => Value::String(raw.to_owned()),
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

fn set(schema: &mut Value, key: &str, value: Value) -> Result<(), String> {
    schema[key] = value;
    Ok(())
}

fn bound(schema: &mut Value, key: &str, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["integer", "number"], "numbers")?;
    set(schema, key, number(value))
}

pub(super) fn minimum(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    bound(schema, "minimum", value)
}

pub(super) fn maximum(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    bound(schema, "maximum", value)
}

pub(super) fn multiple_of(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    bound(schema, "multipleOf", value)
}

fn exclusive(schema: &mut Value, key: &str, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["integer", "number"], "numbers")?;
    set(schema, key, json!(matches!(value, MarkerValue::Bool(true))))
}

pub(super) fn exclusive_minimum(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    exclusive(schema, "exclusiveMinimum", value)
}

pub(super) fn exclusive_maximum(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    exclusive(schema, "exclusiveMaximum", value)
}

pub(super) fn min_length(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect_text(schema)?;
    set(schema, "minLength", count(value)?)
}

pub(super) fn max_length(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect_text(schema)?;
    set(schema, "maxLength", count(value)?)
}

pub(super) fn pattern(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect_text(schema)?;
    let pattern = text(value);
    if let Some(why) = regex_error(&pattern) {
        return Err(format!("`{pattern}` is not a regular expression: {why}"));
    }
    set(schema, "pattern", json!(pattern))
}

/// Why `pattern` does not compile, if it does not. The apiserver compiles every pattern
/// (Go's RE2 syntax, which the regex crate shares: no look-around, no back-references)
/// and refuses the CRD when one does not. Asked once a pattern a process: the versions
/// of a kind, and kinds alike, repeat theirs, and compiling is most of the asking.
fn regex_error(pattern: &str) -> Option<String> {
    type Checked = std::collections::HashMap<String, Option<String>>;
    static CHECKED: std::sync::OnceLock<std::sync::Mutex<Checked>> = std::sync::OnceLock::new();
    let checked = CHECKED.get_or_init(Default::default);
    let known = checked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(pattern)
        .cloned();
    if let Some(why) = known {
        return why;
    }
    let why = regex::Regex::new(pattern).err().map(|e| {
        let why = e.to_string();
        let last = why
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        last.trim().trim_start_matches("error: ").to_owned()
    });
    checked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(pattern.to_owned(), why.clone());
    why
}

pub(super) fn min_items(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["array"], "lists")?;
    set(schema, "minItems", count(value)?)
}

pub(super) fn max_items(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["array"], "lists")?;
    set(schema, "maxItems", count(value)?)
}

pub(super) fn unique_items(_: &mut Value, value: &MarkerValue) -> Result<(), String> {
    match value {
        MarkerValue::Bool(true) => {
            Err("the apiserver rejects `uniqueItems: true`; use `+listType=set`".to_owned())
        }
        _ => Ok(()),
    }
}

pub(super) fn min_properties(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["object"], "maps and objects")?;
    set(schema, "minProperties", count(value)?)
}

pub(super) fn max_properties(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["object"], "maps and objects")?;
    set(schema, "maxProperties", count(value)?)
}

pub(super) fn enumeration(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let MarkerValue::List(items) = value else {
        return Err("it needs a list".into());
    };
    let values = items
        .iter()
        .map(|i| literal(schema, i))
        .collect::<Result<Vec<_>, _>>()?;
    set(schema, "enum", json!(values))
}

pub(super) fn format(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    set(schema, "format", json!(text(value)))
}

pub(super) fn type_(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let t = text(value);
    if !["string", "integer", "number", "boolean", "array", "object"].contains(&t.as_str()) {
        return Err(format!("`{t}` is not an OpenAPI type"));
    }
    if let Some(map) = schema.as_object_mut() {
        map.remove("format");
    }
    set(schema, "type", json!(t))
}

pub(super) fn nullable(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    set(schema, "nullable", json!(true))
}

pub(super) fn preserve_unknown_fields(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    set(schema, "x-kubernetes-preserve-unknown-fields", json!(true))
}

pub(super) fn embedded_resource(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    expect(schema, &["object"], "objects")?;
    set(schema, "x-kubernetes-embedded-resource", json!(true))
}

pub(super) fn int_or_string(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    if let Some(map) = schema.as_object_mut() {
        map.remove("type");
        map.remove("format");
    }
    set(schema, "x-kubernetes-int-or-string", json!(true))
}

pub(super) fn x_validation(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
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

pub(super) fn kubebuilder_default(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let v = literal(schema, &text(value))?;
    set(schema, "default", v)
}

pub(super) fn example(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let v = literal(schema, &text(value))?;
    set(schema, "example", v)
}

/// Kubernetes' own `+default`: JSON.
pub(super) fn default(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let raw = text(value);
    // controller-gen skips `ref(Constant)`: a Go constant has no value in source.
    if raw.trim_start().starts_with("ref(") {
        return Ok(());
    }
    let v = serde_json::from_str(&raw)
        .map_err(|e| format!("`{raw}` is not JSON ({e}); `+kubebuilder:default` takes YAML"))?;
    set(schema, "default", v)
}

pub(super) fn title(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    set(schema, "title", json!(text(value)))
}

pub(super) fn external_docs(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let MarkerValue::Args(args) = value else {
        return Err("it needs `url=`".into());
    };
    let url = args.get("url").map(text).unwrap_or_default();
    // Go's url.ParseRequestURI, which controller-gen checks with: an absolute URI or an
    // absolute path.
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

/// A one-of rule in controller-gen's form since its cheaper rules (controller-tools
/// ce5d884, after v0.21.0): a sum of `(has(self.f)?1:0)` terms compared with 1, or for
/// "at least one" a disjunction of `has(self.f)`; with its message (`exactly one of the
/// fields in [a b] must be set`).
fn one_of(
    schema: &mut Value,
    value: &MarkerValue,
    rule: impl Fn(&[String]) -> String,
    (quantity, verb): (&str, &str),
) -> Result<(), String> {
    let MarkerValue::List(fields) = value else {
        return Err("it needs a list of field names".into());
    };
    if fields.is_empty() {
        return Ok(());
    }
    // Go's `%v` of the names: `[a b]`.
    let names = format!("[{}]", fields.join(" "));
    let message = format!("{quantity} of the fields in {names} {verb} set");
    push_rule(schema, json!({"rule": rule(fields), "message": message}));
    Ok(())
}

/// `(has(self.a)?1:0)+(has(self.b)?1:0)`: how many of `fields` are set.
fn set_count(fields: &[String]) -> String {
    let terms: Vec<String> = fields
        .iter()
        .map(|f| format!("(has(self.{f})?1:0)"))
        .collect();
    terms.join("+")
}

pub(super) fn exactly_one_of(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let rule = |fields: &[String]| format!("{} == 1", set_count(fields));
    one_of(schema, value, rule, ("exactly one", "must be"))
}

pub(super) fn at_most_one_of(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let rule = |fields: &[String]| format!("{} <= 1", set_count(fields));
    one_of(schema, value, rule, ("at most one", "may be"))
}

pub(super) fn at_least_one_of(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    let rule = |fields: &[String]| {
        let has: Vec<String> = fields.iter().map(|f| format!("has(self.{f})")).collect();
        has.join("||")
    };
    one_of(schema, value, rule, ("at least one", "must be"))
}

pub(super) fn immutable(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    push_rule(
        schema,
        json!({"rule": "self == oldSelf", "message": "field is immutable"}),
    );
    Ok(())
}

/// controller-gen lists a `+k8s:enum` type's values sorted (as JSON text).
pub(super) fn k8s_enum(schema: &mut Value, _: &MarkerValue) -> Result<(), String> {
    match schema.get_mut("enum") {
        Some(Value::Array(values)) => {
            values.sort_by_key(|v| v.to_string());
            Ok(())
        }
        _ => Err(
            "`+k8s:enum` takes its values from the variants of a unit enum, and this is none"
                .into(),
        ),
    }
}

pub(super) fn list_type(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["array"], "lists")?;
    let t = text(value);
    if !["atomic", "set", "map"].contains(&t.as_str()) {
        return Err(format!("list type `{t}` is none of atomic, set, map"));
    }
    set(schema, "x-kubernetes-list-type", json!(t))
}

pub(super) fn list_map_key(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
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

/// `+mapType` and `+structType`: both are `x-kubernetes-map-type`.
pub(super) fn map_type(schema: &mut Value, value: &MarkerValue) -> Result<(), String> {
    expect(schema, &["object"], "maps and objects")?;
    let t = text(value);
    if !["granular", "atomic"].contains(&t.as_str()) {
        return Err(format!("`{t}` is neither granular nor atomic"));
    }
    set(schema, "x-kubernetes-map-type", json!(t))
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::literal;

    #[test]
    fn values_read_as_controller_gen_reads_them() {
        let untyped = json!({"x-kubernetes-int-or-string": true});
        let cases = [
            (&untyped, "100Mi", json!("100Mi")),
            (&untyped, "2024-01-15", json!("2024-01-15")),
            (&untyped, "123/config", json!("123/config")),
            (&untyped, "sha256:08a7b", json!("sha256:08a7b")),
            (&untyped, "087bdd", json!("087bdd")),
            (&untyped, "0987", json!("0987")),
            (&untyped, "0777", json!(511)),
            (&untyped, "-010", json!(-8)),
            (&untyped, "0", json!(0)),
            (&untyped, "25", json!(25)),
        ];
        for (schema, raw, expected) in cases {
            assert_eq!(literal(schema, raw).unwrap(), expected, "{raw}");
        }
        assert_eq!(
            literal(&json!({"type": "integer"}), "0777").unwrap(),
            json!(511)
        );
        assert!(literal(&json!({"type": "integer"}), "0987").is_err());
        assert_eq!(
            literal(&json!({"type": "string"}), "0987").unwrap(),
            json!("0987")
        );
    }
}
