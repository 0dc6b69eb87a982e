//! Errors as the apiserver reports them: a `Status` object with a code and a reason.

use serde_json::{Value, json};

/// What a request failed with; rendered as the apiserver's `Status` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status code.
    pub code: u16,
    /// The apiserver's reason (`NotFound`, `AlreadyExists`, …).
    pub reason: &'static str,
    /// The message, worded as the apiserver words it.
    pub message: String,
    /// The object it is about and its causes (boxed: most failures have none, and
    /// every result of the server carries an `ApiError` in its size).
    pub details: Option<Box<Details>>,
}

/// A Status' `details`.
#[derive(Debug, Clone, PartialEq)]
pub struct Details {
    /// `details.name`.
    pub name: String,
    /// `details.group`.
    pub group: String,
    /// `details.kind`: the resource plural, as the apiserver writes it.
    pub kind: String,
    /// `details.causes`: what each field error was.
    pub causes: Vec<Cause>,
}

/// One of a Status' `details.causes`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// `FieldValueInvalid`, `FieldValueRequired`, …
    pub reason: &'static str,
    /// The error without its field (`Invalid value: 3: must be even`).
    pub message: String,
    /// The field (`spec.replicas`).
    pub field: String,
}

impl ApiError {
    /// A failure with `code`, `reason` and `message`.
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    /// A 400 `BadRequest`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    /// A 422 `Invalid` for field errors of the object `name` (of `kind` in `group`,
    /// served as `plural`), as apimachinery's `NewInvalid`: one cause each, the message
    /// listing them (bracketed when there are several).
    pub fn invalid(
        (kind, group, plural): (&str, &str, &str),
        name: &str,
        errors: &[crate::field::Error],
    ) -> Self {
        let group_kind = match group.is_empty() {
            true => kind.to_owned(),
            false => format!("{kind}.{group}"),
        };
        let why = crate::field::aggregate(errors);
        let causes = errors
            .iter()
            .map(|e| Cause {
                reason: e.kind.reason(),
                message: e.body(),
                field: e.field.to_string(),
            })
            .collect();
        ApiError::new(
            422,
            "Invalid",
            format!("{group_kind} \"{name}\" is invalid: {why}"),
        )
        .with_details(name, group, plural)
        .with_causes(causes)
    }

    /// Names the object the failure is about, as the apiserver's `details` do.
    pub fn with_details(mut self, name: &str, group: &str, plural: &str) -> Self {
        self.details = Some(Box::new(Details {
            name: name.to_owned(),
            group: group.to_owned(),
            kind: plural.to_owned(),
            causes: Vec::new(),
        }));
        self
    }

    /// Adds `details.causes` (to a failure that names its object).
    pub fn with_causes(mut self, causes: Vec<Cause>) -> Self {
        if let Some(details) = &mut self.details {
            details.causes = causes;
        }
        self
    }

    /// The failure as a `Status` object, as the apiserver answers with it.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            status["details"] = json!({"name": d.name, "group": d.group, "kind": d.kind});
            if !d.causes.is_empty() {
                status["details"]["causes"] = d
                    .causes
                    .iter()
                    .map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field}))
                    .collect();
            }
        }
        status
    }
}
