//! Facts derived from a kind's markers, computed here once for every generator that
//! asks (as bindgen's `ir/analysis`): whether a version is served, which version stores,
//! whether it converts by webhook, and the verbs of its client.

use std::collections::BTreeSet;

use super::{Kind, KindStyle};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{self, Marker, MarkerDef, Value};

impl Kind {
    /// Whether this version of the kind is in its CRD (not `+kubebuilder:skipversion`).
    pub fn is_served(&self) -> bool {
        !markers::SKIP_VERSION.is_set(&self.markers)
    }

    /// Whether the kind converts between its versions by webhook
    /// (`+crdgen:conversion:webhook` on any of its versions).
    pub fn converts_by_webhook(&self) -> bool {
        markers::CONVERSION_WEBHOOK.is_set(&self.markers)
    }
}

/// Which of a kind's served versions (name, kind) stores its objects: the one marked
/// `+kubebuilder:storageversion`, or the only one; why none does when it is not clear;
/// `None` for no version at all.
pub fn storage_version(versions: &[(&str, &Kind)]) -> Option<Result<usize, Diagnostic>> {
    let (_, first) = versions.first()?;
    let marked: Vec<usize> = (0..versions.len())
        .filter(|&i| markers::STORAGE_VERSION.is_set(&versions[i].1.markers))
        .collect();
    Some(match (versions.len(), marked.as_slice()) {
        (1, _) => Ok(0),
        (_, [one]) => Ok(*one),
        (_, marked) => {
            let names: Vec<&str> = versions.iter().map(|(name, _)| *name).collect();
            let why = if marked.is_empty() {
                "none is marked"
            } else {
                "several are marked"
            };
            Err(Diagnostic::error(
                Code::Conflict,
                format!(
                    "kind `{}` has versions {} and {why} as the storage version",
                    first.name,
                    names.join(", ")
                ),
            )
            .at(&first.file, first.pos)
            .hint(match first.style {
                // kube-derive stores every version unless told otherwise.
                KindStyle::KubeDerive => "kube-derive makes every version a storage version unless it says `#[kube(storage = false)]`: write that on all versions but one",
                KindStyle::Markers => "mark exactly one version's kind `+kubebuilder:storageversion`",
            }))
        }
    })
}

/// client-gen's verbs, in its spelling (used by `onlyVerbs` and `skipVerbs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    Create,
    Update,
    UpdateStatus,
    Delete,
    DeleteCollection,
    Get,
    List,
    Watch,
    Patch,
    Apply,
    ApplyStatus,
}

const VERBS: [(Verb, &str); 11] = [
    (Verb::Create, "create"),
    (Verb::Update, "update"),
    (Verb::UpdateStatus, "updateStatus"),
    (Verb::Delete, "delete"),
    (Verb::DeleteCollection, "deleteCollection"),
    (Verb::Get, "get"),
    (Verb::List, "list"),
    (Verb::Watch, "watch"),
    (Verb::Patch, "patch"),
    (Verb::Apply, "apply"),
    (Verb::ApplyStatus, "applyStatus"),
];

impl Kind {
    /// The verbs the kind's client gets, from its `+genclient` markers, as client-gen
    /// reads them; an unknown verb is reported and left out.
    pub fn verbs(&self, diags: &mut Diagnostics) -> BTreeSet<Verb> {
        let kind = self;
        let find = |marker: &MarkerDef| kind.markers.iter().rev().find(|m| m.def == marker);
        let flag = |marker: &MarkerDef| marker.is_set(&kind.markers);
        let mut parse = |marker: &Marker| -> BTreeSet<Verb> {
            let Value::List(names) = &marker.value else {
                return BTreeSet::new();
            };
            names
                .iter()
                .filter_map(|name| match VERBS.iter().find(|(_, n)| n == name) {
                    Some((verb, _)) => Some(*verb),
                    None => {
                        let valid: Vec<&str> = VERBS.iter().map(|(_, n)| *n).collect();
                        diags.push(
                            Diagnostic::error(
                                Code::BadMarkerArgument,
                                format!("`+{}` names an unknown verb `{name}`", marker.name),
                            )
                            .at(&kind.file, marker.pos)
                            .hint(format!("client-gen's verbs are {}", valid.join(", "))),
                        );
                        None
                    }
                })
                .collect()
        };
        let mut verbs: BTreeSet<Verb> = if flag(&markers::NO_VERBS) {
            BTreeSet::new()
        } else if flag(&markers::READONLY) {
            BTreeSet::from([Verb::Get, Verb::List, Verb::Watch])
        } else if let Some(only) = find(&markers::ONLY_VERBS) {
            parse(only)
        } else {
            VERBS.iter().map(|(v, _)| *v).collect()
        };
        if let Some(skip) = find(&markers::SKIP_VERBS) {
            for verb in parse(skip) {
                verbs.remove(&verb);
            }
        }
        if !kind.has_status_client() {
            verbs.remove(&Verb::UpdateStatus);
            verbs.remove(&Verb::ApplyStatus);
        }
        verbs
    }

    /// Whether the kind's client reaches its status: it has one, and is not marked
    /// `+genclient:noStatus`.
    pub fn has_status_client(&self) -> bool {
        self.status.is_some() && !markers::NO_STATUS.is_set(&self.markers)
    }
}
