//! Errors as the apiserver reports them: a `Status` object with a code and a reason.

use serde_json::{Value, json};

/// What a request failed with; rendered as the apiserver's `Status` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    /// `details.name`, `details.group`, `details.kind` (the resource plural, as the
    /// apiserver writes it).
    pub details: Option<(String, String, String)>,
}

impl ApiError {
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    pub fn with_details(mut self, name: &str, group: &str, plural: &str) -> Self {
        self.details = Some((name.to_owned(), group.to_owned(), plural.to_owned()));
        self
    }

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
