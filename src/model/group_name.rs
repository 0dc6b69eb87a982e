//! The API group's name: `+groupName` in a version's files or the group's module file,
//! else the one group its kube-derive kinds agree on; two that disagree are an error.

use std::collections::{BTreeMap, BTreeSet};

use super::names;
use super::resolve::Scopes;
use super::{Group, KindStyle};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::Marker;

/// `+groupName` markers with the file each is in.
pub(super) fn located(file: &str, markers: Vec<Marker>) -> Vec<(String, Marker)> {
    markers
        .into_iter()
        .filter(|m| m.name == "groupName")
        .map(|m| (file.to_owned(), m))
        .collect()
}

/// The one `+groupName` of `found`, checked; two that disagree are an error naming both.
pub(super) fn one_group_name<'a>(
    found: &'a [(String, Marker)],
    crd: bool,
    diags: &mut Diagnostics,
) -> Option<(&'a str, &'a Marker)> {
    let mut first: Option<(&str, &Marker)> = None;
    for (file, marker) in found {
        let Some(name) = marker.value.as_str() else {
            continue;
        };
        if let Err(d) = names::check_group(name, crd, file, marker.pos) {
            diags.push(d);
            continue;
        }
        match first {
            None => first = Some((file, marker)),
            Some((first_file, first_marker)) => {
                if first_marker.value.as_str() != Some(name) {
                    diags.push(group_conflict(first_file, first_marker, file, marker));
                }
            }
        }
    }
    first
}

pub(super) fn group_conflict(
    first_file: &str,
    first: &Marker,
    file: &str,
    marker: &Marker,
) -> Diagnostic {
    let name = |m: &Marker| m.value.as_str().unwrap_or_default().to_owned();
    Diagnostic::error(
        Code::Conflict,
        format!(
            "`+groupName={}` disagrees with `+groupName={}` at {first_file}:{}:{}",
            name(marker),
            name(first),
            first.pos.line,
            first.pos.col
        ),
    )
    .at(file, marker.pos)
    .hint("a group version has one API group: keep one `+groupName`")
}

/// The group's DNS name: `+groupName` in a version's files, else in the group's module
/// file, else the one group its kube-derive kinds agree on.
pub(super) fn group_name(
    group: &Group,
    from_group_file: Option<&Vec<(String, Marker)>>,
    crd: bool,
    scopes: &Scopes,
    diags: &mut Diagnostics,
) -> String {
    let group_level = from_group_file.and_then(|found| one_group_name(found, crd, diags));
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for version in group.versions.values() {
        let version_level = one_group_name(&version.group_names, crd, diags);
        if let (Some((gf, gm)), Some((vf, vm))) = (group_level, version_level)
            && gm.value != vm.value
        {
            diags.push(group_conflict(gf, gm, vf, vm));
        }
        let name = version_level
            .or(group_level)
            .and_then(|(_, m)| m.value.as_str())
            .map(str::to_owned)
            .or_else(|| {
                let groups: BTreeSet<&str> = version
                    .kinds
                    .values()
                    .filter(|k| k.style == KindStyle::KubeDerive)
                    .filter_map(|k| version.types.get(&k.spec_key()?.id())?.kube.as_ref())
                    .map(|a| a.group.as_str())
                    .collect();
                (groups.len() == 1)
                    .then(|| groups.into_iter().next().unwrap_or_default().to_owned())
            });
        match name {
            Some(name) => {
                names.insert(version.name.clone(), name);
            }
            // A `+groupName` that is there but invalid has been reported already.
            None if !version.group_names.is_empty()
                || from_group_file.is_some_and(|f| !f.is_empty()) => {}
            None => {
                let module_file = scopes
                    .get(&(group.dir.clone(), version.name.clone(), None))
                    .map(|s| s.path.clone())
                    .unwrap_or_else(|| format!("{}/{}/mod.rs", group.dir, version.name));
                diags.push(
                    Diagnostic::error(Code::MissingGroupName, format!("no API group name for `{}/{}`", group.dir, version.name))
                        .at(&module_file, Pos { line: 1, col: 1 })
                        .hint(format!("add `//! +groupName={}.example.com` at the top of this file (or of the group's mod.rs)", group.dir)),
                );
            }
        }
    }
    let distinct: BTreeSet<&String> = names.values().collect();
    if distinct.len() > 1 {
        let listed: Vec<String> = names.iter().map(|(v, n)| format!("{v}: {n}")).collect();
        diags.push(
            Diagnostic::error(
                Code::Conflict,
                format!(
                    "versions of group `{}` disagree on its name ({})",
                    group.dir,
                    listed.join(", ")
                ),
            )
            .at_path(group.dir.clone())
            .hint("every version of a group directory belongs to one API group"),
        );
    }
    names.into_values().next().unwrap_or_default()
}
