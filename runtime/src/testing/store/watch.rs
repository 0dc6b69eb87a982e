//! Lists and watches: label and field selectors, paging with continue tokens, and the
//! watch history that lets a watcher resume from a resource version, with bookmarks.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::super::selector::{FieldSelector, LabelSelector};
use super::super::status::ApiError;
use super::*;

/// A list or watch query.
#[derive(Default)]
pub(crate) struct Query {
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
}

impl Query {
    pub(super) fn matches(&self, object: &Value) -> bool {
        let namespace_ok = self
            .namespace
            .as_deref()
            .is_none_or(|ns| object["metadata"]["namespace"].as_str() == Some(ns));
        namespace_ok && self.fields.matches(object) && self.labels.matches(&labels(object))
    }
}

pub(super) fn labels(object: &Value) -> BTreeMap<String, String> {
    object["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

#[derive(Clone)]
pub(super) struct Event {
    pub(super) rv: u64,
    pub(super) key: ResourceKey,
    pub(super) kind: EventType,
    pub(super) old: Option<Value>,
    pub(super) object: Value,
}

pub(super) struct Watcher {
    pub(super) key: ResourceKey,
    pub(super) query: Query,
    pub(super) bookmarks: bool,
    pub(super) tx: mpsc::UnboundedSender<Value>,
}

impl Storage {
    pub fn list(&self, key: &ResourceKey, query: &Query) -> Result<Value, ApiError> {
        let info = self.info(key)?;
        let (list_rv, after) = match &query.continue_token {
            Some(token) => {
                let (rv, after) = parse_continue(token)?;
                if rv < self.compacted {
                    return Err(ApiError::new(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    ));
                }
                (rv, Some(after))
            }
            None => (self.rv, None),
        };
        let mut matching = self.resources[&self.home(key)]
            .objects
            .iter()
            .filter(|(id, _)| after.as_ref().is_none_or(|a| *id > a))
            .filter(|(_, o)| query.matches(o));
        let limit = query.limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
        let mut items = Vec::new();
        let mut last = None;
        for (id, object) in matching.by_ref().take(limit) {
            items.push(self.present(key, object.clone()));
            last = Some(id);
        }
        let remaining = matching.count();
        let more = (remaining > 0).then(|| {
            let (ns, name) = last.expect("a full page has a last item");
            (format!("{list_rv}/{ns}/{name}"), remaining)
        });
        // The apiserver counts what is left only of a list it does not filter.
        let selected =
            query.labels != LabelSelector::default() || query.fields != FieldSelector::default();
        Ok(list_body(info, list_rv, items, more, !selected))
    }

    /// Starts a watch. The receiver yields watch events as JSON until the watch is
    /// broken or the receiver dropped.
    pub fn watch(
        &mut self,
        key: &ResourceKey,
        query: Query,
        resource_version: Option<&str>,
        bookmarks: bool,
        send_initial_events: bool,
    ) -> Result<mpsc::UnboundedReceiver<Value>, ApiError> {
        let info = self.info(key)?.clone();
        if self.outage {
            return Err(ApiError::new(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request",
            ));
        }
        *self.watch_counts.entry(key.clone()).or_default() += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        let from =
            match resource_version {
                None | Some("") | Some("0") => None,
                Some(rv) => Some(rv.parse::<u64>().map_err(|_| {
                    ApiError::bad_request(format!("invalid resource version: {rv}"))
                })?),
            };
        let oldest = self.compacted.max(self.resources[key].since);
        match from {
            Some(rv) if rv < oldest => {
                let gone = ApiError::new(
                    410,
                    "Expired",
                    format!("too old resource version: {rv} ({oldest})"),
                );
                let _ = tx.send(json!({"type": "ERROR", "object": gone.to_status()}));
                return Ok(rx);
            }
            Some(rv) => {
                let home = self.home(key);
                for event in self.history.iter().filter(|e| e.rv > rv && e.key == *home) {
                    if let Some(frame) = frame_for(&query, &self.seen_by(key, event)) {
                        let _ = tx.send(frame);
                    }
                }
            }
            None => {
                for object in self.resources[&self.home(key)]
                    .objects
                    .values()
                    .filter(|o| query.matches(o))
                {
                    let object = self.present(key, object.clone());
                    let _ = tx.send(json!({"type": "ADDED", "object": object}));
                }
            }
        }
        if bookmarks {
            let _ = tx.send(bookmark(
                &info,
                self.rv,
                send_initial_events && from.is_none(),
            ));
        }
        self.watchers.push(Watcher {
            key: key.clone(),
            query,
            bookmarks,
            tx,
        });
        Ok(rx)
    }

    /// Ends every open watch, as a restarting apiserver or a dropped connection would.
    pub fn break_watches(&mut self) {
        self.watchers.clear();
    }

    /// Refuses (`true`) or again accepts watch requests.
    pub fn set_outage(&mut self, outage: bool) {
        self.outage = outage;
        if outage {
            self.watchers.clear();
        }
    }

    pub fn watch_count(&self, key: &ResourceKey) -> usize {
        self.watch_counts.get(key).copied().unwrap_or_default()
    }

    /// Forgets the event history: a watch or continue token from before now gets 410.
    pub fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.rv;
    }

    /// Sends a BOOKMARK with the current resource version to every watch that asked.
    pub fn send_bookmarks(&mut self) {
        let rv = self.rv;
        let resources = &self.resources;
        self.watchers.retain(|w| {
            !w.bookmarks
                || w.tx
                    .send(bookmark(&resources[&w.key].info, rv, false))
                    .is_ok()
        });
    }
}

/// The watch event a watcher with `query` sees for `event`: an update that moves an
/// object into or out of the selection is an ADDED or a DELETED, as the apiserver sends.
pub(super) fn frame_for(query: &Query, event: &Event) -> Option<Value> {
    let now = query.matches(&event.object);
    let before = event.old.as_ref().is_some_and(|o| query.matches(o));
    let kind = match (event.kind, before, now) {
        (EventType::Modified, false, true) => EventType::Added,
        (EventType::Modified, true, false) => EventType::Deleted,
        (EventType::Modified, false, false) => return None,
        (kind, _, true) => kind,
        (EventType::Deleted, true, false) => EventType::Deleted,
        _ => return None,
    };
    Some(json!({"type": kind.as_str(), "object": event.object}))
}

pub(super) fn bookmark(info: &ResourceInfo, rv: u64, initial_events_end: bool) -> Value {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({"type": "BOOKMARK", "object": {"apiVersion": info.api_version(), "kind": info.kind, "metadata": metadata}})
}

/// A list's body: its `items`, and `more` (the continue token and how many are left,
/// said where `counted`) when there is another page.
pub(super) fn list_body(
    info: &ResourceInfo,
    rv: u64,
    items: Vec<Value>,
    more: Option<(String, usize)>,
    counted: bool,
) -> Value {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    match more {
        Some((token, remaining)) => {
            metadata["continue"] = json!(token);
            if counted {
                metadata["remainingItemCount"] = json!(remaining);
            }
        }
        // An unstructured list sets its continue token even when there is none.
        None if info.custom() => metadata["continue"] = json!(""),
        None => {}
    }
    json!({"apiVersion": info.api_version(), "kind": format!("{}List", info.kind), "metadata": metadata, "items": items})
}

pub(super) fn parse_continue(token: &str) -> Result<(u64, (String, String)), ApiError> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token}"));
    let mut parts = token.splitn(3, '/');
    let rv = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    let ns = parts.next().ok_or_else(bad)?.to_owned();
    let name = parts.next().ok_or_else(bad)?.to_owned();
    Ok((rv, (ns, name)))
}
