//! The `/scale` subresource: an `autoscaling/v1` `Scale` view of an object, read and
//! written through the paths a CRD's `subresources.scale` names, as the apiserver does
//! for custom resources.

use serde_json::{Value, json};

/// Where an object keeps what its `Scale` shows, as dotted paths (`.spec.replicas`).
#[derive(Clone, Debug)]
pub(crate) struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.trim_start_matches('.').split('.')
}

fn at<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    segments(path).try_fold(object, |value, segment| value.get(segment))
}

/// The object's `Scale`: replicas wanted and seen (0 where unset, as the apiserver
/// reports them) and the label selector when the object has one.
pub(crate) fn view(paths: &ScalePaths, object: &Value) -> Value {
    let replicas = |path: &str| at(object, path).and_then(Value::as_i64).unwrap_or(0);
    let mut status = json!({"replicas": replicas(&paths.status_replicas)});
    if let Some(selector) = paths
        .label_selector
        .as_deref()
        .and_then(|path| at(object, path))
        .filter(|s| s.is_string())
    {
        status["selector"] = selector.clone();
    }
    let mut metadata = json!({});
    for field in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(value) = object["metadata"].get(field) {
            metadata[field] = value.clone();
        }
    }
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": metadata,
        "spec": {"replicas": replicas(&paths.spec_replicas)},
        "status": status,
    })
}

/// What the apiserver says of the spec replicas path of a custom resource on every
/// write: an accessor error where it holds no integer, a bound where it holds one out
/// of range (apiextensions-apiserver's scale validation, in its words).
pub(crate) fn spec_errors(paths: &ScalePaths, object: &Value) -> Vec<crate::field::Error> {
    let field = crate::field::Path::new(&paths.spec_replicas);
    let Some(value) = at(object, &paths.spec_replicas) else {
        return Vec::new();
    };
    let why = match value.as_i64() {
        Some(n) if n < 0 => "should be a non-negative integer".to_owned(),
        Some(n) if n > i64::from(i32::MAX) => {
            format!("should be less than or equal to {}", i32::MAX)
        }
        Some(_) => return Vec::new(),
        // Go's `%v` and `%T` of the decoded JSON value.
        None => {
            let (shown, go_type) = match value {
                Value::String(s) => (s.clone(), "string"),
                Value::Bool(b) => (b.to_string(), "bool"),
                Value::Number(n) => (n.to_string(), "float64"),
                Value::Array(_) => (value.to_string(), "[]interface {}"),
                Value::Object(_) => (value.to_string(), "map[string]interface {}"),
                Value::Null => ("<nil>".to_owned(), "<nil>"),
            };
            format!(
                "{} accessor error: {shown} is of the type {go_type}, expected int64",
                paths.spec_replicas
            )
        }
    };
    let replicas = value.as_i64().unwrap_or(0);
    vec![crate::field::invalid(&field, replicas, &why)]
}

/// Writes `replicas` at the spec replicas path, creating the objects on the way.
pub(crate) fn set_replicas(paths: &ScalePaths, object: &mut Value, replicas: i64) {
    let mut target = object;
    for segment in segments(&paths.spec_replicas) {
        if !target.is_object() {
            *target = json!({});
        }
        target = &mut target[segment];
    }
    *target = json!(replicas);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> ScalePaths {
        ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".status.selector".into()),
        }
    }

    #[test]
    fn the_view_reads_the_paths_and_reports_zero_where_unset() {
        let object = json!({
            "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7", "labels": {"x": "y"}},
            "spec": {"replicas": 3},
            "status": {"selector": "app=a"}
        });
        assert_eq!(
            view(&paths(), &object),
            json!({
                "apiVersion": "autoscaling/v1", "kind": "Scale",
                "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7"},
                "spec": {"replicas": 3},
                "status": {"replicas": 0, "selector": "app=a"}
            })
        );
    }

    #[test]
    fn setting_replicas_creates_what_is_missing() {
        let mut object = json!({"metadata": {"name": "a"}, "spec": "not an object"});
        set_replicas(&paths(), &mut object, 4);
        assert_eq!(object["spec"], json!({"replicas": 4}));
    }
}
