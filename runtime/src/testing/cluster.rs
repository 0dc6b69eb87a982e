//! CustomResourceDefinitions in a real cluster, for end-to-end tests: install (apply,
//! then wait until Established) and uninstall (delete, then wait until gone).
//!
//! Both wait because the apiserver finishes either asynchronously: objects of a CRD
//! that is not yet Established are refused, and applying a CRD that is still
//! terminating from an earlier run succeeds, after which the CRD disappears anyway.

use std::fmt;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::wait::{Condition, await_condition, conditions};

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
    TimedOut { crd: String, until: &'static str },
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

/// Server-side applies each CRD as `manager` and waits until it is Established; a CRD
/// of the same name still terminating is waited out first.
pub async fn install_crds(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
    manager: &str,
) -> Result<(), ClusterError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds {
        let name = crd.metadata.name.as_deref().unwrap_or_default();
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
    }
    Ok(())
}

/// Deletes each named CRD, with every object of it, and waits until it is gone. A CRD
/// that does not exist is not an error.
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
    match tokio::time::timeout(WAIT, await_condition(api.clone(), name, condition)).await {
        Ok(outcome) => outcome.map(drop).map_err(ClusterError::Wait),
        Err(_) => Err(ClusterError::TimedOut {
            crd: name.to_owned(),
            until,
        }),
    }
}
