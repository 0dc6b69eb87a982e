//! Field errors, as Go operators write them with `k8s.io/apimachinery/pkg/util/validation/field`
//! and `apierrors.NewInvalid`: a path into the object and what is wrong there. A
//! validating webhook denies with a list of them (`webhook::Denial::invalid`), and
//! `crd::Validator` (the `crd` feature) answers with them: the apiserver's 422 `Invalid`
//! status, its `details.causes` naming each field, which kubectl prints line by line.
//!
//! ```
//! use crdgen_runtime::field::{self, Path};
//! let spec = Path::new("spec");
//! let errors = vec![
//!     field::invalid(&spec.child("schedule"), "every day", "not a cron expression"),
//!     field::required(&spec.child("jobTemplate"), ""),
//! ];
//! assert_eq!(
//!     errors[0].to_string(),
//!     r#"spec.schedule: Invalid value: "every day": not a cron expression"#
//! );
//! ```

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// A field's path: `spec.containers[0].image`, `metadata.labels[app]`; the object
/// itself is [`Path::root`], written `<nil>` as Go writes its nil path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path(String);

impl Path {
    /// The path of a top-level field: `spec`.
    pub fn new(root: &str) -> Path {
        Path(root.to_owned())
    }

    /// The object itself: its children are `spec`, `metadata`.
    pub fn root() -> Path {
        Path(String::new())
    }

    /// `spec` → `spec.schedule`.
    #[must_use]
    pub fn child(&self, name: &str) -> Path {
        match self.0.is_empty() {
            true => Path(name.to_owned()),
            false => Path(format!("{}.{name}", self.0)),
        }
    }

    /// `spec.containers` → `spec.containers[0]`.
    #[must_use]
    pub fn index(&self, index: usize) -> Path {
        Path(format!("{}[{index}]", self.0))
    }

    /// `path` taken below this one: `spec.default` and `a[0]` → `spec.default.a[0]`,
    /// the root → `spec.default`.
    #[must_use]
    pub fn join(&self, path: &Path) -> Path {
        match (
            self.0.is_empty(),
            path.0.is_empty(),
            path.0.starts_with('['),
        ) {
            (_, true, _) => self.clone(),
            (true, false, _) => path.clone(),
            (false, false, true) => Path(format!("{}{}", self.0, path.0)),
            (false, false, false) => Path(format!("{}.{}", self.0, path.0)),
        }
    }

    /// `metadata.labels` → `metadata.labels[app]`.
    #[must_use]
    pub fn key(&self, key: &str) -> Path {
        Path(format!("{}[{key}]", self.0))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.is_empty() {
            true => f.write_str("<nil>"),
            false => f.write_str(&self.0),
        }
    }
}

/// What is wrong with a field: Go's `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// A required field is missing.
    Required,
    /// A field's value is malformed or out of range.
    Invalid,
    /// A field's value is not of the schema's type.
    TypeInvalid,
    /// A field may not be set (here, now, or by this user).
    Forbidden,
    /// A value appears twice where it must be unique.
    Duplicate,
    /// A value is not one of those supported.
    NotSupported,
    /// A value is longer than allowed.
    TooLong,
    /// A list has more items than allowed.
    TooMany,
    /// A value refers to something that does not exist.
    NotFound,
    /// The check itself failed.
    Internal,
}

impl ErrorType {
    /// The reason of its status cause (`FieldValueRequired`).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Internal => "InternalError",
        }
    }

    fn words(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::NotFound => "Not found",
            ErrorType::Internal => "Internal error",
        }
    }

    /// Whether the message shows the value, as Go's `ErrorBody` does.
    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        )
    }

    /// The type a CRD validation rule's `reason` names (`FieldValueForbidden`); none, or
    /// one the apiserver does not know, is `Invalid`.
    pub fn from_reason(reason: Option<&str>) -> ErrorType {
        match reason {
            Some("FieldValueForbidden") => ErrorType::Forbidden,
            Some("FieldValueRequired") => ErrorType::Required,
            Some("FieldValueDuplicate") => ErrorType::Duplicate,
            _ => ErrorType::Invalid,
        }
    }
}

/// One field error.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// What is wrong.
    pub kind: ErrorType,
    /// Where.
    pub field: Path,
    /// The offending value; `None` when none is shown (as for objects and lists a CEL
    /// rule refuses).
    pub value: Option<Value>,
    /// More about it.
    pub detail: String,
}

impl Error {
    /// The message without the field: `Invalid value: "x": not a cron expression`.
    pub fn body(&self) -> String {
        let mut body = self.kind.words().to_owned();
        if let Some(value) = self.value.as_ref().filter(|_| self.kind.shows_value()) {
            body.push_str(": ");
            body.push_str(&go_value(value));
        }
        if !self.detail.is_empty() {
            body.push_str(&format!(": {}", self.detail));
        }
        body
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// A value as apimachinery prints it: numbers and booleans as they are, strings quoted,
/// anything else as JSON.
fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The errors a validator found.
pub type ErrorList = Vec<Error>;

/// The errors as one message, as apimachinery's `ErrorList.ToAggregate()` writes them:
/// one error as it is, several bracketed and comma-separated, each message once.
pub fn aggregate(errors: &[Error]) -> String {
    let mut messages: Vec<String> = Vec::with_capacity(errors.len());
    for error in errors {
        let message = error.to_string();
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
    match messages.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

fn error(kind: ErrorType, field: &Path, value: Option<Value>, detail: &str) -> Error {
    Error {
        kind,
        field: field.clone(),
        value,
        detail: detail.to_owned(),
    }
}

fn json(value: impl Serialize) -> Option<Value> {
    Some(serde_json::to_value(value).unwrap_or(Value::Null))
}

/// `field` is required and missing.
pub fn required(field: &Path, detail: &str) -> Error {
    error(ErrorType::Required, field, None, detail)
}

/// `field`'s `value` is invalid: `detail` says why.
pub fn invalid(field: &Path, value: impl Serialize, detail: &str) -> Error {
    error(ErrorType::Invalid, field, json(value), detail)
}

/// `field` may not be set: `detail` says why.
pub fn forbidden(field: &Path, detail: &str) -> Error {
    error(ErrorType::Forbidden, field, None, detail)
}

/// `value` appears twice in `field`.
pub fn duplicate(field: &Path, value: impl Serialize) -> Error {
    error(ErrorType::Duplicate, field, json(value), "")
}

/// `value` of `field` refers to nothing.
pub fn not_found(field: &Path, value: impl Serialize) -> Error {
    error(ErrorType::NotFound, field, json(value), "")
}

/// `Unsupported value: "x": supported values: "a", "b"`.
pub fn not_supported(field: &Path, value: impl Serialize, supported: &[&str]) -> Error {
    let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    let detail = format!("supported values: {}", quoted.join(", "));
    error(ErrorType::NotSupported, field, json(value), &detail)
}

/// `field` is longer than `max`.
pub fn too_long(field: &Path, max: usize) -> Error {
    let detail = format!("may not be more than {max} bytes");
    error(ErrorType::TooLong, field, None, &detail)
}

/// `field` has `actual` items, more than `max` ("at most 1 item", as apimachinery says).
pub fn too_many(field: &Path, actual: usize, max: usize) -> Error {
    let items = if max == 1 { "item" } else { "items" };
    let detail = format!("must have at most {max} {items}");
    error(ErrorType::TooMany, field, json(actual), &detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_the_apiservers() {
        let spec = Path::new("spec");
        let cases = [
            (
                required(&spec.child("schedule"), ""),
                "spec.schedule: Required value",
            ),
            (
                invalid(
                    &spec.child("replicas"),
                    -1,
                    "must be greater than or equal to 0",
                ),
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                not_supported(&spec.child("policy"), "Sometimes", &["Allow", "Forbid"]),
                r#"spec.policy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid""#,
            ),
            (
                duplicate(&spec.child("containers").index(1).child("name"), "app"),
                r#"spec.containers[1].name: Duplicate value: "app""#,
            ),
            (
                forbidden(
                    &Path::new("metadata").child("labels").key("team"),
                    "set by the operator",
                ),
                "metadata.labels[team]: Forbidden: set by the operator",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(error.to_string(), expected);
        }
    }
}
