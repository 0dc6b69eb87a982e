//! Evaluation errors in kube-apiserver's words (cel-go's), not the `cel` crate's: what a
//! user reads in a denied write is then the same on the in-memory server as on a
//! cluster (`no such key: enabled`, `division by zero`, `integer overflow`).

use kube_cel::cel::{ExecutionError, Value};

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
        ExecutionError::FunctionError { message, .. } => message.clone(),
        _ => "no such overload".to_owned(),
    }
}
