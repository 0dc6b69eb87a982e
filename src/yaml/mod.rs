//! The one place crdgen reads or writes YAML. Reading goes through serde_yaml_ng, the
//! maintained fork of the archived serde_yaml. Writing is crdgen's own block emitter
//! (`emit`): it writes what serde_yaml_ng wrote, except that every string a YAML 1.1
//! reader would take for another type is quoted, floats keep a dot and a signed
//! exponent, and U+2028/U+2029 are escaped (kubectl and the apiserver read YAML 1.1, and
//! no maintained Rust YAML writer does this); and it is 2–3 times faster (the bench's
//! 500 CRDs, 13 MB: 104–159 ms against 247–503 ms, one thread).

mod emit;
mod place;
mod scalar;

pub use place::{Step, place};

use serde_json::Value;

/// `value` as a YAML document. Map keys come out in the map's order (serde_json's maps
/// are sorted), which is the canonical order generated CRDs use.
pub fn to_string(value: &Value) -> String {
    emit::document(value)
}

/// The compact JSON of a value (serde_json's) is at most this many times longer than
/// the YAML [`to_string`] writes for it, plus 2 (the outer braces): a scalar's JSON is
/// at most three times its YAML (a lone `\` is written `\` against JSON's `"\\"`, a
/// control character `"\x01"` against `"\u0001"`), and an entry's quotes, colon and
/// comma are fewer bytes than three times its `: ` and line break. So a size limit on
/// the JSON can often be settled from the YAML's length alone.
pub const MAX_JSON_PER_YAML_BYTE: usize = 3;

/// A YAML (or JSON) value, as marker arguments such as `+kubebuilder:default={a: 1}`
/// are written.
pub fn parse(text: &str) -> Result<Value, String> {
    serde_yaml_ng::from_str(text).map_err(|e| e.to_string())
}

/// One YAML document read as `T` (a configuration file), or what is wrong and where.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, DocumentError> {
    serde_yaml_ng::from_str(text).map_err(|e| DocumentError {
        at: e.location().map(|l| (l.line(), l.column())),
        message: e.to_string(),
    })
}

/// A YAML document that did not parse: what is wrong, and where (1-based line and
/// column), when the parser knows.
pub struct DocumentError {
    pub message: String,
    pub at: Option<(usize, usize)>,
}

/// Every document of a YAML stream (`---`-separated), in order; an empty one is `null`.
/// A document that does not parse ends the stream, as it ends a YAML parser's.
pub fn parse_documents(text: &str) -> Vec<Result<Value, DocumentError>> {
    use serde::Deserialize as _;
    let mut out = Vec::new();
    for document in serde_yaml_ng::Deserializer::from_str(text) {
        match Value::deserialize(document) {
            Ok(value) => out.push(Ok(value)),
            Err(e) => {
                let at = e.location().map(|l| (l.line(), l.column()));
                out.push(Err(DocumentError {
                    message: e.to_string(),
                    at,
                }));
                break;
            }
        }
    }
    out
}

/// The line each document of `text` starts on: its first line after a `---` (or the
/// text's start) that is neither blank nor a comment.
pub fn document_lines(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut open = true;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if line.starts_with("---") {
            if open && !starts.is_empty() {
                // A document with nothing in it still counts as one.
                starts.push(n + 1);
            }
            open = true;
        } else if open && !trimmed.is_empty() && !trimmed.starts_with('#') {
            starts.push(n + 1);
            open = false;
        }
    }
    starts
}

#[cfg(test)]
mod tests;
