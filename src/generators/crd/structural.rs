//! The apiserver's structural-schema rules, checked before a CRD is written: what
//! crdgen builds satisfies them by construction, but markers can break them.

use serde_json::Value;

/// Every rule the schema breaks, each with the JSON path of the offending node.
pub fn violations(root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    node(root, Place::Root, &mut out);
    if let Some(metadata) = root.pointer("/properties/metadata") {
        let allowed = ["name", "generateName"];
        let extra: Vec<&String> = metadata
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.keys()
                    .filter(|k| !allowed.contains(&k.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        if !extra.is_empty() || metadata.get("type").and_then(Value::as_str) != Some("object") {
            out.push("`.metadata`: at the root only `type: object` with name and generateName constraints is allowed".to_owned());
        }
    }
    out
}

/// Where a node is: written out only for a node that breaks a rule, as nearly all
/// nodes break none.
#[derive(Clone, Copy)]
enum Place<'a> {
    Root,
    Property(&'a Place<'a>, &'a str),
    Child(&'a Place<'a>, &'static str),
}

impl std::fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Root => f.write_str("."),
            Place::Property(Place::Root, name) => write!(f, ".{name}"),
            Place::Property(parent, name) => write!(f, "{parent}.{name}"),
            Place::Child(Place::Root, key) => write!(f, "[{key}]"),
            Place::Child(parent, key) => write!(f, "{parent}[{key}]"),
        }
    }
}

fn node(schema: &Value, place: Place<'_>, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("`{place}`: a schema must be an object"));
        return;
    };
    let flag = |key: &str| map.get(key).and_then(Value::as_bool) == Some(true);
    let untyped_ok =
        flag("x-kubernetes-int-or-string") || flag("x-kubernetes-preserve-unknown-fields");
    if !map.contains_key("type") && !untyped_ok {
        out.push(format!(
            "`{place}`: every schema needs a type (or x-kubernetes-preserve-unknown-fields)"
        ));
    }
    if flag("uniqueItems") {
        out.push(format!(
            "`{place}`: the apiserver rejects `uniqueItems: true`"
        ));
    }
    if map.contains_key("properties") && map.contains_key("additionalProperties") {
        out.push(format!(
            "`{place}`: properties and additionalProperties are mutually exclusive"
        ));
    }
    if map.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map")
        && !map.contains_key("x-kubernetes-list-map-keys")
    {
        out.push(format!(
            "`{place}`: a map list needs list map keys (`+listMapKey`)"
        ));
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            node(property, Place::Property(&place, name), out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = map.get(key) {
            node(child, Place::Child(&place, key), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reports_each_rule_with_its_path() {
        let schema = json!({
            "type": "object",
            "properties": {
                "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
                "spec": {"type": "object", "properties": {
                    "any": {},
                    "ok": {"x-kubernetes-int-or-string": true},
                    "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                    "both": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
                }},
            },
        });
        assert_eq!(
            violations(&schema),
            [
                "`.spec.any`: every schema needs a type (or x-kubernetes-preserve-unknown-fields)",
                "`.spec.both`: properties and additionalProperties are mutually exclusive",
                "`.spec.tags`: the apiserver rejects `uniqueItems: true`",
                "`.metadata`: at the root only `type: object` with name and generateName constraints is allowed",
            ]
        );
    }
}
