//! Evaluation errors in kube-apiserver's words (cel-go's), not the `cel` crate's: what a
//! user reads in a denied write is then the same on the in-memory server as on a
//! cluster (`no such key: enabled`, `division by zero`, `integer overflow`).

use kube_cel::cel::{ExecutionError, Value};

/// kube-cel's texts for errors kube-apiserver words otherwise.
const LIBRARY_TEXTS: &[(&str, &str)] = &[
    ("cannot call min on empty list", "min called on empty list"),
    ("cannot call max on empty list", "max called on empty list"),
];

/// The text kube-apiserver gives `error`.
pub(super) fn text(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(_, Value::UInt(_), _) => "unsigned integer overflow".to_owned(),
        ExecutionError::Overflow(_, Value::Int(_), _) => "integer overflow".to_owned(),
        ExecutionError::Overflow(_, Value::Duration(_), _) => "duration overflow".to_owned(),
        ExecutionError::Overflow(..) => "timestamp overflow".to_owned(),
        ExecutionError::IndexOutOfBounds(Value::Int(i)) => format!("index out of bounds: {i}"),
        ExecutionError::UndeclaredReference(name) => {
            format!("undeclared reference to '{name}'")
        }
        ExecutionError::FunctionError { message, .. } => LIBRARY_TEXTS
            .iter()
            .find(|(theirs, _)| theirs == message)
            .map_or_else(|| message.clone(), |(_, ours)| (*ours).to_owned()),
        _ => "no such overload".to_owned(),
    }
}
