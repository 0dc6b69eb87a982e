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
    /// `details.name`, `details.group`, `details.kind` (the resource plural, as the
    /// apiserver writes it).
    pub details: Option<(String, String, String)>,
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

    /// Names the object the failure is about, as the apiserver's `details` do.
    pub fn with_details(mut self, name: &str, group: &str, plural: &str) -> Self {
        self.details = Some((name.to_owned(), group.to_owned(), plural.to_owned()));
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
        if let Some((name, group, kind)) = &self.details {
            status["details"] = json!({"name": name, "group": group, "kind": kind});
        }
        status
    }
}
