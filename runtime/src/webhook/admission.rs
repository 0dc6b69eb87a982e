//! Typed admission handlers, as controller-runtime's `CustomDefaulter` and
//! `CustomValidator`: a defaulter changes the object and the JSON patch is computed for
//! it; a validator allows (with warnings) or denies create, update and delete.

use std::future::Future;

use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, Patch, PatchOperation, RemoveOperation};
use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube::core::response::{StatusCause, StatusDetails};
use kube::core::{DynamicObject, Resource};

use super::field;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why an admission request is refused: the message the client sees, the HTTP code of
/// the refusal (403 unless set), and, for an invalid object, the status's reason and
/// details (the fields at fault).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// Why, as the user sees it (`kubectl` prints it).
    pub message: String,
    /// The HTTP code of the refusal (403 unless set).
    pub code: u16,
    /// The machine-readable reason (`FieldValueInvalid`, say); none when empty.
    pub reason: String,
    /// Boxed: a `Result<_, Denial>` stays small (clippy's `result_large_err`).
    pub details: Option<Box<StatusDetails>>,
}

impl Denial {
    /// A 403 `Forbidden` refusal saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Denial {
            message: message.into(),
            code: 403,
            reason: String::new(),
            details: None,
        }
    }

    #[must_use]
    /// The refusal with another HTTP code (and the reason that goes with it).
    pub fn with_code(mut self, code: u16) -> Self {
        self.code = code;
        self
    }

    /// An invalid object, as Go's `apierrors.NewInvalid(groupKind, name, errs)`: 422
    /// `Invalid`, `<Kind>.<group> "<name>" is invalid: <errors>`, each error a cause
    /// naming its field. `K` gives the kind and group.
    pub fn invalid<K: Resource<DynamicType = ()>>(name: &str, errors: &[field::Error]) -> Self {
        let (kind, group) = (K::kind(&()), K::group(&()));
        let qualified = match group.as_ref() {
            "" => kind.to_string(),
            group => format!("{kind}.{group}"),
        };
        let listed = field::aggregate(errors);
        Denial {
            message: format!("{qualified} {name:?} is invalid: {listed}"),
            code: 422,
            reason: "Invalid".into(),
            details: Some(Box::new(StatusDetails {
                name: name.to_owned(),
                group: group.to_string(),
                kind: kind.to_string(),
                causes: errors
                    .iter()
                    .map(|e| StatusCause {
                        reason: e.kind.reason().to_owned(),
                        message: e.body(),
                        field: e.field.to_string(),
                    })
                    .collect(),
                uid: String::new(),
                retry_after_seconds: 0,
            })),
        }
    }
}

/// Warnings a validator gives with an allowed request (`kubectl` prints them).
pub type Warnings = Vec<String>;

/// Sets defaults on objects of kind `K` before the apiserver stores them (a mutating
/// webhook): change `object`; the response's JSON patch is computed from the change.
pub trait Defaulter<K>: Send + Sync + 'static {
    /// Fills in defaults on `object` before it is stored (a mutating webhook).
    fn default(&self, object: &mut K) -> impl Future<Output = Result<(), Denial>> + Send;
}

/// Allows or denies writes of objects of kind `K` (a validating webhook). Each method
/// allows by default.
pub trait Validator<K: Sync>: Send + Sync + 'static {
    /// Checks a new object; warnings go back to the client, a denial refuses it.
    fn validate_create(&self, object: &K) -> impl Future<Output = Result<Warnings, Denial>> + Send {
        let _ = object;
        async { Ok(Warnings::new()) }
    }

    /// Checks a change from `old` to `new`.
    fn validate_update(
        &self,
        old: &K,
        new: &K,
    ) -> impl Future<Output = Result<Warnings, Denial>> + Send {
        let _ = (old, new);
        async { Ok(Warnings::new()) }
    }

    /// Checks a deletion of `old`.
    fn validate_delete(&self, old: &K) -> impl Future<Output = Result<Warnings, Denial>> + Send {
        let _ = old;
        async { Ok(Warnings::new()) }
    }
}

/// Why a review could not be answered at all: a 400 to the caller.
#[derive(Debug)]
pub struct Malformed(pub String);

/// An AdmissionReview, read for a handler of `K`.
pub(super) enum Review<K: Resource> {
    /// Its objects decode as `K`; with the object as sent, for the patch (`K` may not
    /// keep every field it was sent).
    Typed(Box<AdmissionRequest<K>>, Value),
    /// A review whose object does not decode as `K` (a required field left out, which
    /// the apiserver's schema validation, run after mutating webhooks, would name):
    /// answered all the same, never with an error the apiserver cannot show.
    Undecodable(Box<AdmissionRequest<DynamicObject>>, Undecodable),
}

/// Where and why an object does not decode as the handler's type.
pub(super) struct Undecodable {
    /// `spec.schedule`.
    pub field: String,
    pub why: String,
}

impl Undecodable {
    /// As the apiserver words a field error: `spec.schedule: Required value`.
    fn message(&self) -> String {
        match self
            .why
            .strip_prefix("missing field `")
            .and_then(|w| w.split_once('`'))
        {
            Some((name, _)) => format!("{}: Required value", join(&self.field, name)),
            None => format!("{}: Invalid value: {}", self.field, self.why),
        }
    }
}

fn join(path: &str, name: &str) -> String {
    match path {
        "" | "." => name.to_owned(),
        _ => format!("{path}.{name}"),
    }
}

/// Reads an AdmissionReview for a handler of `K`: a 400 only when the body is no
/// AdmissionReview at all.
pub(super) fn request<K>(body: &[u8]) -> Result<Review<K>, Malformed>
where
    K: Resource + DeserializeOwned,
{
    let raw: Value = serde_json::from_slice(body).map_err(|e| Malformed(e.to_string()))?;
    let original = raw
        .pointer("/request/object")
        .cloned()
        .unwrap_or(Value::Null);
    match serde_path_to_error::deserialize::<_, AdmissionReview<K>>(&raw) {
        Ok(review) => {
            let request: AdmissionRequest<K> = review.try_into().map_err(|_| no_request())?;
            Ok(Review::Typed(Box::new(request), original))
        }
        Err(typed) => {
            let review: AdmissionReview<DynamicObject> =
                serde_json::from_value(raw).map_err(|e| Malformed(e.to_string()))?;
            let request: AdmissionRequest<DynamicObject> =
                review.try_into().map_err(|_| no_request())?;
            let path = typed.path().to_string();
            let field = ["request.object.", "request.oldObject."]
                .iter()
                .find_map(|prefix| path.strip_prefix(prefix))
                .unwrap_or(&path)
                .to_owned();
            let why = typed.into_inner().to_string();
            // serde_json's position within the value it read means nothing to a user.
            let why = why.split(" at line ").next().unwrap_or_default().to_owned();
            Ok(Review::Undecodable(
                Box::new(request),
                Undecodable { field, why },
            ))
        }
    }
}

fn no_request() -> Malformed {
    Malformed("the AdmissionReview carries no request".into())
}

/// The answer to a review whose object does not decode: a defaulter lets it through
/// unchanged (the apiserver's own validation then names what is wrong), a validator
/// denies it naming the field (422, as an invalid object).
pub(super) fn undecodable(
    request: &AdmissionRequest<DynamicObject>,
    why: &Undecodable,
    validating: bool,
) -> AdmissionReview<DynamicObject> {
    let response = AdmissionResponse::from(request);
    if !validating {
        return response.into_review();
    }
    denied(response, Denial::new(why.message()).with_code(422))
}

/// Runs `defaulter` on the request's object; the response carries the JSON patch from
/// the object as sent to the defaulted one.
pub(super) async fn mutate<K, D>(
    defaulter: &D,
    request: AdmissionRequest<K>,
    original: Value,
) -> AdmissionReview<DynamicObject>
where
    K: Resource + Serialize,
    D: Defaulter<K>,
{
    let response = AdmissionResponse::from(&request);
    let object = match request.operation {
        Operation::Create | Operation::Update => request.object,
        Operation::Delete | Operation::Connect => None,
    };
    let Some(mut object) = object else {
        return response.into_review();
    };
    let before = serde_json::to_value(&object);
    if let Err(denial) = defaulter.default(&mut object).await {
        return denied(response, denial);
    }
    let after = serde_json::to_value(&object);
    let (Ok(before), Ok(after)) = (before, after) else {
        return denied(
            response,
            Denial::new("the defaulted object does not serialize").with_code(500),
        );
    };
    let patch = patch_onto(&original, &before, &after);
    if patch.0.is_empty() {
        return response.into_review();
    }
    match response.clone().with_patch(patch) {
        Ok(patched) => patched.into_review(),
        Err(e) => denied(response, Denial::new(e.to_string()).with_code(500)),
    }
}

/// Runs the validator method the operation calls for.
pub(super) async fn validate<K, V>(
    validator: &V,
    request: AdmissionRequest<K>,
) -> AdmissionReview<DynamicObject>
where
    K: Resource + Sync,
    V: Validator<K>,
{
    let response = AdmissionResponse::from(&request);
    let verdict = match (request.operation, &request.object, &request.old_object) {
        (Operation::Create, Some(new), _) => validator.validate_create(new).await,
        (Operation::Update, Some(new), Some(old)) => validator.validate_update(old, new).await,
        (Operation::Delete, _, Some(old)) => validator.validate_delete(old).await,
        _ => Ok(Warnings::new()),
    };
    match verdict {
        Ok(warnings) if warnings.is_empty() => response.into_review(),
        Ok(warnings) => {
            let mut response = response;
            response.warnings = Some(warnings);
            response.into_review()
        }
        Err(denial) => denied(response, denial),
    }
}

/// A refusal with the denial's message and code.
pub(super) fn denied(
    response: AdmissionResponse,
    denial: Denial,
) -> AdmissionReview<DynamicObject> {
    let mut response = response.deny(denial.message);
    response.result.code = denial.code;
    if !denial.reason.is_empty() {
        response.result.reason = denial.reason;
    }
    response.result.details = denial.details.map(|details| *details);
    response.into_review()
}

/// The defaulter's change (`before` → `after`, both as `K` serializes) as a patch that
/// applies to the object as it was sent (`original`), which may lack fields `K` writes
/// out (a serde default, an empty list): an operation on such a field becomes an `add`
/// at the first missing level, and a removal of what was never sent is dropped.
pub fn patch_onto(original: &Value, before: &Value, after: &Value) -> Patch {
    let mut out: Vec<PatchOperation> = Vec::new();
    let mut added: Vec<String> = Vec::new();
    for op in json_patch::diff(before, after).0 {
        let path = match &op {
            PatchOperation::Add(a) => a.path.as_str().to_owned(),
            PatchOperation::Replace(r) => r.path.as_str().to_owned(),
            PatchOperation::Remove(r) => r.path.as_str().to_owned(),
            _ => continue,
        };
        if added
            .iter()
            .any(|a| path.starts_with(&format!("{a}/")) || path == *a)
        {
            continue;
        }
        if let PatchOperation::Remove(_) = op {
            if original.pointer(&path).is_some() {
                out.push(PatchOperation::Remove(RemoveOperation {
                    path: pointer(&path),
                }));
            }
            continue;
        }
        // The shortest prefix of the path that the original lacks: added whole.
        let missing = prefixes(&path).find(|p| original.pointer(p).is_none());
        match missing {
            Some(prefix) => {
                let Some(value) = after.pointer(prefix) else {
                    continue;
                };
                out.push(PatchOperation::Add(AddOperation {
                    path: pointer(prefix),
                    value: value.clone(),
                }));
                added.push(prefix.to_owned());
            }
            None => out.push(op),
        }
    }
    Patch(out)
}

/// `/a`, `/a/b`, `/a/b/c` of `/a/b/c` (escaped tokens hold no `/`).
fn prefixes(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .skip(1)
        .map(|(i, _)| &path[..i])
        .chain(std::iter::once(path))
}

fn pointer(path: &str) -> PointerBuf {
    PointerBuf::parse(path).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::patch_onto;

    fn applied(
        original: serde_json::Value,
        before: serde_json::Value,
        after: serde_json::Value,
    ) -> serde_json::Value {
        let patch = patch_onto(&original, &before, &after);
        let mut out = original;
        json_patch::patch(&mut out, &patch).expect("the patch applies to the object as sent");
        out
    }

    #[test]
    fn a_change_of_a_sent_field_is_a_replace() {
        let sent = json!({"spec": {"replicas": 1, "image": "a"}});
        let patch = patch_onto(
            &sent,
            &sent,
            &json!({"spec": {"replicas": 3, "image": "a"}}),
        );
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!([{"op": "replace", "path": "/spec/replicas", "value": 3}])
        );
    }

    #[test]
    fn a_field_the_type_writes_but_the_client_left_out_is_added() {
        // `K` writes `replicas: 0` (a serde default) and `labels: {}` though neither
        // was sent; the defaulter sets both.
        let sent = json!({"spec": {"image": "a"}});
        let before = json!({"spec": {"image": "a", "replicas": 0, "labels": {}}});
        let after = json!({"spec": {"image": "a", "replicas": 2, "labels": {"app": "x"}}});
        assert_eq!(
            applied(sent, before, after),
            json!({"spec": {"image": "a", "replicas": 2, "labels": {"app": "x"}}})
        );
    }

    #[test]
    fn a_whole_missing_parent_is_added_once() {
        let sent = json!({"metadata": {"name": "x"}});
        let before = json!({"metadata": {"name": "x"}, "spec": {"a": 0, "b": 0}});
        let after = json!({"metadata": {"name": "x"}, "spec": {"a": 1, "b": 2}});
        let patch = patch_onto(&sent, &before, &after);
        assert_eq!(patch.0.len(), 1, "{patch:?}");
        assert_eq!(
            applied(sent, before, after)["spec"],
            json!({"a": 1, "b": 2})
        );
    }

    #[test]
    fn fields_the_type_drops_are_kept_and_removals_of_unsent_fields_dropped() {
        // `unknown` is not a field of `K`: neither side has it, so it stays as sent.
        let sent = json!({"spec": {"unknown": true, "image": "a"}});
        let before = json!({"spec": {"image": "a", "note": null}});
        let after = json!({"spec": {"image": "b"}});
        assert_eq!(
            applied(sent, before, after),
            json!({"spec": {"unknown": true, "image": "b"}})
        );
    }

    #[test]
    fn no_change_no_patch() {
        let sent = json!({"spec": {"x": 1}});
        assert!(patch_onto(&sent, &sent, &sent).0.is_empty());
    }
}
