//! Patches (JSON, merge, strategic merge refused as the apiserver refuses it for custom
//! resources), server-side apply, and the scale subresource.

use serde_json::{Value, json};

use super::super::scale::{self, ScalePaths};
use super::super::status::ApiError;
use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatchKind {
    Merge,
    Json,
    Apply,
    Strategic,
}

/// A PATCH request's body, as its content type says to read it.
pub(crate) struct Patch<'a> {
    pub kind: PatchKind,
    pub body: Value,
    /// The `fieldManager` parameter, which apply requires.
    pub field_manager: Option<&'a str>,
    /// The `force` parameter: an apply takes the fields other managers own.
    pub force: bool,
}

impl Storage {
    pub fn patch(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
        patch: Patch<'_>,
        target: Target,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let Patch {
            kind,
            body,
            field_manager,
            force,
        } = patch;
        let info = self.info(key)?.clone();
        if kind == PatchKind::Strategic {
            return Err(strategic_refused());
        }
        if kind == PatchKind::Apply && field_manager.is_none_or(str::is_empty) {
            return Err(info.invalid(
                name,
                "fieldManager: Required value: is required for apply patch",
            ));
        }
        let live = match self.get(key, ns, name) {
            Ok(old) => Some(old),
            Err(e) if e.code == 404 && kind == PatchKind::Apply && target == Target::Main => None,
            Err(e) => return Err(e),
        };
        if kind == PatchKind::Apply {
            let mut body = applied_part(&info, body, target);
            if body["metadata"]["name"].is_null() && body.is_object() {
                body["metadata"]["name"] = json!(name);
            }
            check_version(&info, name, live.as_ref(), &body)?;
            let subresource = match target {
                Target::Main => managed::Subresource::Main,
                Target::Status => managed::Subresource::Status,
            };
            let api_version = info.api_version();
            let stamp = managed::Stamp {
                manager: field_manager.unwrap_or_default(),
                subresource,
                api_version: &api_version,
                time: now(),
            };
            let merged = managed::apply(live.as_ref(), &body, info.schema_value(), force, stamp)
                .map_err(|conflicts| {
                    ApiError::new(409, "Conflict", conflicts.message())
                        .with_details(name, &info.group, &info.plural)
                        .with_causes(conflicts.causes())
                })?;
            return match live {
                None => self.create(key, ns, merged, applied(how)),
                Some(old) => {
                    let new = checked_body(&info, merged, ns)?;
                    self.write(key, &info, old, new, target, applied(how))
                }
            };
        }
        let old = live.expect("only an apply creates");
        let new = patched(&info, name, &old, kind, &body)?;
        let new = checked_body(&info, new, ns)?;
        self.write(key, &info, old, new, target, how)
    }

    /// The object's `/scale`.
    pub fn get_scale(
        &self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Value, ApiError> {
        let (info, object) = self.object(key, ns, name)?;
        Ok(scale::view(scale_paths(&info)?, &object))
    }

    /// Replaces the object's `/scale`: its spec replicas change, nothing else does.
    pub fn replace_scale(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
        body: Value,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let (info, old) = self.object(key, ns, name)?;
        let paths = scale_paths(&info)?.clone();
        if let Some(rv) = body["metadata"]["resourceVersion"].as_str()
            && !rv.is_empty()
            && Some(rv) != old["metadata"]["resourceVersion"].as_str()
        {
            return Err(info.conflict(name));
        }
        let replicas = body["spec"]["replicas"].as_i64().unwrap_or(0);
        if replicas < 0 {
            return Err(info.invalid(
                name,
                &format!(
                    "spec.replicas: Invalid value: {replicas}: must be greater than or equal to 0"
                ),
            ));
        }
        let mut new = old.clone();
        scale::set_replicas(&paths, &mut new, replicas);
        let result = self.write(key, &info, old, new, Target::Main, how)?;
        Ok(scale::view(&paths, &result))
    }

    /// Patches the object's `/scale` as a `Scale`, then replaces it.
    pub fn patch_scale(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
        patch: Patch<'_>,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let info = self.info(key)?.clone();
        let current = self.get_scale(key, ns, name)?;
        let new = patched(&info, name, &current, patch.kind, &patch.body)?;
        self.replace_scale(key, ns, name, new, how)
    }
}

/// The same write, of an object whose managedFields the apply computed.
fn applied(how: Write<'_>) -> Write<'_> {
    Write {
        owner: Owner::Applied,
        ..how
    }
}

/// The part of an applied configuration a target takes: the main resource ignores
/// `status` where it has a subresource of its own, `/status` takes only `status`.
fn applied_part(info: &ResourceInfo, mut body: Value, target: Target) -> Value {
    let Some(map) = body.as_object_mut() else {
        return body;
    };
    match target {
        Target::Main if info.status_subresource => {
            map.remove("status");
        }
        Target::Main => {}
        Target::Status => {
            map.retain(|k, _| ["apiVersion", "kind", "metadata", "status"].contains(&k.as_str()))
        }
    }
    body
}

/// An apply that names a resourceVersion must name the current one.
fn check_version(
    info: &ResourceInfo,
    name: &str,
    live: Option<&Value>,
    body: &Value,
) -> Result<(), ApiError> {
    match body["metadata"]["resourceVersion"].as_str() {
        Some(rv) if Some(rv) != live.and_then(|l| l["metadata"]["resourceVersion"].as_str()) => {
            Err(info.conflict(name))
        }
        _ => Ok(()),
    }
}

/// `old` with a patch applied, or why it cannot be (a strategic merge patch, a
/// `resourceVersion` that is not current).
pub(super) fn patched(
    info: &ResourceInfo,
    name: &str,
    old: &Value,
    kind: PatchKind,
    body: &Value,
) -> Result<Value, ApiError> {
    let mut new = old.clone();
    match kind {
        // An apply to an object is merged by field ownership before it gets here; one
        // to `/scale` changes only its replicas.
        PatchKind::Merge | PatchKind::Apply => json_patch::merge(&mut new, body),
        PatchKind::Json => {
            let ops: json_patch::Patch = serde_json::from_value(body.clone()).map_err(|e| {
                ApiError::bad_request(format!("the body of the request was not a JSON patch: {e}"))
            })?;
            json_patch::patch(&mut new, &ops).map_err(|e| match e.kind {
                // The apiserver's answer to a failed `test`: a 422 of no message of its
                // own, which apimachinery words for it.
                json_patch::PatchErrorKind::TestFailed => ApiError::new(
                    422,
                    "Invalid",
                    "the server rejected our request due to an error in our request",
                ),
                _ => info.invalid(name, &e.to_string()),
            })?;
        }
        PatchKind::Strategic => return Err(strategic_refused()),
    }
    if let Some(rv) = body["metadata"]["resourceVersion"].as_str()
        && kind != PatchKind::Json
        && Some(rv) != old["metadata"]["resourceVersion"].as_str()
    {
        return Err(info.conflict(name));
    }
    Ok(new)
}

/// Custom resources take no strategic merge patch; neither does this server.
pub(super) fn strategic_refused() -> ApiError {
    ApiError::new(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    )
}

/// Where the resource's `/scale` reads and writes, or 404 as for any unknown path.
pub(super) fn scale_paths(info: &ResourceInfo) -> Result<&ScalePaths, ApiError> {
    info.scale.as_ref().ok_or_else(|| {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    })
}
