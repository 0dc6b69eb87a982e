//! The versions of one CRD's kind: its objects kept once, at the version it stores,
//! and converted as kube-apiserver converts them with the `None` strategy. A write at
//! another version is admitted by that version's schema, then gets the storage
//! version's `apiVersion`, its pruning and its defaults before it is kept; a read at
//! another version (get, list, watch, a write's answer) gets that version's
//! `apiVersion` and its pruning, not its defaults. A field only one version knows so
//! does not survive a write at the other, as on a cluster.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::watch::Event;
use super::{ResourceKey, Storage};

impl Storage {
    /// The resource `key`'s objects are kept at: its storage version's (`key` itself
    /// for the storage version and for a resource that is not a CRD's).
    pub(super) fn home<'k>(&self, key: &'k ResourceKey) -> Cow<'k, ResourceKey> {
        let stored_at = self
            .resources
            .get(key)
            .and_then(|c| c.info.stored_at.as_ref())
            .filter(|version| **version != key.1);
        match stored_at {
            Some(version) => Cow::Owned((key.0.clone(), version.clone(), key.2.clone())),
            None => Cow::Borrowed(key),
        }
    }

    /// An object written at `key`'s version as it is kept.
    pub(super) fn to_storage(&self, key: &ResourceKey, object: Value) -> Value {
        self.convert(key, &self.home(key), object, true)
    }

    /// A kept object as `key`'s version serves it.
    pub(super) fn present(&self, key: &ResourceKey, object: Value) -> Value {
        self.convert(&self.home(key), key, object, false)
    }

    /// A kept event as the watchers of `key`'s version see it: as kept, without a
    /// copy, where `key` is the version it is kept at.
    pub(super) fn seen_by<'e>(&self, key: &ResourceKey, event: &'e Event) -> Cow<'e, Event> {
        if *key == event.key {
            return Cow::Borrowed(event);
        }
        Cow::Owned(Event {
            old: event.old.clone().map(|o| self.present(key, o)),
            object: self.present(key, event.object.clone()),
            ..event.clone()
        })
    }

    fn convert(
        &self,
        from: &ResourceKey,
        to: &ResourceKey,
        mut object: Value,
        stored: bool,
    ) -> Value {
        if from == to {
            return object;
        }
        let Some(info) = self.resources.get(to).map(|c| &c.info) else {
            return object;
        };
        object["apiVersion"] = json!(info.api_version());
        if let Some(schema) = &info.schema {
            schema.convert_into(&mut object, stored);
        }
        object
    }
}
