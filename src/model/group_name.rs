//! The API group's name: `+groupName` in a version's files or the group's module file,
//! else the one group its kube-derive kinds agree on; two that disagree are an error.
//! Also the name its generated code is named after: `+groupGoName`, else its directory.

use std::collections::{BTreeMap, BTreeSet};

use super::names;
use super::resolve::Scopes;
use super::{Group, KindStyle};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::{GROUP_GO_NAME, GROUP_NAME, Marker, MarkerDef};
use crate::naming;

/// `+groupName` and `+groupGoName` markers with the file each is in.
pub(super) fn located(file: &str, markers: Vec<Marker>) -> Vec<(String, Marker)> {
    markers
        .into_iter()
        .filter(|m| m.def == &GROUP_NAME || m.def == &GROUP_GO_NAME)
        .map(|m| (file.to_owned(), m))
        .collect()
}

/// The one `+<marker>` of `found` that passes `check`; two that disagree are an error
/// naming both.
fn one_marker<'a>(
    found: &'a [(String, Marker)],
    wanted: &MarkerDef,
    check: impl Fn(&str, &str, Pos) -> Result<(), Diagnostic>,
    diags: &mut Diagnostics,
) -> Option<(&'a str, &'a Marker)> {
    let mut first: Option<(&str, &Marker)> = None;
    for (file, marker) in found.iter().filter(|(_, m)| m.def == wanted) {
        let Some(name) = marker.value.as_str() else {
            continue;
        };
        if let Err(d) = check(name, file, marker.pos) {
            diags.push(d);
            continue;
        }
        match first {
            None => first = Some((file, marker)),
            Some((first_file, first_marker)) => {
                if first_marker.value.as_str() != Some(name) {
                    diags.push(conflict(first_file, first_marker, file, marker));
                }
            }
        }
    }
    first
}

fn conflict(first_file: &str, first: &Marker, file: &str, marker: &Marker) -> Diagnostic {
    let name = |m: &Marker| m.value.as_str().unwrap_or_default().to_owned();
    Diagnostic::error(
        Code::Conflict,
        format!(
            "`+{}={}` disagrees with `+{}={}` at {first_file}:{}:{}",
            marker.name,
            name(marker),
            first.name,
            name(first),
            first.pos.line,
            first.pos.col
        ),
    )
    .at(file, marker.pos)
    .hint(format!("a group has one `+{}`: keep one", marker.name))
}

/// The one marker of a kind of a version, of the group's module file, or of
/// both when they agree.
fn version_or_group_marker<'a>(
    version_level: Option<(&'a str, &'a Marker)>,
    group_level: Option<(&'a str, &'a Marker)>,
    diags: &mut Diagnostics,
) -> Option<(&'a str, &'a Marker)> {
    if let (Some((gf, gm)), Some((vf, vm))) = (group_level, version_level)
        && gm.value != vm.value
    {
        diags.push(conflict(gf, gm, vf, vm));
    }
    version_level.or(group_level)
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
    let check = |name: &str, file: &str, pos| names::check_group(name, crd, file, pos);
    let group_level =
        from_group_file.and_then(|found| one_marker(found, &GROUP_NAME, check, diags));
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for version in group.versions.values() {
        let version_level = one_marker(&version.group_markers, &GROUP_NAME, check, diags);
        let name = version_or_group_marker(version_level, group_level, diags)
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
            None if has(&version.group_markers, &GROUP_NAME)
                || from_group_file.is_some_and(|f| has(f, &GROUP_NAME)) => {}
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

fn has(found: &[(String, Marker)], wanted: &MarkerDef) -> bool {
    found.iter().any(|(_, m)| m.def == wanted)
}

/// What the group's generated accessors and types are named after (`example_group_v1()`,
/// `ExampleGroupV1Client`): its `+groupGoName`, as client-gen reads it, for a group whose
/// directory is not the name its users know it by; else its directory. Every version
/// must agree, since the clientset and informer factory name the group once; `taken`
/// holds the names earlier groups took (two groups cannot share one).
pub(super) fn code_name(
    group: &Group,
    from_group_file: Option<&Vec<(String, Marker)>>,
    taken: &mut BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> String {
    let group_level = from_group_file
        .and_then(|found| one_marker(found, &GROUP_GO_NAME, names::check_group_go_name, diags));
    let mut found: BTreeMap<String, (&str, &Marker)> = BTreeMap::new();
    for version in group.versions.values() {
        let version_level = one_marker(
            &version.group_markers,
            &GROUP_GO_NAME,
            names::check_group_go_name,
            diags,
        );
        if let Some(at) = version_or_group_marker(version_level, group_level, diags) {
            found.insert(version.name.clone(), at);
        }
    }
    let mut agreed: Option<(&str, &Marker)> = None;
    for &(file, marker) in found.values() {
        match agreed {
            Some((first_file, first)) if first.value != marker.value => {
                diags.push(conflict(first_file, first, file, marker));
            }
            Some(_) => {}
            None => agreed = Some((file, marker)),
        }
    }
    // A version without the marker while another has it would name the group twice.
    // (One with an invalid marker has been reported already.)
    let bare: Vec<&str> = group
        .versions
        .values()
        .filter(|v| {
            !has(&v.group_markers, &GROUP_GO_NAME)
                && !from_group_file.is_some_and(|f| has(f, &GROUP_GO_NAME))
        })
        .map(|v| v.name.as_str())
        .collect();
    if let Some((file, marker)) = agreed
        && !bare.is_empty()
    {
        diags.push(
            Diagnostic::error(
                Code::Conflict,
                format!(
                    "`+groupGoName` is set for some versions of `{}` but not for {}",
                    group.dir,
                    bare.join(", ")
                ),
            )
            .at(file, marker.pos)
            .hint("put `+groupGoName` in the group's mod.rs, where every version sees it"),
        );
    }
    let name = agreed
        .and_then(|(_, m)| m.value.as_str())
        .unwrap_or(&group.dir)
        .to_owned();
    if let Some(other) = taken.insert(naming::informer::group_accessor(&name), group.dir.clone()) {
        let clash = Diagnostic::error(
            Code::Conflict,
            format!(
                "groups `{other}` and `{}` would both name their generated code `{name}`",
                group.dir
            ),
        )
        .hint("give one of them another `+groupGoName`");
        diags.push(match agreed {
            Some((file, marker)) => clash.at(file, marker.pos),
            None => clash.at_path(group.dir.clone()),
        });
    }
    name
}
