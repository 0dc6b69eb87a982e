//! One version's schema, old against new, node by node: what would refuse an object the
//! old schema let through, or read it differently. What loosens (a field added as
//! optional, a bound widened, an enum value added, a rule removed) and what is prose (a
//! description, a title, an example) passes without a word.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Change;
use crate::diag::Code;

/// Keys no rule judges because no object can be refused or read differently for them.
const PROSE: [&str; 4] = ["description", "title", "example", "externalDocs"];

/// Bounds an object must be within: (key, whether a greater value tightens).
const BOUNDS: [(&str, bool); 8] = [
    ("maximum", false),
    ("maxLength", false),
    ("maxItems", false),
    ("maxProperties", false),
    ("minimum", true),
    ("minLength", true),
    ("minItems", true),
    ("minProperties", true),
];

/// Keys judged by [`node`] itself; any other that changed is a [`Code::SchemaChanged`].
const JUDGED: [&str; 23] = [
    "type",
    "x-kubernetes-int-or-string",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "default",
    "nullable",
    "enum",
    "maximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "minimum",
    "minLength",
    "minItems",
    "minProperties",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "pattern",
    "format",
    "x-kubernetes-validations",
];

/// The list and map keys: how server-side apply merges, and what a list may hold.
const MERGE: [&str; 3] = [
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
];

/// The changes from `old` to `new` at `path` and below, into `out`.
pub fn node(path: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let change = |code, message: String, old: Option<&Value>, new: Option<&Value>| Change {
        code,
        path: shown(path),
        message,
        old: old.cloned(),
        new: new.cloned(),
    };
    let (o, n) = (|k: &str| old.get(k), |k: &str| new.get(k));
    let type_of = |v: &Value| -> String {
        match (
            v.get("type").and_then(Value::as_str),
            v.get("x-kubernetes-int-or-string"),
        ) {
            (_, Some(Value::Bool(true))) => "int-or-string".to_owned(),
            (Some(t), _) => t.to_owned(),
            (None, _) => "any".to_owned(),
        }
    };
    let (old_type, new_type) = (type_of(old), type_of(new));
    if old_type != new_type {
        // Below a new type nothing compares: the old objects are refused already.
        out.push(change(
            Code::TypeChanged,
            format!("its type changed from {old_type} to {new_type}"),
            o("type"),
            n("type"),
        ));
        return;
    }
    properties(path, old, new, out);
    for (key, step) in [("items", "[*]"), ("additionalProperties", ".*")] {
        if let (Some(o @ Value::Object(_)), Some(n @ Value::Object(_))) = (o(key), n(key)) {
            node(&format!("{path}{step}"), o, n, out);
        } else if o(key) != n(key) && o(key).is_some() {
            out.push(change(
                Code::SchemaChanged,
                format!("its `{key}` changed"),
                o(key),
                n(key),
            ));
        }
    }
    match (o("default"), n("default")) {
        (a, b) if a == b => {}
        (None, Some(b)) => out.push(change(
            Code::DefaultChanged,
            format!("a default is added, {}", b),
            None,
            Some(b),
        )),
        (Some(a), None) => out.push(change(
            Code::DefaultChanged,
            format!("its default {} is removed", a),
            Some(a),
            None,
        )),
        (Some(a), Some(b)) => out.push(change(
            Code::DefaultChanged,
            format!("its default changed from {} to {}", a, b),
            Some(a),
            Some(b),
        )),
        (None, None) => {}
    }
    if o("nullable") == Some(&Value::Bool(true)) && n("nullable") != Some(&Value::Bool(true)) {
        out.push(change(
            Code::NullableRemoved,
            "it may no longer be null".to_owned(),
            o("nullable"),
            n("nullable"),
        ));
    }
    enums(&change, o("enum"), n("enum"), out);
    bounds(&change, old, new, out);
    for (key, code) in [
        ("pattern", Code::PatternChanged),
        ("format", Code::FormatChanged),
    ] {
        match (o(key), n(key)) {
            (a, b) if a == b => {}
            (None, Some(b)) => out.push(change(
                code,
                format!("a {key} is added, {}", b),
                None,
                Some(b),
            )),
            (Some(a), Some(b)) => out.push(change(
                code,
                format!("its {key} changed from {} to {}", a, b),
                Some(a),
                Some(b),
            )),
            // Dropping one lets more through.
            _ => {}
        }
    }
    rules(
        path,
        o("x-kubernetes-validations"),
        n("x-kubernetes-validations"),
        out,
    );
    let merge = |v: &Value| -> Vec<Value> {
        MERGE
            .iter()
            .map(|k| v.get(*k).cloned().unwrap_or_else(|| implied(k, &old_type)))
            .collect()
    };
    let (old_merge, new_merge) = (merge(old), merge(new));
    if old_merge != new_merge {
        let said = |m: &[Value]| {
            MERGE
                .iter()
                .zip(m)
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{k}: {}", v))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push(change(
            Code::ListTypeChanged,
            format!(
                "how it merges changed from {{{}}} to {{{}}}",
                said(&old_merge),
                said(&new_merge)
            ),
            Some(&Value::Array(old_merge.clone())),
            Some(&Value::Array(new_merge.clone())),
        ));
    }
    let preserve = "x-kubernetes-preserve-unknown-fields";
    if o(preserve) == Some(&Value::Bool(true)) && n(preserve) != Some(&Value::Bool(true)) {
        out.push(change(
            Code::PreserveUnknownRemoved,
            "its unknown fields are no longer kept: the apiserver prunes them".to_owned(),
            o(preserve),
            n(preserve),
        ));
    }
    let keys: BTreeSet<&String> = [old, new]
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|m| m.keys())
        .collect();
    for key in keys {
        let judged = JUDGED.contains(&key.as_str())
            || MERGE.contains(&key.as_str())
            || PROSE.contains(&key.as_str())
            || key == preserve;
        if !judged && o(key) != n(key) {
            out.push(change(
                Code::SchemaChanged,
                format!("its `{key}` changed"),
                o(key),
                n(key),
            ));
        }
    }
}

/// What a missing merge key means: a list is atomic, an object's fields granular.
fn implied(key: &str, ty: &str) -> Value {
    match (key, ty) {
        ("x-kubernetes-list-type", "array") => Value::from("atomic"),
        ("x-kubernetes-map-type", "object") => Value::from("granular"),
        _ => Value::Null,
    }
}

/// Fields removed, compared and newly required.
fn properties(path: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let old_props = old.get("properties").and_then(Value::as_object);
    let new_props = new.get("properties").and_then(Value::as_object);
    for (name, o) in old_props.into_iter().flatten() {
        let at = format!("{path}.{name}");
        match new_props.and_then(|p| p.get(name)) {
            Some(n) => node(&at, o, n, out),
            None => out.push(Change {
                code: Code::FieldRemoved,
                path: at,
                message: "the field is removed".to_owned(),
                old: o.get("type").cloned(),
                new: None,
            }),
        }
    }
    let required = |v: &Value| -> BTreeSet<String> {
        v.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    for name in required(new).difference(&required(old)) {
        let message = match old_props.is_some_and(|p| p.contains_key(name)) {
            true => "the field became required",
            false => "a required field is added",
        };
        out.push(Change {
            code: Code::FieldRequired,
            path: format!("{path}.{name}"),
            message: message.to_owned(),
            old: None,
            new: Some(Value::from(name.as_str())),
        });
    }
}

type Make<'a> = dyn Fn(Code, String, Option<&Value>, Option<&Value>) -> Change + 'a;

fn enums(change: &Make<'_>, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    let values = |v: Option<&Value>| v.and_then(Value::as_array).cloned();
    match (values(old), values(new)) {
        (None, Some(_)) => out.push(change(
            Code::EnumNarrowed,
            format!("its values are limited to {}", new.unwrap_or(&Value::Null)),
            old,
            new,
        )),
        (Some(o), Some(n)) => {
            let removed: Vec<Value> = o.into_iter().filter(|v| !n.contains(v)).collect();
            if !removed.is_empty() {
                out.push(change(
                    Code::EnumNarrowed,
                    format!("its values {} are no longer allowed", Value::Array(removed)),
                    old,
                    new,
                ));
            }
        }
        _ => {}
    }
}

fn bounds(change: &Make<'_>, old: &Value, new: &Value, out: &mut Vec<Change>) {
    for (key, greater_tightens) in BOUNDS {
        let (a, b) = (old.get(key), new.get(key));
        let tighter = match (a.and_then(Value::as_f64), b.and_then(Value::as_f64)) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => (b > a) == greater_tightens && a != b,
            _ => false,
        };
        if tighter {
            let was = a.map_or("none".to_owned(), Value::to_string);
            out.push(change(
                Code::BoundTightened,
                format!(
                    "its {key} tightened from {was} to {}",
                    b.unwrap_or(&Value::Null)
                ),
                a,
                b,
            ));
        }
    }
    for key in ["exclusiveMaximum", "exclusiveMinimum"] {
        let set = |v: &Value| v.get(key) == Some(&Value::Bool(true));
        if set(new) && !set(old) {
            out.push(change(
                Code::BoundTightened,
                format!("its bound became exclusive ({key})"),
                old.get(key),
                new.get(key),
            ));
        }
    }
    let (a, b) = (old.get("multipleOf"), new.get("multipleOf"));
    let tighter = match (a.and_then(Value::as_f64), b.and_then(Value::as_f64)) {
        (None, Some(_)) => true,
        // Still every old multiple when the old step is a multiple of the new one.
        (Some(a), Some(b)) => b != 0.0 && (a / b).fract() != 0.0,
        _ => false,
    };
    if tighter {
        out.push(change(
            Code::BoundTightened,
            format!(
                "its multipleOf tightened from {} to {}",
                a.map_or("none".to_owned(), Value::to_string),
                b.unwrap_or(&Value::Null)
            ),
            a,
            b,
        ));
    }
}

/// CEL rules, matched by their text: a new text in a place an old one left is that
/// rule changed, else a rule added. A message or messageExpression changed reads
/// the same objects; a reason or optionalOldSelf changed does not.
fn rules(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    let (old, new) = (list(old), list(new));
    let text = |r: &Value| {
        r.get("rule")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let semantic = |r: &Value| {
        (
            text(r),
            r.get("reason").cloned(),
            r.get("optionalOldSelf").cloned(),
        )
    };
    let old_texts: Vec<String> = old.iter().map(text).collect();
    let new_texts: Vec<String> = new.iter().map(text).collect();
    for (i, rule) in new.iter().enumerate() {
        let change = |code, message: String, was: Option<&Value>| Change {
            code,
            path: shown(path),
            message,
            old: was.cloned(),
            new: Some(rule.clone()),
        };
        match old.iter().find(|o| text(o) == new_texts[i]) {
            Some(same) if semantic(same) != semantic(rule) => out.push(change(
                Code::RuleChanged,
                format!(
                    "the reason or optionalOldSelf of its rule `{}` changed",
                    new_texts[i]
                ),
                Some(same),
            )),
            Some(_) => {}
            None => match old.get(i).filter(|o| !new_texts.contains(&text(o))) {
                Some(was) => out.push(change(
                    Code::RuleChanged,
                    format!("its rule `{}` became `{}`", old_texts[i], new_texts[i]),
                    Some(was),
                )),
                None => out.push(change(
                    Code::RuleAdded,
                    format!("a rule is added, `{}`", new_texts[i]),
                    None,
                )),
            },
        }
    }
}

/// A schema path as findings show it: `.spec.size`, `.` for the root.
fn shown(path: &str) -> String {
    if path.is_empty() {
        ".".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn changes(old: Value, new: Value) -> Vec<(Code, String, String)> {
        let mut out = Vec::new();
        node("", &old, &new, &mut out);
        out.into_iter()
            .map(|c| (c.code, c.path, c.message))
            .collect()
    }

    #[test]
    fn steps_of_a_multiple_of_and_exclusive_bounds() {
        let n = |m: Value| json!({"type": "number", "multipleOf": m});
        // Every multiple of 10 is one of 5: looser.
        assert!(changes(n(json!(10)), n(json!(5))).is_empty());
        assert_eq!(
            changes(n(json!(5)), n(json!(10)))[0].0,
            Code::BoundTightened
        );
        let x = |e: bool| json!({"type": "integer", "maximum": 5, "exclusiveMaximum": e});
        assert_eq!(
            changes(x(false), x(true))[0].2,
            "its bound became exclusive (exclusiveMaximum)"
        );
        assert!(changes(x(true), x(false)).is_empty());
    }

    #[test]
    fn nested_nodes_are_named_by_path_and_a_missing_merge_type_is_its_default() {
        let list = |t: Option<&str>| {
            let mut items = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            if t.is_some() {
                items["properties"]["name"]["maxLength"] = json!(3);
            }
            let mut l = json!({"type": "array", "items": items});
            if let Some(t) = t {
                l["x-kubernetes-list-type"] = json!(t);
            }
            json!({"type": "object", "properties": {"parts": l, "labels": {"type": "object", "additionalProperties": {"type": "string"}}}})
        };
        // An atomic list written out is the default: only the new bound counts.
        assert_eq!(
            changes(list(None), list(Some("atomic"))),
            [(
                Code::BoundTightened,
                ".parts[*].name".to_owned(),
                "its maxLength tightened from none to 3".to_owned()
            )]
        );
        let mut map = list(None);
        map["properties"]["labels"]["additionalProperties"] = json!({"type": "integer"});
        assert_eq!(changes(list(None), map)[0].1, ".labels.*");
    }

    #[test]
    fn rules_are_matched_by_text_and_a_message_is_not_a_change() {
        let ruled = |rules: Value| json!({"type": "object", "x-kubernetes-validations": rules});
        let a = json!({"rule": "self.a > 0", "message": "a"});
        let b = json!({"rule": "self.b > 0"});
        assert!(
            changes(
                ruled(json!([a])),
                ruled(json!([{"rule": "self.a > 0", "message": "other"}]))
            )
            .is_empty()
        );
        assert_eq!(
            changes(ruled(json!([a])), ruled(json!([a, b])))[0].0,
            Code::RuleAdded
        );
        assert_eq!(
            changes(ruled(json!([a])), ruled(json!([b])))[0].0,
            Code::RuleChanged
        );
        assert!(
            changes(ruled(json!([a, b])), ruled(json!([b]))).is_empty(),
            "a rule removed loosens"
        );
        let reasoned = json!({"rule": "self.a > 0", "reason": "FieldValueForbidden"});
        assert_eq!(
            changes(ruled(json!([a])), ruled(json!([reasoned])))[0].0,
            Code::RuleChanged
        );
    }
}
