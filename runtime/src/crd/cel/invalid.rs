//! Data of another shape than its schema, refused where a rule reads it, as the
//! apiserver's conversion of an object for CEL (`UnstructuredToVal`) refuses it. A write
//! never gets this far with such data (its schema is validated first); a direct check of
//! the rules can.

use serde_json::Value;

use super::compile::{Node, Shape};

/// The apiserver's words for the first value a rule reads (`reads`, the checker's paths
/// from `self` or `oldSelf`) whose data its schema refuses, if any.
pub(super) fn first_refused(
    reads: &[Vec<String>],
    node: &Node,
    value: &Value,
    old: Option<&Value>,
) -> Option<String> {
    reads.iter().find_map(|path| {
        let (first, steps) = path.split_first()?;
        let value = match first.as_str() {
            "oldSelf" => old?,
            _ => value,
        };
        refused_on(node, value, steps)
    })
}

/// The first refusal of the values along `steps` below `value` (every item or map value
/// where a step is `@items` or `@values`).
fn refused_on(node: &Node, value: &Value, steps: &[String]) -> Option<String> {
    if let Some(refusal) = refused(node, value) {
        return Some(refusal);
    }
    let (step, rest) = steps.split_first()?;
    match (&node.shape, value, step.as_str()) {
        (Shape::Object { properties, .. }, Value::Object(fields), name) => {
            let (json, property) = properties
                .iter()
                .find(|(json, p)| p.escaped.as_deref() == Some(name) || json.as_str() == name)?;
            // A property set to null is no value: the apiserver prunes it first.
            let field = fields.get(json).filter(|f| !f.is_null())?;
            refused_on(&property.node, field, rest)
        }
        (Shape::Map(values), Value::Object(fields), "@values") => fields
            .values()
            .find_map(|field| refused_on(values, field, rest)),
        (Shape::List { items, .. }, Value::Array(list), "@items") => {
            list.iter().find_map(|item| refused_on(items, item, rest))
        }
        _ => None,
    }
}

/// What the apiserver says of `value` under `node` when it is not of the schema's type.
fn refused(node: &Node, value: &Value) -> Option<String> {
    let expected = match (value, node.int_or_string, node.type_name.as_str()) {
        (Value::Null, ..) if node.nullable => return None,
        (Value::Null, ..) => {
            return Some("invalid data, got null for schema with nullable=false".to_owned());
        }
        (Value::String(_), true, _) => return None,
        (Value::Number(n), true, _) if n.is_i64() => return None,
        (_, true, _) => {
            return Some(
                "invalid data, expected XIntOrString value to be either a string or integer"
                    .to_owned(),
            );
        }
        (Value::Object(_), _, "object")
        | (Value::Array(_), _, "array")
        | (Value::String(_), _, "string")
        | (Value::Number(_), _, "number")
        | (Value::Bool(_), _, "boolean") => return None,
        (Value::Number(n), _, "integer") if n.is_i64() => return None,
        (_, _, "object") => {
            return Some(
                "invalid data, expected a map for the provided schema with type=object".to_owned(),
            );
        }
        (_, _, "array") => {
            return Some(
                "invalid data, expected an array for the provided schema with type=array"
                    .to_owned(),
            );
        }
        (_, _, "string") => "string",
        (_, _, "number") => "float",
        (_, _, "integer") => "int",
        (_, _, "boolean") => "bool",
        _ => return None,
    };
    Some(format!(
        "invalid data, expected {expected}, got {}",
        go_type(value)
    ))
}

/// The Go type a JSON value decodes to in the apiserver (`%T`).
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}
