//! CustomResourceDefinitions written to the in-memory server, through
//! [`ApiServer::try_register_crd`] or over HTTP as an operator installing its CRDs writes
//! them: refused as kube-apiserver refuses them (422, in its words), else stored, each
//! served version served at once (its objects kept when it was served before, under
//! the new schema from the next write; every version's kept at the storage version, see
//! `store/versions.rs`), and its status made what apiextensions-apiserver's controllers
//! make it: names accepted, established.

use std::sync::Arc;

use http::{Method, StatusCode};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

use super::ApiServer;
use super::scale::ScalePaths;
use super::status::ApiError;
use super::store::{Owner, ResourceInfo, ResourceKey, Target, Write};

const GROUP: &str = "apiextensions.k8s.io";
const PLURAL: &str = "customresourcedefinitions";
const KIND: &str = "CustomResourceDefinition";

/// Where CRDs are stored.
pub(super) fn key() -> ResourceKey {
    (GROUP.to_owned(), "v1".to_owned(), PLURAL.to_owned())
}

fn info() -> ResourceInfo {
    ResourceInfo {
        group: GROUP.to_owned(),
        version: "v1".to_owned(),
        plural: PLURAL.to_owned(),
        kind: KIND.to_owned(),
        namespaced: false,
        status_subresource: true,
        scale: None,
        validate: None,
        schema: None,
        stored_at: None,
    }
}

/// What the server answers a CRD's write with: its errors, when kube-apiserver would
/// refuse it.
fn refused(crd: &Value, minor: u16) -> Result<(), ApiError> {
    let errors = crate::crd::crd_errors(crd, minor);
    match errors.is_empty() {
        true => Ok(()),
        false => {
            let name = crd["metadata"]["name"].as_str().unwrap_or_default();
            Err(ApiError::invalid((KIND, GROUP, PLURAL), name, &errors))
        }
    }
}

impl ApiServer {
    /// Serves the CRD resource from the first request on it, as the apiserver always does.
    pub(super) fn serve_crd_resource(&self) {
        let mut store = self.store();
        if store.info(&key()).is_err() {
            store.register(info());
        }
    }

    /// Checks a write of a CRD before it is made (`would`: the CRD as the write, made as
    /// a dry run, leaves it), and once made, serves what it defines.
    pub(super) fn write_crd(
        &self,
        method: &Method,
        would: impl FnOnce() -> Result<Value, ApiError>,
        write: impl FnOnce() -> Result<(StatusCode, Value), ApiError>,
        dry_run: bool,
    ) -> Result<(StatusCode, Value), ApiError> {
        let writes = matches!(*method, Method::POST | Method::PUT | Method::PATCH);
        if writes {
            refused(&would()?, self.minor())?;
        }
        let (status, written) = write()?;
        if writes && !dry_run {
            self.serve_versions(&written)?;
        }
        Ok((status, written))
    }

    /// Stores a CRD as written, or over the one of its name, as a fixture: for
    /// [`ApiServer::try_register_crd`].
    pub(super) fn store_crd(&self, crd: &Value) -> Result<Value, ApiError> {
        refused(crd, self.minor())?;
        self.serve_crd_resource();
        let fixture = Write {
            dry_run: false,
            owner: Owner::Fixture,
        };
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        let mut store = self.store();
        let stored = match store.get(&key(), None, name) {
            Ok(old) => {
                let mut crd = crd.clone();
                crd["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
                store.replace(&key(), None, name, crd, Target::Main, fixture)?
            }
            Err(_) => store.create(&key(), None, crd.clone(), fixture)?,
        };
        drop(store);
        self.serve_versions(&stored)?;
        Ok(stored)
    }

    /// Sets a stored CRD's status as apiextensions-apiserver's controllers do, then
    /// serves its served versions: their watch history begins after both, as the
    /// apiserver's watch cache of a new resource does.
    fn serve_versions(&self, stored: &Value) -> Result<(), ApiError> {
        let crd: CustomResourceDefinition = serde_json::from_value(stored.clone())
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let spec = &crd.spec;
        let storage = spec.versions.iter().find(|v| v.storage).map(|v| &v.name);
        self.establish(stored, storage)?;
        let minor = self.minor();
        let mut store = self.store();
        // The storage version keeps every version's objects, served or not.
        for version in spec.versions.iter().filter(|v| v.served || v.storage) {
            let subresources = version.subresources.as_ref();
            store.register(ResourceInfo {
                group: spec.group.clone(),
                version: version.name.clone(),
                plural: spec.names.plural.clone(),
                kind: spec.names.kind.clone(),
                namespaced: spec.scope == "Namespaced",
                status_subresource: subresources.is_some_and(|s| s.status.is_some()),
                scale: subresources
                    .and_then(|s| s.scale.as_ref())
                    .map(|s| ScalePaths {
                        spec_replicas: s.spec_replicas_path.clone(),
                        status_replicas: s.status_replicas_path.clone(),
                        label_selector: s.label_selector_path.clone(),
                    }),
                validate: None,
                schema: version
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_ref())
                    .and_then(|s| serde_json::to_value(s).ok())
                    .map(|s| Arc::new(crate::crd::Validator::build(&s, true, minor))),
                stored_at: storage.cloned(),
            });
        }
        Ok(())
    }

    /// The status a CRD's controllers write: its names accepted, the CRD established,
    /// its storage version among those objects were ever stored at.
    fn establish(&self, stored: &Value, storage: Option<&String>) -> Result<(), ApiError> {
        let mut stored_versions = stored["status"]["storedVersions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if let Some(storage) = storage
            && !stored_versions.contains(&json!(storage))
        {
            stored_versions.push(json!(storage));
        }
        let names = &stored["spec"]["names"];
        let status = &stored["status"];
        if status["acceptedNames"] == *names && status["storedVersions"] == json!(stored_versions) {
            return Ok(());
        }
        let condition = |kind: &str, reason: &str, message: &str| {
            json!({"type": kind, "status": "True", "reason": reason, "message": message,
                   "lastTransitionTime": super::store::now()})
        };
        let mut with_status = stored.clone();
        with_status["status"] = json!({
            "acceptedNames": names,
            "conditions": [
                condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
            ],
            "storedVersions": stored_versions,
        });
        let name = stored["metadata"]["name"].as_str().unwrap_or_default();
        let fixture = Write {
            dry_run: false,
            owner: Owner::Fixture,
        };
        self.store()
            .replace(&key(), None, name, with_status, Target::Status, fixture)?;
        Ok(())
    }
}
