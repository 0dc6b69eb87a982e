//! Every validation of a schema node, in the words the reference shows: bounds,
//! patterns, formats, enums, list and map types, immutability and one-of groups. The
//! CEL rules themselves are shown apart, with their messages.

use serde_json::Value;

/// The validations of `node`, and of its items' or values' scalars (`each item …`).
pub fn of(node: &Value) -> Vec<String> {
    let mut out = Vec::new();
    own(node, &mut out);
    for (key, each) in [
        ("items", "each item"),
        ("additionalProperties", "each value"),
    ] {
        let inner = &node[key];
        // An object's validations are its own fields' rows.
        if inner.is_object() && inner.get("properties").is_none() {
            let mut words = Vec::new();
            own(inner, &mut words);
            out.extend(words.into_iter().map(|w| format!("{each}: {w}")));
        }
    }
    out
}

fn own(node: &Value, out: &mut Vec<String>) {
    let number = |key: &str| {
        node.get(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    let exclusive = |key: &str| node[key] == true;
    if let Some(min) = number("minimum") {
        out.push(match exclusive("exclusiveMinimum") {
            true => format!("greater than {min}"),
            false => format!("at least {min}"),
        });
    }
    if let Some(max) = number("maximum") {
        out.push(match exclusive("exclusiveMaximum") {
            true => format!("less than {max}"),
            false => format!("at most {max}"),
        });
    }
    if let Some(n) = number("multipleOf") {
        out.push(format!("a multiple of {n}"));
    }
    for (min, max, what) in [
        ("minLength", "maxLength", "character"),
        ("minItems", "maxItems", "item"),
        ("minProperties", "maxProperties", "entry"),
    ] {
        out.extend(count(node[min].as_u64(), node[max].as_u64(), what));
    }
    if let Some(pattern) = node["pattern"].as_str() {
        out.push(format!("matches `{pattern}`"));
    }
    // A number's format is its width, which its type shows.
    if let Some(format) = node["format"].as_str()
        && node["type"] == "string"
    {
        out.push(format!("format `{format}`"));
    }
    if let Some(values) = node["enum"].as_array() {
        let values: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        out.push(format!("one of {}", values.join(", ")));
    }
    if node["uniqueItems"] == true {
        out.push("items unique".to_owned());
    }
    match node["x-kubernetes-list-type"].as_str() {
        Some("set") => out.push("a set: items unique, merged by value".to_owned()),
        Some("map") => {
            let keys: Vec<String> = node["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|k| format!("`{k}`"))
                .collect();
            out.push(format!("a map keyed by {}: merged by key", keys.join(", ")));
        }
        Some("atomic") => out.push("atomic: replaced as a whole".to_owned()),
        _ => {}
    }
    match node["x-kubernetes-map-type"].as_str() {
        Some("atomic") => out.push("atomic: replaced as a whole".to_owned()),
        Some("granular") => out.push("granular: merged by key".to_owned()),
        _ => {}
    }
    if node["nullable"] == true {
        out.push("may be null".to_owned());
    }
    if node["x-kubernetes-preserve-unknown-fields"] == true {
        out.push("keeps fields the schema does not name".to_owned());
    }
    if node["x-kubernetes-embedded-resource"] == true {
        out.push("an embedded object (apiVersion, kind, metadata)".to_owned());
    }
    for rule in node["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let rule = rule["rule"].as_str().unwrap_or_default().replace(' ', "");
        if rule == "self==oldSelf" {
            out.push("immutable: cannot change once set".to_owned());
        }
    }
    for (key, words) in [("oneOf", "exactly one of"), ("anyOf", "at least one of")] {
        let groups: Vec<String> = node[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|branch| branch["required"].as_array())
            .map(|names| {
                let names: Vec<String> = names.iter().map(|n| format!("`{}`", plain(n))).collect();
                names.join(" and ")
            })
            .collect();
        if !groups.is_empty() {
            out.push(format!("{words} {}", groups.join(", ")));
        }
    }
}

/// A count's bounds as a person says them: "at least 1 character", "exactly 3 items".
fn count(min: Option<u64>, max: Option<u64>, what: &str) -> Vec<String> {
    let many = |n: u64| match (n, what) {
        (1, _) => format!("{n} {what}"),
        (_, "entry") => format!("{n} entries"),
        _ => format!("{n} {what}s"),
    };
    match (min, max) {
        (Some(min), Some(max)) if min == max => vec![format!("exactly {}", many(min))],
        (min, max) => min
            .map(|n| format!("at least {}", many(n)))
            .into_iter()
            .chain(max.map(|n| format!("at most {}", many(n))))
            .collect(),
    }
}

/// A JSON value as text, strings without their quotes.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::of;

    #[test]
    fn each_validation_is_said_in_words() {
        let node = json!({
            "type": "array", "maxItems": 4, "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "port"],
            "items": {"type": "string", "maxLength": 63, "pattern": "^[a-z]+$"},
            "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "frozen"}],
        });
        assert_eq!(
            of(&node),
            [
                "at most 4 items",
                "a map keyed by `name`, `port`: merged by key",
                "immutable: cannot change once set",
                "each item: at most 63 characters",
                "each item: matches `^[a-z]+$`",
            ]
        );
        let bounds =
            json!({"minimum": 1, "maximum": 10, "exclusiveMaximum": true, "enum": ["a", 2]});
        assert_eq!(
            of(&bounds),
            ["at least 1", "less than 10", "one of `a`, `2`"]
        );
        let counts = json!({"minLength": 1, "maxLength": 1, "minItems": 1, "maxItems": 2,
            "minProperties": 0, "maxProperties": 1});
        assert_eq!(
            of(&counts),
            [
                "exactly 1 character",
                "at least 1 item",
                "at most 2 items",
                "at least 0 entries",
                "at most 1 entry"
            ]
        );
        let one_of = json!({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
        assert_eq!(of(&one_of), ["exactly one of `a`, `b`"]);
    }
}
