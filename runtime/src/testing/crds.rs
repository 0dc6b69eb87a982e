//! CustomResourceDefinitions in a real cluster, for end-to-end tests: install (apply,
//! then wait until Established) and uninstall (delete, then wait until gone).
//!
//! Both wait because the apiserver finishes either asynchronously: objects of a CRD
//! that is not yet Established are refused, and applying a CRD that is still
//! terminating from an earlier run succeeds, after which the CRD disappears anyway.

use std::fmt;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
};
use kube::runtime::wait::{Condition, await_condition, conditions};

use super::version::{CrdFeature, ServerVersion, server_version};

/// How long one CRD may take to become Established or to go away.
const WAIT: Duration = Duration::from_secs(60);

/// Why installing or uninstalling CRDs failed.
#[derive(Debug)]
pub enum ClusterError {
    /// The apiserver refused a request.
    Api(kube::Error),
    /// Watching the CRD for the awaited state failed.
    Wait(kube::runtime::wait::Error),
    /// The CRD did not reach the awaited state within a minute.
    TimedOut {
        /// The CRD's name.
        crd: String,
        /// The state awaited (`Established`, say).
        until: &'static str,
    },
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Api(e) => write!(f, "apiserver: {e}"),
            ClusterError::Wait(e) => write!(f, "{e}"),
            ClusterError::TimedOut { crd, until } => {
                write!(f, "CRD {crd} was not {until} within {} s", WAIT.as_secs())
            }
        }
    }
}

impl std::error::Error for ClusterError {}

/// A CustomResourceDefinition read from a YAML (or JSON) file, as `crdgen` writes them.
///
/// # Errors
///
/// Why the file cannot be read or is not a CustomResourceDefinition.
#[cfg(feature = "envtest")]
pub fn read_crd(path: &std::path::Path) -> Result<CustomResourceDefinition, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `crd` as a server of `version` can take it, and what was left out for it: an older
/// apiserver lacks `selectableFields` (server-side apply answers 500 for a field its
/// schema does not have) and `optionalOldSelf`, whose rules cannot be kept without it
/// (they read `oldSelf` as an optional) and are left out whole.
pub fn fit_crd(
    crd: &CustomResourceDefinition,
    version: &ServerVersion,
) -> (CustomResourceDefinition, Vec<CrdFeature>) {
    let mut left_out = Vec::new();
    let mut value = serde_json::to_value(crd).expect("a CRD serializes");
    if !version.has(CrdFeature::SelectableFields) {
        for v in value["spec"]["versions"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if v.as_object_mut()
                .and_then(|v| v.remove("selectableFields"))
                .is_some()
            {
                left_out.push(CrdFeature::SelectableFields);
            }
        }
    }
    if !version.has(CrdFeature::OptionalOldSelf) && drop_optional_old_self(&mut value) {
        left_out.push(CrdFeature::OptionalOldSelf);
    }
    left_out.dedup();
    let fitted = serde_json::from_value(value).expect("a CRD with less in it is still one");
    (fitted, left_out)
}

/// Takes `optionalOldSelf` off every rule below `value`, and the rules that set it;
/// whether any did.
fn drop_optional_old_self(value: &mut serde_json::Value) -> bool {
    let mut dropped = false;
    match value {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Array(rules)) = map.get_mut("x-kubernetes-validations") {
                let before = rules.len();
                rules.retain(|r| r["optionalOldSelf"] != true);
                dropped |= rules.len() != before;
                for rule in rules
                    .iter_mut()
                    .filter_map(serde_json::Value::as_object_mut)
                {
                    rule.remove("optionalOldSelf");
                }
            }
            for child in map.values_mut() {
                dropped |= drop_optional_old_self(child);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                dropped |= drop_optional_old_self(item);
            }
        }
        _ => {}
    }
    dropped
}

/// Server-side applies each CRD as `manager` and waits until it is Established and
/// each served version answers; a CRD of the same name still terminating is waited out
/// first. What the server's version lacks is left out ([`fit_crd`]), with a line on
/// stderr saying so.
///
/// # Errors
///
/// [`ClusterError`] when the apiserver refuses a CRD or it is not Established within a
/// minute.
pub async fn install_crds(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
    manager: &str,
) -> Result<(), ClusterError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let version = server_version(client).await;
    for crd in crds {
        let (crd, left_out) = fit_crd(crd, &version);
        let crd = &crd;
        let name = crd.metadata.name.as_deref().unwrap_or_default();
        if !left_out.is_empty() {
            let named: Vec<String> = left_out
                .iter()
                .map(|f| format!("{} (1.{})", f.name(), f.since_minor()))
                .collect();
            super::say(&format!(
                "install_crds: {name} installed without {}: kube-apiserver {} lacks them",
                named.join(", "),
                version.git_version
            ));
        }
        let existing = api.get_opt(name).await.map_err(ClusterError::Api)?;
        if let Some(old) = existing.filter(|c| c.metadata.deletion_timestamp.is_some()) {
            let uid = old.metadata.uid.unwrap_or_default();
            wait(&api, name, conditions::is_deleted(&uid), "deleted").await?;
        }
        api.patch(
            name,
            &PatchParams::apply(manager).force(),
            &Patch::Apply(crd),
        )
        .await
        .map_err(ClusterError::Api)?;
        wait(&api, name, conditions::is_crd_established(), "Established").await?;
        served(client, crd).await?;
    }
    Ok(())
}

/// Waits until every served version of `crd` lists: an Established CRD can still
/// answer 404 for a moment while its handler is installed behind the endpoint.
async fn served(client: &kube::Client, crd: &CustomResourceDefinition) -> Result<(), ClusterError> {
    let spec = &crd.spec;
    for version in spec.versions.iter().filter(|v| v.served) {
        let gvk = GroupVersionKind::gvk(&spec.group, &version.name, &spec.names.kind);
        let resource = ApiResource::from_gvk_with_plural(&gvk, &spec.names.plural);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        let one = ListParams::default().limit(1);
        let name = crd.metadata.name.as_deref().unwrap_or_default();
        within(name, "served", async {
            loop {
                match api.list(&one).await {
                    Err(kube::Error::Api(status)) if status.code == 404 => {
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                    outcome => return outcome.map(drop).map_err(ClusterError::Api),
                }
            }
        })
        .await?;
    }
    Ok(())
}

/// Deletes each named CRD, with every object of it, and waits until it is gone. A CRD
/// that does not exist is not an error.
///
/// # Errors
///
/// [`ClusterError`] when a deletion is refused or a CRD is not gone within a minute.
pub async fn uninstall_crds<'a>(
    client: &kube::Client,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), ClusterError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for name in names {
        let uid = match api.delete(name, &DeleteParams::default()).await {
            Ok(deleted) => deleted.either(|crd| crd.metadata.uid, |s| s.details.map(|d| d.uid)),
            Err(kube::Error::Api(status)) if status.code == 404 => continue,
            Err(e) => return Err(ClusterError::Api(e)),
        };
        if let Some(uid) = uid {
            wait(&api, name, conditions::is_deleted(&uid), "deleted").await?;
        }
    }
    Ok(())
}

async fn wait(
    api: &Api<CustomResourceDefinition>,
    name: &str,
    condition: impl Condition<CustomResourceDefinition>,
    until: &'static str,
) -> Result<(), ClusterError> {
    within(name, until, async {
        let outcome = await_condition(api.clone(), name, condition).await;
        outcome.map(drop).map_err(ClusterError::Wait)
    })
    .await
}

/// `work`, or `TimedOut` for CRD `crd` when it takes longer than [`WAIT`].
async fn within(
    crd: &str,
    until: &'static str,
    work: impl Future<Output = Result<(), ClusterError>>,
) -> Result<(), ClusterError> {
    tokio::time::timeout(WAIT, work).await.unwrap_or_else(|_| {
        Err(ClusterError::TimedOut {
            crd: crd.to_owned(),
            until,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd() -> CustomResourceDefinition {
        let rules = json!([
            {"rule": "self >= oldSelf", "message": "may only grow"},
            {"rule": "oldSelf.hasValue() || self != 'gold'", "optionalOldSelf": true},
        ]);
        serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{
                    "name": "v1", "served": true, "storage": true,
                    "selectableFields": [{"jsonPath": ".spec.size"}],
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object", "properties": {
                            "size": {"type": "string", "x-kubernetes-validations": rules},
                        }},
                    }}},
                }],
            },
        }))
        .unwrap()
    }

    fn at(minor: u32) -> ServerVersion {
        ServerVersion {
            minor,
            git_version: format!("v1.{minor}.0"),
        }
    }

    fn rules(crd: &CustomResourceDefinition) -> serde_json::Value {
        let crd = serde_json::to_value(crd).unwrap();
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["size"]["x-kubernetes-validations"]
            .clone()
    }

    #[test]
    fn a_crd_is_fitted_to_what_its_server_has_and_says_what_it_left_out() {
        let (fitted, left_out) = fit_crd(&crd(), &at(28));
        assert_eq!(
            left_out,
            [CrdFeature::SelectableFields, CrdFeature::OptionalOldSelf]
        );
        assert!(fitted.spec.versions[0].selectable_fields.is_none());
        assert_eq!(
            rules(&fitted),
            json!([{"rule": "self >= oldSelf", "message": "may only grow"}])
        );

        let (fitted, left_out) = fit_crd(&crd(), &at(30));
        assert_eq!(left_out, [CrdFeature::SelectableFields]);
        assert_eq!(rules(&fitted), rules(&crd()));

        let (fitted, left_out) = fit_crd(&crd(), &at(31));
        assert!(left_out.is_empty());
        assert_eq!(fitted, crd());
    }
}
