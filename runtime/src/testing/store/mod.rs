//! The in-memory store and the API semantics controllers rely on: resource versions,
//! generations, the status subresource, finalizers and optimistic concurrency (here);
//! lists, selectors, paging and watch history (`watch`); patches, server-side apply and
//! the scale subresource (`patch`).

mod managed;
mod patch;
mod versions;
mod watch;

pub(crate) use patch::{Patch, PatchKind};
pub(crate) use watch::Query;
use watch::{Event, EventType, Watcher, frame_for, list_body};

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::scale::ScalePaths;
use super::status::ApiError;
use crate::field::Error as FieldError;

/// Checks that a body fits the resource's type (for types registered from Rust, by
/// deserializing into the type).
pub(crate) type Validator = Arc<dyn Fn(&Value) -> Result<(), String> + Send + Sync>;

/// A served resource: what the URL names and what the apiserver knows about it.
#[derive(Clone)]
pub(crate) struct ResourceInfo {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub kind: String,
    pub namespaced: bool,
    pub status_subresource: bool,
    /// The `/scale` subresource, when the resource has one.
    pub scale: Option<ScalePaths>,
    pub validate: Option<Validator>,
    /// The CRD version's schema, for resources registered from one: defaults, pruning,
    /// validation and CEL rules on every write.
    pub schema: Option<Arc<crate::crd::Validator>>,
    /// The version objects are stored at, for a version of a CRD: objects of all its
    /// versions are kept once, there (see `versions`).
    pub stored_at: Option<String>,
}

impl ResourceInfo {
    /// The CRD's schema, where the resource has one.
    fn schema_value(&self) -> Option<&Value> {
        self.schema.as_deref().map(crate::crd::Validator::schema)
    }

    /// Whether the apiserver serves the resource as a custom one (an unstructured
    /// object): one of a CRD, or of a group Kubernetes does not build in (its own are
    /// the core group, one-word groups and `*.k8s.io`).
    fn custom(&self) -> bool {
        self.schema.is_some() || self.group.contains('.') && !self.group.ends_with(".k8s.io")
    }

    fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `Kind.group`, as the apiserver names an object's type in some messages.
    fn group_kind(&self) -> String {
        match self.group.is_empty() {
            true => self.kind.clone(),
            false => format!("{}.{}", self.kind, self.group),
        }
    }

    /// `examples.bcrds.example.com`, as the apiserver names a resource in messages.
    fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    fn not_found(&self, name: &str) -> ApiError {
        ApiError::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", self.qualified()),
        )
        .with_details(name, &self.group, &self.plural)
    }

    fn conflict(&self, name: &str) -> ApiError {
        ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                self.qualified()
            ),
        )
        .with_details(name, &self.group, &self.plural)
    }

    /// The apiserver's answer to a delete that removed `object` at once: a `Status`
    /// naming it (`details.kind` is the resource, as the apiserver writes it).
    fn deleted(&self, object: &Value) -> Value {
        let (name, uid) = (&object["metadata"]["name"], &object["metadata"]["uid"]);
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Success",
            "details": {
                "name": name,
                "group": self.group,
                "kind": self.plural,
                "uid": uid,
            },
        })
    }

    /// A 422 for field errors, as apimachinery's `NewInvalid`: one cause each, the
    /// message listing them (bracketed when there are several).
    fn invalid_fields(&self, name: &str, errors: &[FieldError]) -> ApiError {
        ApiError::invalid((&self.kind, &self.group, &self.plural), name, errors)
    }

    fn invalid(&self, name: &str, why: &str) -> ApiError {
        ApiError::new(
            422,
            "Invalid",
            format!("{} \"{name}\" is invalid: {why}", self.group_kind()),
        )
        .with_details(name, &self.group, &self.plural)
    }
}

pub(crate) type ResourceKey = (String, String, String);

/// What a delete did.
pub(crate) enum Deletion {
    /// Removed at once (no finalizers): the apiserver answers with a `Status`.
    Gone { object: Value, status: Value },
    /// Marked for deletion, waiting for finalizers: the apiserver answers with the object.
    Pending(Value),
}

impl Deletion {
    /// The body of the DELETE response.
    pub fn answer(self) -> Value {
        match self {
            Deletion::Gone { status, .. } => status,
            Deletion::Pending(object) => object,
        }
    }

    /// The object as deleted or marked, as deletecollection lists it.
    fn into_object(self) -> Value {
        match self {
            Deletion::Gone { object, .. } | Deletion::Pending(object) => object,
        }
    }
}

/// Who a write is recorded for in `metadata.managedFields`.
#[derive(Clone, Copy)]
pub(crate) enum Owner<'a> {
    /// An update (create, replace, patch) by this manager: the `fieldManager`
    /// parameter, else the client's user agent up to its `/`, as the apiserver names it.
    Update(&'a str),
    /// A server-side apply: the object carries its managedFields already.
    Applied,
    /// A test fixture ([`ApiServer::insert`](super::ApiServer::insert)), stored as given.
    Fixture,
}

/// How a write is made: for real or as a dry run, and for whom.
#[derive(Clone, Copy)]
pub(crate) struct Write<'a> {
    pub dry_run: bool,
    pub owner: Owner<'a>,
}

/// Which part of an object a write may change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Main,
    Status,
}

#[derive(Default)]
pub(crate) struct Storage {
    resources: BTreeMap<ResourceKey, Collection>,
    rv: u64,
    history: Vec<Event>,
    /// Events up to and including this resource version are no longer kept.
    compacted: u64,
    watchers: Vec<Watcher>,
    /// Counter behind `generateName` suffixes and uids.
    serial: u64,
    /// Watches opened, per resource.
    watch_counts: BTreeMap<ResourceKey, usize>,
    /// While set, watch requests are refused (see `ApiServer::watch_outage`).
    outage: bool,
    /// The Kubernetes minor version the server answers as, when told one.
    pub(crate) kubernetes_minor: Option<u16>,
    /// The one to answer as when told none (a generated clientset's).
    pub(crate) default_kubernetes_minor: Option<u16>,
}

struct Collection {
    info: ResourceInfo,
    objects: BTreeMap<(String, String), Value>,
    /// The resource version its watch history begins at: the apiserver's watch cache
    /// starts when the resource is first served, and a watch from before is 410.
    since: u64,
}

impl Storage {
    pub fn register(&mut self, info: ResourceInfo) {
        let key = (
            info.group.clone(),
            info.version.clone(),
            info.plural.clone(),
        );
        match self.resources.get_mut(&key) {
            // Registering again (another clientset over the same server) keeps the objects.
            Some(collection) => collection.info = info,
            None => {
                self.resources.insert(
                    key,
                    Collection {
                        info,
                        objects: BTreeMap::new(),
                        since: self.rv,
                    },
                );
            }
        }
    }

    /// Gives a registered resource a `/scale` subresource.
    pub fn set_scale(&mut self, key: &ResourceKey, paths: ScalePaths) {
        if let Some(collection) = self.resources.get_mut(key) {
            collection.info.scale = Some(paths);
        }
    }

    pub fn info(&self, key: &ResourceKey) -> Result<&ResourceInfo, ApiError> {
        self.resources.get(key).map(|c| &c.info).ok_or_else(|| {
            ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            )
        })
    }

    fn object(
        &self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
    ) -> Result<(ResourceInfo, Value), ApiError> {
        let info = self.info(key)?.clone();
        let id = (ns.unwrap_or_default().to_owned(), name.to_owned());
        match self.resources[&self.home(key)].objects.get(&id) {
            Some(object) => Ok((info, self.present(key, object.clone()))),
            None => Err(info.not_found(name)),
        }
    }

    /// Every stored object of a resource; none when it is not served.
    pub fn objects(&self, key: &ResourceKey) -> impl Iterator<Item = &Value> + use<'_> {
        self.resources
            .get(key)
            .into_iter()
            .flat_map(|c| c.objects.values())
    }

    pub fn get(&self, key: &ResourceKey, ns: Option<&str>, name: &str) -> Result<Value, ApiError> {
        self.object(key, ns, name).map(|(_, o)| o)
    }

    pub fn create(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        body: Value,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let Write { dry_run, owner } = how;
        let info = self.info(key)?.clone();
        let mut object = checked_body(&info, body, ns)?;
        let keep_status = matches!(owner, Owner::Fixture);
        let meta = object["metadata"]
            .as_object_mut()
            .expect("checked_body makes metadata an object");
        let name = match (
            meta.get("name").and_then(Value::as_str),
            meta.get("generateName").and_then(Value::as_str),
        ) {
            (Some(name), _) if !name.is_empty() => name.to_owned(),
            (_, Some(prefix)) if !prefix.is_empty() => {
                self.serial += 1;
                format!("{prefix}{}", suffix(self.serial))
            }
            _ => {
                return Err(info.invalid(
                    "",
                    "metadata.name: Required value: name or generateName is required",
                ));
            }
        };
        if crdgen_apimachinery::names::subdomain(&name).is_err() {
            let why = crdgen_apimachinery::names::SUBDOMAIN_MESSAGE;
            return Err(info.invalid(
                &name,
                &format!("metadata.name: Invalid value: \"{name}\": {why}"),
            ));
        }
        let id = (ns.unwrap_or_default().to_owned(), name.clone());
        self.serial += 1;
        meta.insert("name".into(), json!(name));
        meta.insert("uid".into(), json!(uid(self.serial)));
        meta.insert("creationTimestamp".into(), now());
        meta.insert("generation".into(), json!(1));
        for field in [
            "resourceVersion",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            meta.remove(field);
        }
        if info.status_subresource && !keep_status {
            // As the apiserver does: status is written through /status only.
            if let Some(map) = object.as_object_mut() {
                map.remove("status");
            }
        }
        admit(&info, &name, &mut object, None)?;
        // As the apiserver: an invalid object is refused (422) before its name is found
        // taken (409).
        if self.resources[&self.home(key)].objects.contains_key(&id) {
            return Err(ApiError::new(
                409,
                "AlreadyExists",
                format!("{} \"{name}\" already exists", info.qualified()),
            )
            .with_details(&name, &info.group, &info.plural));
        }
        match owner {
            Owner::Update(manager) => {
                managed::keep(None, &mut object);
                let api_version = info.api_version();
                let stamp = managed::Stamp {
                    manager,
                    subresource: managed::Subresource::Main,
                    api_version: &api_version,
                    time: now(),
                };
                managed::record_update(None, &mut object, info.schema_value(), stamp);
            }
            // A fixture is stored as given, managedFields and all.
            Owner::Applied | Owner::Fixture => {}
        }
        if dry_run {
            return Ok(object);
        }
        Ok(self.commit(key, id, None, Some(object)))
    }

    pub fn replace(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
        body: Value,
        target: Target,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let (info, old) = self.object(key, ns, name)?;
        let new = checked_body(&info, body, ns)?;
        if new["metadata"]["name"].as_str().is_some_and(|n| n != name) {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                new["metadata"]["name"].as_str().unwrap_or_default()
            )));
        }
        match new["metadata"]["resourceVersion"].as_str() {
            None | Some("") => {
                return Err(info.invalid(
                    name,
                    "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
                ));
            }
            Some(rv) if Some(rv) != old["metadata"]["resourceVersion"].as_str() => {
                return Err(info.conflict(name));
            }
            Some(_) => {}
        }
        self.write(key, &info, old, new, target, how)
    }

    /// The common end of update and patch: keep what the target may not change,
    /// bump the generation on spec changes, finish deletions whose finalizers are gone.
    fn write(
        &mut self,
        key: &ResourceKey,
        info: &ResourceInfo,
        old: Value,
        new: Value,
        target: Target,
        how: Write<'_>,
    ) -> Result<Value, ApiError> {
        let Write { dry_run, owner } = how;
        let name = old["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // An apply's object carries the managedFields it computed.
        let applied =
            json!({"metadata": {"managedFields": new["metadata"]["managedFields"].clone()}});
        let mut result = match target {
            Target::Status => {
                let mut result = old.clone();
                set_or_remove(&mut result, "status", new.get("status").cloned());
                result
            }
            Target::Main => {
                let mut result = new;
                if info.status_subresource {
                    set_or_remove(&mut result, "status", old.get("status").cloned());
                }
                for field in [
                    "uid",
                    "creationTimestamp",
                    "deletionTimestamp",
                    "deletionGracePeriodSeconds",
                    "namespace",
                    "name",
                ] {
                    set_or_remove(
                        &mut result["metadata"],
                        field,
                        old["metadata"].get(field).cloned(),
                    );
                }
                result
            }
        };
        result["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        admit(info, &name, &mut result, Some(&old))?;
        let subresource = match target {
            Target::Main => managed::Subresource::Main,
            Target::Status => managed::Subresource::Status,
        };
        match owner {
            Owner::Update(manager) => {
                managed::keep(Some(&old), &mut result);
                let api_version = info.api_version();
                let stamp = managed::Stamp {
                    manager,
                    subresource,
                    api_version: &api_version,
                    time: now(),
                };
                managed::record_update(Some(&old), &mut result, info.schema_value(), stamp);
            }
            Owner::Applied => managed::keep(Some(&applied), &mut result),
            Owner::Fixture => managed::keep(Some(&old), &mut result),
        }
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(1);
        let changed_spec = without(&old, info) != without(&result, info);
        result["metadata"]["generation"] = json!(generation + i64::from(changed_spec));
        if !old["metadata"]["deletionTimestamp"].is_null() {
            let before = finalizers(&old);
            let quoted: Vec<String> = finalizers(&result)
                .iter()
                .filter(|f| !before.contains(f))
                .map(|f| format!("{:?}", f.as_str().unwrap_or_default()))
                .collect();
            if !quoted.is_empty() {
                return Err(info.invalid(
                    &name,
                    &format!(
                        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                        quoted.join(", ")
                    ),
                ));
            }
        }
        if result == old || dry_run {
            return Ok(result);
        }
        let id = id_of(&result);
        let finalized =
            !result["metadata"]["deletionTimestamp"].is_null() && finalizers(&result).is_empty();
        // An object whose last finalizer went is gone as this write left it: the
        // answer, and the watch's DELETED event, carry it so.
        Ok(match finalized {
            true => self.commit(key, id, Some(result), None),
            false => self.commit(key, id, Some(old), Some(result)),
        })
    }

    pub fn delete(
        &mut self,
        key: &ResourceKey,
        ns: Option<&str>,
        name: &str,
        options: &Value,
        dry_run: bool,
    ) -> Result<Deletion, ApiError> {
        let (info, old) = self.object(key, ns, name)?;
        let pre = &options["preconditions"];
        for (field, label, since) in [
            ("uid", "UID", "deleted and then recreated"),
            ("resourceVersion", "ResourceVersion", "modified"),
        ] {
            if let Some(expected) = pre[field].as_str()
                && Some(expected) != old["metadata"][field].as_str()
            {
                return Err(ApiError::new(
                    409,
                    "Conflict",
                    format!(
                        "Operation cannot be fulfilled on {} \"{name}\": the {label} in the precondition ({expected}) does not match the {label} in record ({}). The object might have been {since}",
                        info.group_kind(),
                        old["metadata"][field].as_str().unwrap_or_default()
                    ),
                )
                .with_details(name, &info.group, &info.plural));
            }
        }
        // A foreground or orphaning deletion waits on the garbage collector, which the
        // finalizer it adds names (envtest has none running: the object stays).
        let mut old = old;
        let waits_on = match options["propagationPolicy"].as_str() {
            Some("Foreground") => Some("foregroundDeletion"),
            Some("Orphan") => Some("orphan"),
            _ => None,
        };
        if let Some(finalizer) = waits_on
            && !finalizers(&old).contains(&json!(finalizer))
            && old["metadata"]["deletionTimestamp"].is_null()
        {
            let mut list = finalizers(&old);
            list.push(json!(finalizer));
            old["metadata"]["finalizers"] = Value::Array(list);
        }
        let id = id_of(&old);
        if finalizers(&old).is_empty() {
            let status = info.deleted(&old);
            let object = match dry_run {
                true => old,
                false => self.commit(key, id, Some(old), None),
            };
            return Ok(Deletion::Gone { object, status });
        }
        if !old["metadata"]["deletionTimestamp"].is_null() {
            return Ok(Deletion::Pending(old));
        }
        // As the apiserver: marking for deletion is a change of the object's intent, so
        // the generation moves too.
        let mut marked = old.clone();
        marked["metadata"]["deletionTimestamp"] = now();
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(1);
        marked["metadata"]["generation"] = json!(generation + 1);
        if dry_run {
            return Ok(Deletion::Pending(marked));
        }
        Ok(Deletion::Pending(self.commit(
            key,
            id,
            Some(old),
            Some(marked),
        )))
    }

    pub fn delete_collection(
        &mut self,
        key: &ResourceKey,
        query: &Query,
        options: &Value,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        let info = self.info(key)?.clone();
        let ids: Vec<(String, String)> = self.resources[&self.home(key)]
            .objects
            .iter()
            .filter(|(_, o)| query.matches(o))
            .map(|(id, _)| id.clone())
            .collect();
        let mut items = Vec::new();
        for (ns, name) in ids {
            let ns = info.namespaced.then_some(ns.as_str());
            items.push(self.delete(key, ns, &name, options, dry_run)?.into_object());
        }
        Ok(list_body(&info, self.rv, items, None, true))
    }

    /// Stores a write made at `key`'s version (kept at its storage version), tells the
    /// watchers of every version, and answers with the object at `key`'s version.
    fn commit(
        &mut self,
        key: &ResourceKey,
        id: (String, String),
        old: Option<Value>,
        new: Option<Value>,
    ) -> Value {
        self.rv += 1;
        let rv = self.rv;
        let home = self.home(key).into_owned();
        let old = old.map(|o| self.to_storage(key, o));
        let new = new.map(|o| self.to_storage(key, o));
        let objects = &mut self
            .resources
            .get_mut(&home)
            .expect("committed resources are registered")
            .objects;
        let (kind, object) = match new {
            Some(mut object) => {
                object["metadata"]["resourceVersion"] = json!(rv.to_string());
                objects.insert(id, object.clone());
                (
                    if old.is_some() {
                        EventType::Modified
                    } else {
                        EventType::Added
                    },
                    object,
                )
            }
            None => {
                let mut object = old.clone().expect("a deletion has an old object");
                object["metadata"]["resourceVersion"] = json!(rv.to_string());
                objects.remove(&id);
                (EventType::Deleted, object)
            }
        };
        let event = Event {
            rv,
            key: home.clone(),
            kind,
            old,
            object,
        };
        let mut watchers = std::mem::take(&mut self.watchers);
        watchers.retain(|w| {
            *self.home(&w.key) != home
                || frame_for(&w.query, &self.seen_by(&w.key, &event))
                    .is_none_or(|frame| w.tx.send(frame).is_ok())
        });
        self.watchers = watchers;
        let answer = self.present(key, event.object.clone());
        self.history.push(event);
        answer
    }
}

/// The body as an object of this resource in this namespace: apiVersion and kind
/// filled in or checked, metadata an object, namespace matching the URL.
fn checked_body(info: &ResourceInfo, body: Value, ns: Option<&str>) -> Result<Value, ApiError> {
    let Value::Object(mut map) = body else {
        return Err(ApiError::bad_request(
            "the body of the request must be a JSON object",
        ));
    };
    let api_version = info.api_version();
    let fields = [
        ("apiVersion", "API version", &api_version),
        ("kind", "kind", &info.kind),
    ];
    for (field, words, expected) in fields {
        match map.get(field).and_then(Value::as_str) {
            Some(actual) if actual != expected => {
                return Err(ApiError::bad_request(format!(
                    "the {words} in the data ({actual}) does not match the expected {words} ({expected})"
                )));
            }
            _ => {
                map.insert(field.into(), json!(expected));
            }
        }
    }
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        return Err(ApiError::bad_request("metadata must be an object"));
    }
    match (info.namespaced, ns, meta["namespace"].as_str()) {
        (true, None, _) => {
            return Err(ApiError::bad_request(
                "the namespace of the request is required for a namespaced resource",
            ));
        }
        (true, Some(url), Some(body)) if url != body => {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        (true, Some(url), _) => meta["namespace"] = json!(url),
        (false, Some(_), _) => {
            return Err(ApiError::bad_request(
                "a cluster-scoped resource has no namespace",
            ));
        }
        (false, None, _) => {
            if let Some(m) = meta.as_object_mut() {
                m.remove("namespace");
            }
        }
    }
    Ok(Value::Object(map))
}

/// What the apiserver does to a body before storing it (`old`: the stored object, on an
/// update): the CRD schema's defaults, pruning, validation and CEL rules, or a check
/// against the Rust type it was registered from.
fn admit(
    info: &ResourceInfo,
    name: &str,
    object: &mut Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    if let Some(validator) = &info.schema {
        let mut errors = validator.admit(object, old).err().unwrap_or_default();
        if let Some(paths) = &info.scale {
            errors.extend(super::scale::spec_errors(paths, object));
        }
        if !errors.is_empty() {
            return Err(info.invalid_fields(name, &errors));
        }
    }
    match &info.validate {
        Some(check) => check(object).map_err(|why| info.invalid(name, &why)),
        None => Ok(()),
    }
}

/// What the generation tracks: everything but metadata, and but status where status
/// has a subresource of its own.
fn without(object: &Value, info: &ResourceInfo) -> Value {
    let mut rest = object.clone();
    if let Some(map) = rest.as_object_mut() {
        map.remove("metadata");
        if info.status_subresource {
            map.remove("status");
        }
    }
    rest
}

fn set_or_remove(object: &mut Value, field: &str, value: Option<Value>) {
    if let Some(map) = object.as_object_mut() {
        match value {
            Some(v) => {
                map.insert(field.to_owned(), v);
            }
            None => {
                map.remove(field);
            }
        }
    }
}

fn finalizers(object: &Value) -> Vec<Value> {
    object["metadata"]["finalizers"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn id_of(object: &Value) -> (String, String) {
    let meta = &object["metadata"];
    (
        meta["namespace"].as_str().unwrap_or_default().to_owned(),
        meta["name"].as_str().unwrap_or_default().to_owned(),
    )
}

pub(super) fn now() -> Value {
    let time =
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(k8s_openapi::jiff::Timestamp::now());
    serde_json::to_value(time).unwrap_or(Value::Null)
}

/// A deterministic uid, unique within one server.
fn uid(serial: u64) -> String {
    format!("00000000-0000-4000-8000-{serial:012x}")
}

/// Five characters from the apiserver's `generateName` alphabet, from a counter.
fn suffix(mut serial: u64) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5)
        .map(|_| {
            let c = ALPHABET[(serial % ALPHABET.len() as u64) as usize] as char;
            serial /= ALPHABET.len() as u64;
            c
        })
        .collect()
}
