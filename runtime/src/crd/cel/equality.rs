//! CEL's equality as cel-go evaluates `==` on the apiserver's values: numbers by value
//! across int, uint and double; lists and maps element by element; optionals by their
//! values; nothing equal to a value of another type. (A set or map list of the object
//! compares by its list type: [`super::lists`].)

use kube_cel::cel::Value;
use kube_cel::cel::objects::OptionalValue;

/// Whether `a == b`.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| equal(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.map.len() == y.map.len()
                && x.map
                    .iter()
                    .all(|(k, v)| y.map.get(k).is_some_and(|w| equal(v, w)))
        }
        (Value::Opaque(x), Value::Opaque(y)) => match (optional(a), optional(b)) {
            (Some(x), Some(y)) => match (x.value(), y.value()) {
                (Some(x), Some(y)) => equal(x, y),
                (None, None) => true,
                _ => false,
            },
            (None, None) => x.opaque_eq(y.as_ref()),
            _ => false,
        },
        _ => a == b,
    }
}

/// The value of an optional, if `value` is one.
pub(super) fn optional(value: &Value) -> Option<&OptionalValue> {
    <&OptionalValue>::try_from(value).ok()
}
