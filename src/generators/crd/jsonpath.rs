//! The JSONPaths of printer columns and selectable fields, followed through the schema
//! the CRD version has: the apiserver refuses a selectable field that names no string,
//! integer or boolean field outside a list, and kubectl shows nothing in a column whose
//! path names no field (a Kubernetes type's field the chosen version lacks, say).

use serde_json::Value;

/// Where a path leads in a schema.
#[derive(Debug, PartialEq)]
pub enum Resolved<'a> {
    /// To this field's schema; `true` when the path goes through a list.
    Field(&'a Value, bool),
    /// Past what the schema says (an object's metadata, preserved unknown fields).
    Open,
    /// Nowhere: the schema has no field of this name there.
    Missing(String),
    /// A JSONPath beyond dotted names and list indices, which is not followed.
    Unchecked,
}

/// Follows `path` (`.spec.replicas`, `.status.conditions[0].type`) from `root`.
pub fn resolve<'a>(root: &'a Value, path: &str) -> Resolved<'a> {
    let Some(rest) = path.strip_prefix('.') else {
        return Resolved::Unchecked;
    };
    let (mut node, mut through_list) = (root, false);
    for (depth, segment) in rest.split('.').enumerate() {
        let (name, indices) = match segment.split_once('[') {
            None => (segment, Vec::new()),
            Some((name, rest)) => match rest.strip_suffix(']') {
                Some(rest) => (name, rest.split("][").collect()),
                None => return Resolved::Unchecked,
            },
        };
        let plain_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let plain_indices = indices
            .iter()
            .all(|i| *i == "*" || (!i.is_empty() && i.chars().all(|c| c.is_ascii_digit())));
        if !plain_name || !plain_indices {
            return Resolved::Unchecked;
        }
        if (depth == 0 && name == "metadata")
            || node["x-kubernetes-preserve-unknown-fields"] == true
            || node["x-kubernetes-int-or-string"] == true
        {
            return Resolved::Open;
        }
        node = match (node["properties"].get(name), &node["additionalProperties"]) {
            (Some(field), _) => field,
            (None, additional @ Value::Object(_)) => additional,
            (None, Value::Bool(true)) => return Resolved::Open,
            _ => return Resolved::Missing(name.to_owned()),
        };
        for _ in &indices {
            match node.get("items") {
                Some(items) => (node, through_list) = (items, true),
                None => return Resolved::Missing(format!("{name}[…]")),
            }
        }
    }
    Resolved::Field(node, through_list)
}

/// Checks the printer columns' and selectable fields' paths of `kind` against `schema`,
/// its CRD's for `version`, built for Kubernetes `kube`.
pub fn check(
    kind: &crate::model::Kind,
    schema: &Value,
    version: &str,
    kube: crate::known::KubeVersion,
    diags: &mut crate::diag::Diagnostics,
) {
    use crate::diag::{Code, Diagnostic};
    use crate::markers::{PRINT_COLUMN, SELECTABLE_FIELD};
    // Read as the CRD's `jsonPath` is written from the marker.
    let path_of = |m: &crate::markers::Marker| {
        super::args(&m.value)
            .get("JSONPath")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let nowhere = |path: &str, missing: &str| {
        format!(
            "`{path}` names no field of `{}` in {version}: its schema, for Kubernetes {kube}, has no `{missing}` there",
            kind.name
        )
    };
    const HINT: &str = "name a field the schema has; a field of a Kubernetes type may be new in a later version than the one generated for (--kube-version, the k8s-openapi feature the crate builds with)";
    for marker in PRINT_COLUMN.all(&kind.markers) {
        let Some(path) = path_of(marker) else {
            continue;
        };
        if let Resolved::Missing(missing) = resolve(schema, &path) {
            diags.push(
                Diagnostic::warning(Code::BadMarkerArgument, nowhere(&path, &missing))
                    .at(&kind.file, marker.pos)
                    .hint(format!("kubectl would show nothing in this column; {HINT}")),
            );
        }
    }
    for marker in SELECTABLE_FIELD.all(&kind.markers) {
        let Some(path) = path_of(marker) else {
            continue;
        };
        const SCALAR: &str = "select by a string, integer or boolean field reached by field names alone: the apiserver takes no other";
        let problem = match resolve(schema, &path) {
            Resolved::Missing(missing) => Some((nowhere(&path, &missing), HINT)),
            Resolved::Field(_, true) => Some((
                format!("`{path}` is inside a list, which the apiserver does not select by"),
                SCALAR,
            )),
            Resolved::Field(field, false)
                if !matches!(
                    field["type"].as_str(),
                    Some("string" | "integer" | "boolean")
                ) =>
            {
                Some((
                    format!(
                        "`{path}` is not a string, integer or boolean, which the apiserver selects by"
                    ),
                    SCALAR,
                ))
            }
            _ => None,
        };
        if let Some((problem, hint)) = problem {
            diags.push(
                Diagnostic::error(Code::BadMarkerArgument, problem)
                    .at(&kind.file, marker.pos)
                    .hint(hint),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_are_followed_through_properties_maps_and_lists() {
        let root = json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "any": {"x-kubernetes-preserve-unknown-fields": true},
            }},
            "status": {"type": "object", "properties": {
                "conditions": {"type": "array", "items": {"type": "object", "properties": {
                    "type": {"type": "string"},
                }}},
            }},
        }});
        let replicas = &root["properties"]["spec"]["properties"]["replicas"];
        assert_eq!(
            resolve(&root, ".spec.replicas"),
            Resolved::Field(replicas, false)
        );
        assert!(
            matches!(resolve(&root, ".spec.labels.app"), Resolved::Field(s, false) if s["type"] == "string")
        );
        assert!(
            matches!(resolve(&root, ".status.conditions[0].type"), Resolved::Field(s, true) if s["type"] == "string")
        );
        assert_eq!(resolve(&root, ".metadata.name"), Resolved::Open);
        assert_eq!(resolve(&root, ".spec.any.thing"), Resolved::Open);
        assert_eq!(
            resolve(&root, ".spec.replics"),
            Resolved::Missing("replics".into())
        );
        assert_eq!(
            resolve(&root, ".spec.replicas[0]"),
            Resolved::Missing("replicas[…]".into())
        );
        assert_eq!(
            resolve(&root, ".status.conditions[?(@.type==\"Ready\")].status"),
            Resolved::Unchecked
        );
        assert_eq!(resolve(&root, "spec"), Resolved::Unchecked);
    }
}
