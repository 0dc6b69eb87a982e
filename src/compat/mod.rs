//! `crdgen compat`: CRDs as released against CRDs as they would be now, and every change
//! that would break a user: a cluster's stored objects refused or read differently, or a
//! client's request no longer answered. Each finding is one of the rules of
//! [`rules::RULES`], at a CRD, a version and a schema path, with the old and new value,
//! and where the new one comes from (the CRD file, or the Rust source that makes it).

mod git;
mod locate;
mod report;
pub mod rules;
mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

pub use git::{Changed, Reader, at_revision};
pub use locate::locate;
pub use report::{Format, Report};
pub use rules::Config;

use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::import::read;

/// One change a rule judges, before it is placed in a CRD and version.
pub struct Change {
    pub code: Code,
    /// The schema path: `.spec.size`, `.spec.parts[*].name`, `.spec.labels.*`; empty
    /// for a change of the CRD itself.
    pub path: String,
    pub message: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// A change, where it is.
pub struct Finding {
    pub change: Change,
    /// The CRD's name, `widgets.shop.example.com`.
    pub crd: String,
    pub version: Option<String>,
    /// Where the new side is written: the CRD file's document, or (see [`locate`]) the
    /// Rust field or marker that makes it. The old side's, when there is no new side.
    pub at: (String, Pos),
}

/// A set of CRD files as texts: (the name shown for the file, its text).
pub type Texts = Vec<(String, String)>;

/// The findings of NEW against OLD. Files of the same name and text on both sides are
/// passed over unread; the others are read as `crdgen import` reads CRDs, and paired by
/// CRD name. What does not read as CRDs is an error in `diags`.
pub fn compare(old: &Texts, new: &Texts, diags: &mut Diagnostics) -> Vec<Finding> {
    let same: BTreeSet<(&str, &str)> = old.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let (unchanged_new, changed_new): (Vec<&(String, String)>, Vec<_>) = new
        .iter()
        .partition(|(name, text)| same.contains(&(name.as_str(), text.as_str())));
    let unchanged: BTreeSet<&str> = unchanged_new
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    let mut old_crds = Vec::new();
    for (name, text) in old
        .iter()
        .filter(|(name, _)| !unchanged.contains(name.as_str()))
    {
        read::documents(name, text, &mut old_crds, diags);
    }
    let mut new_crds = Vec::new();
    for (name, text) in changed_new {
        read::documents(name, text, &mut new_crds, diags);
    }
    // A CRD read on one side only may be in an unchanged file on the other: read those.
    let by_name = |found: &[read::Found]| -> BTreeMap<String, usize> {
        found
            .iter()
            .enumerate()
            .map(|(i, f)| (f.crd_name(), i))
            .collect()
    };
    let (old_names, new_names) = (by_name(&old_crds), by_name(&new_crds));
    if old_names.keys().any(|n| !new_names.contains_key(n)) {
        for (name, text) in unchanged_new {
            read::documents(name, text, &mut new_crds, diags);
        }
    }
    let new_names = by_name(&new_crds);
    let mut findings = Vec::new();
    let texts: BTreeMap<&str, &str> = old
        .iter()
        .chain(new)
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    for (name, &i) in &old_names {
        let old = &old_crds[i];
        match new_names.get(name) {
            Some(&j) => crd(name, old, &new_crds[j], &mut findings),
            None => findings.push(Finding {
                change: Change {
                    code: Code::CrdRemoved,
                    path: String::new(),
                    message: "the CRD is removed (a CRD is named PLURAL.GROUP: a changed group or plural is a new CRD)".to_owned(),
                    old: Some(Value::from(name.as_str())),
                    new: None,
                },
                crd: name.clone(),
                version: None,
                at: (old.file.clone(), old.pos),
            }),
        }
    }
    for finding in &mut findings {
        if let Some(text) = texts.get(finding.at.0.as_str()) {
            finding.at.1 = place(finding, text);
        }
    }
    findings
}

/// Where in its CRD file a finding's node is: the version's schema node, its CRD's
/// field (scope, names), the nearest enclosing node that is there.
fn place(finding: &Finding, text: &str) -> Pos {
    use crate::yaml::Step;
    let mut steps = vec![Step::Key("spec")];
    let change = &finding.change;
    match (&finding.version, change.code) {
        (_, Code::CrdRemoved) => steps = vec![Step::Key("metadata"), Step::Key("name")],
        (_, Code::ScopeChanged) => steps.push(Step::Key("scope")),
        (_, Code::KindChanged) => steps.push(Step::Key("names")),
        (Some(version), _) => {
            steps.push(Step::Key("versions"));
            steps.push(Step::Item {
                key: "name",
                value: version,
            });
            steps.extend([Step::Key("schema"), Step::Key("openAPIV3Schema")]);
            for step in self::steps(&change.path) {
                match step {
                    "[*]" => steps.push(Step::Key("items")),
                    "*" => steps.push(Step::Key("additionalProperties")),
                    name => steps.extend([Step::Key("properties"), Step::Key(name)]),
                }
            }
        }
        (None, _) => steps.push(Step::Key("versions")),
    }
    let (line, col) = crate::yaml::place(text, finding.at.1.line, &steps);
    Pos { line, col }
}

/// The findings of one CRD, old against new.
fn crd(name: &str, old: &read::Found, new: &read::Found, out: &mut Vec<Finding>) {
    let at = (new.file.clone(), new.pos);
    let mut push = |version: Option<&str>, change: Change| {
        out.push(Finding {
            change,
            crd: name.to_owned(),
            version: version.map(str::to_owned),
            at: at.clone(),
        });
    };
    let whole = |code, message: String, old: &str, new: &str| Change {
        code,
        path: String::new(),
        message,
        old: Some(Value::from(old)),
        new: Some(Value::from(new)),
    };
    let (o, n) = (&old.crd.spec, &new.crd.spec);
    if o.scope != n.scope {
        push(
            None,
            whole(
                Code::ScopeChanged,
                format!("its scope changed from {} to {}", o.scope, n.scope),
                &o.scope,
                &n.scope,
            ),
        );
    }
    let list_kind = |s: &crate::import::crd::Spec| {
        s.names
            .list_kind
            .clone()
            .unwrap_or_else(|| format!("{}List", s.names.kind))
    };
    for (what, a, b) in [
        ("kind", o.names.kind.clone(), n.names.kind.clone()),
        ("listKind", list_kind(o), list_kind(n)),
    ] {
        if a != b {
            push(
                None,
                whole(
                    Code::KindChanged,
                    format!("its {what} changed from {a} to {b}"),
                    &a,
                    &b,
                ),
            );
        }
    }
    let storage = |s: &crate::import::crd::Spec| {
        s.versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.clone())
            .unwrap_or_default()
    };
    let (old_storage, new_storage) = (storage(o), storage(n));
    let converts = n
        .conversion
        .as_ref()
        .is_some_and(|c| c.strategy == "Webhook");
    if old_storage != new_storage && !converts {
        push(
            None,
            whole(
                Code::StorageVersionChanged,
                format!(
                    "its storage version changed from {old_storage} to {new_storage} with no conversion webhook: objects stored as {old_storage} are read as {new_storage} unchanged"
                ),
                &old_storage,
                &new_storage,
            ),
        );
    }
    let stored: Vec<String> = old
        .raw
        .pointer("/status/storedVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    for version in stored
        .iter()
        .filter(|s| !n.versions.iter().any(|v| &v.name == *s))
    {
        push(
            Some(version),
            whole(
                Code::StoredVersionRemoved,
                format!(
                    "version {version} is removed while objects are stored in it (status.storedVersions): migrate them and drop it from storedVersions first"
                ),
                version,
                "",
            ),
        );
    }
    for (i, ov) in o.versions.iter().enumerate() {
        let nv = n.versions.iter().position(|v| v.name == ov.name);
        match nv {
            None if ov.served => push(
                Some(&ov.name),
                whole(
                    Code::VersionRemoved,
                    format!("served version {} is removed", ov.name),
                    &ov.name,
                    "",
                ),
            ),
            Some(j) if ov.served && !n.versions[j].served => push(
                Some(&ov.name),
                whole(
                    Code::VersionRemoved,
                    format!("version {} is no longer served", ov.name),
                    &ov.name,
                    &ov.name,
                ),
            ),
            Some(j) => {
                let schema = |found: &read::Found, k: usize| {
                    found
                        .raw
                        .pointer(&format!("/spec/versions/{k}/schema/openAPIV3Schema"))
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                let mut changes = Vec::new();
                schema::node("", &schema(old, i), &schema(new, j), &mut changes);
                let status = |found: &read::Found, k: usize| {
                    found
                        .raw
                        .pointer(&format!("/spec/versions/{k}/subresources/status"))
                        .is_some()
                };
                if status(old, i) && !status(new, j) {
                    changes.push(Change {
                        code: Code::SchemaChanged,
                        path: String::new(),
                        message: "its status subresource is removed: `/status` no longer answers"
                            .to_owned(),
                        old: Some(Value::from("status")),
                        new: None,
                    });
                }
                for change in changes {
                    push(Some(&ov.name), change);
                }
            }
            None => {}
        }
    }
}

/// The steps of a schema path: `.spec.parts[*].name` is spec, parts, [*], name.
fn steps(path: &str) -> impl Iterator<Item = &str> {
    path.split('.')
        .filter(|s| !s.is_empty())
        .flat_map(|s| match s.strip_suffix("[*]") {
            Some(name) => vec![name, "[*]"],
            None => vec![s],
        })
        .filter(|s| !s.is_empty())
}

/// The CRD files of `path` on disk (a file, or a directory's YAML and JSON files), each
/// named `named_as` joined with its path below `path`, with `/`; with `only`, those
/// names alone. A directory without any holds no CRDs.
pub fn on_disk(
    path: &Path,
    named_as: &Path,
    only: Option<&BTreeSet<String>>,
) -> Result<Texts, Diagnostic> {
    let mut diags = Diagnostics::default();
    let files = read::files(path, &mut diags);
    if files.is_empty() && path.is_dir() {
        return Ok(Vec::new());
    }
    if let Some(e) = diags.into_sorted().into_iter().next() {
        return Err(e);
    }
    let mut texts = Vec::new();
    for file in files {
        let below = file.strip_prefix(path).unwrap_or(&file);
        let name = shown(&named_as.join(below));
        if only.is_some_and(|only| !only.contains(&name)) {
            continue;
        }
        let text = crate::source::read_text(&file, read::MAX_INPUT_BYTES).map_err(|e| {
            Diagnostic::error(e.code(Code::Io), format!("cannot read `{name}`: {e}"))
                .at_path(&name)
                .hint("crdgen reads CRD files as UTF-8 YAML or JSON")
        })?;
        texts.push((name, text));
    }
    Ok(texts)
}

/// A path as git and diagnostics write it: with `/`, and no `/` after a file's name.
pub fn shown(path: &Path) -> String {
    path.to_string_lossy()
        .replace('\\', "/")
        .trim_end_matches('/')
        .to_owned()
}
