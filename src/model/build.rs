//! Builds the model from parsed files: walks each group version's files (module
//! declarations, visibility, re-exports, the type index), resolves field types, finds
//! the kinds (marker-style in `kinds`, kube-derive in `derive`), names each group
//! (`group_name`) and runs the checks that need the whole model (`names`).

use std::collections::{BTreeMap, BTreeSet};

use super::aliases::Aliases;
use super::derive::{check_derive_groups, derive_kind};
use super::fields::finish_body;
use super::group_name::{code_name, group_name, located};
use super::kinds::marker_kind;
use super::names;
use super::parsed::{ParsedFile, ParsedGroup, UseEntry};
use super::resolve::{FileScope, Resolver, Scope, Scopes, TypeIndex, scope_key};
use super::{Alias, Group, Kind, Model, Version, Visibility};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::{self, Marker};
use crate::naming;
use crate::options::Options;

/// Builds the model. Problems go to `diags`; the model is only meaningful when none
/// of them is an error.
pub fn build(groups: Vec<ParsedGroup>, opts: &Options, diags: &mut Diagnostics) -> Model {
    let mut model = Model::default();
    let mut group_markers: BTreeMap<String, Vec<(String, Marker)>> = BTreeMap::new();
    let mut versions = Vec::new();
    for group in groups {
        if let Some(file) = &group.module_file {
            let package = package_markers(file, diags);
            group_markers.insert(group.dir.clone(), located(&file.path, package));
        }
        versions.extend(group.versions.into_iter().map(|v| (group.dir.clone(), v)));
        model.groups.insert(
            group.dir.clone(),
            Group {
                dir: group.dir,
                name: String::new(),
                code_name: String::new(),
                versions: BTreeMap::new(),
            },
        );
    }

    // Group versions are independent until their field types are resolved, which needs
    // every type: each is built on its own core, with its own part of the type index and
    // of the scopes, merged afterwards (their paths never overlap).
    let built = crate::parallel::map_owned(versions, |(group, version)| {
        let (mut index, mut scopes) = (TypeIndex::default(), Scopes::new());
        let mut found = Diagnostics::default();
        let mut aliases = Vec::new();
        let built = build_version(
            &group,
            &version.name,
            version.files,
            &mut index,
            &mut scopes,
            &mut aliases,
            &mut found,
        );
        (group, built, index, scopes, aliases, found)
    });
    let mut index = TypeIndex::default();
    let mut scopes = Scopes::new();
    let mut versions = Vec::new();
    let mut aliases = Aliases::default();
    for (group, version, part, part_scopes, part_aliases, found) in built {
        index.merge(part);
        scopes.extend(part_scopes);
        diags.extend(found.into_sorted());
        versions.push((group, version));
        for alias in part_aliases {
            aliases.insert(alias);
        }
    }

    let resolver = Resolver {
        index: &index,
        apis_module: &opts.apis_module,
    };
    aliases.resolve(&resolver, &scopes);
    let resolved = crate::parallel::map_owned(versions, |(group, mut version)| {
        for ty in version.types.values_mut() {
            let Some(file) = scopes.get(&scope_key(&ty.key)) else {
                continue;
            };
            if let Some(wire) = &mut ty.serde.wire {
                resolver.resolve(wire, &file.scope);
                aliases.expand(wire);
            }
            for field in ty.body.fields_mut() {
                resolver.resolve(&mut field.ty, &file.scope);
                field.aliased = aliases.written(&field.ty).map(Box::new);
                aliases.expand(&mut field.ty);
            }
        }
        version.aliases = aliases.described(&group, &version.name);
        (group, version)
    });
    for (group, version) in resolved {
        // `+kubebuilder:skip` on a version's package: no generator sees it.
        if crate::markers::SKIP.is_set(&version.markers) {
            continue;
        }
        if let Some(group) = model.groups.get_mut(&group) {
            group.versions.insert(version.name.clone(), version);
        }
    }

    let mut code_names = BTreeMap::new();
    for group in model.groups.values_mut() {
        let from_group_file = group_markers.get(&group.dir);
        for version in group.versions.values_mut() {
            find_kinds(version, &resolver, &scopes, opts, diags);
        }
        let crd = opts.generators.contains(&crate::options::Generator::Crd);
        group.name = group_name(group, from_group_file, crd, &scopes, diags);
        group.code_name = code_name(group, from_group_file, &mut code_names, diags);
        for version in group.versions.values() {
            check_derive_groups(&group.name, version, diags);
        }
        names::check_collisions(group, diags);
    }
    model
}

fn build_version(
    group: &str,
    version: &str,
    files: Vec<ParsedFile>,
    index: &mut TypeIndex,
    scopes: &mut Scopes,
    aliases: &mut Vec<Alias>,
    diags: &mut Diagnostics,
) -> Version {
    let mut out = Version {
        name: version.to_owned(),
        markers: Vec::new(),
        group_markers: Vec::new(),
        kinds: BTreeMap::new(),
        types: BTreeMap::new(),
        aliases: BTreeMap::new(),
    };
    let module_file = files.iter().find(|f| f.module.is_none());
    let module_file_path = module_file.map(|f| f.path.clone());
    let declared: BTreeMap<String, Visibility> = module_file
        .map(|f| {
            f.mods
                .iter()
                .map(|m| (m.name.clone(), m.visibility))
                .collect()
        })
        .unwrap_or_default();
    // `pub use file::*` / `pub use file::Name` in the version's module file.
    let reexports: Vec<UseEntry> = module_file
        .map(|f| {
            f.uses
                .iter()
                .filter(|u| u.visibility.crate_visible())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let reexported = |file: &str, name: &str| {
        reexports.iter().any(|u| {
            let path: Vec<&str> = u
                .path
                .iter()
                .map(String::as_str)
                .skip_while(|s| *s == "self")
                .collect();
            match (u.glob, path.as_slice()) {
                (true, [m]) => *m == file,
                (false, [m, n]) => *m == file && *n == name && u.alias.is_none(),
                _ => false,
            }
        })
    };
    let manual: BTreeSet<(String, String)> = files
        .iter()
        .flat_map(|f| f.manual_impls.iter().cloned())
        .collect();
    let by_hand =
        |trait_name: &str, ty: &str| manual.contains(&(trait_name.to_owned(), ty.to_owned()));
    report_module_files(&files, diags);

    for file in files {
        let package = package_markers(&file, diags);
        out.group_markers
            .extend(located(&file.path, package.clone()));
        out.markers.extend(package);
        let module_visibility = match &file.module {
            None => Some(Visibility::Public),
            Some(stem) => {
                match declared.get(stem) {
                    Some(vis) => Some(*vis),
                    None => {
                        let hint = match &module_file_path {
                            Some(m) => format!("add `pub mod {stem};` to {m}"),
                            None => {
                                format!("declare it with `pub mod {stem};` in the version's mod.rs")
                            }
                        };
                        diags.push(
                        Diagnostic::error(Code::UndeclaredModule, format!("`{stem}` is not declared as a module, so Rust never compiles it"))
                            .at(&file.path, Pos { line: 1, col: 1 })
                            .hint(hint),
                    );
                        None
                    }
                }
            }
        };
        let mut local_types = BTreeSet::new();
        for mut ty in file.types {
            local_types.insert(ty.key.name.clone());
            // The lines are read once, here: the model does not keep them.
            let raw_docs = std::mem::take(&mut ty.raw_docs);
            let extracted = markers::extract(&raw_docs, markers::Target::Type, &file.path, diags);
            ty.docs = extracted.docs;
            ty.markers = extracted.markers;
            ty.manual_clone = by_hand("Clone", &ty.key.name);
            ty.manual_serialize = by_hand("Serialize", &ty.key.name);
            let rule = ty.serde.rename_all;
            let container_default = ty.serde.default;
            finish_body(&mut ty.body, rule, container_default, &file.path, diags);

            let mut module_path = vec![group.to_owned(), version.to_owned()];
            ty.reachable_via = match (&file.module, module_visibility) {
                (None, _) => Some(Vec::new()),
                (Some(stem), _) if reexported(stem, &ty.key.name) => {
                    index.insert(module_path.clone(), &ty.key);
                    Some(Vec::new())
                }
                (Some(stem), Some(vis)) if vis.crate_visible() => Some(vec![stem.clone()]),
                _ => None,
            }
            .filter(|_| ty.visibility.crate_visible());
            module_path.extend(file.module.clone());
            index.insert(module_path, &ty.key);
            out.types.insert(ty.key.id(), ty);
        }
        // Aliases are named as types are, then replaced by what they alias.
        for alias in file.aliases {
            let extracted =
                markers::extract(&alias.raw_docs, markers::Target::Type, &file.path, diags);
            let alias = Alias {
                key: alias.key,
                file: file.path.clone(),
                pos: alias.pos,
                docs: extracted.docs,
                markers: extracted.markers,
                generics: alias.generics,
                ty: alias.ty,
            };
            local_types.insert(alias.key.name.clone());
            let mut module_path = vec![group.to_owned(), version.to_owned()];
            if let Some(stem) = &file.module
                && reexported(stem, &alias.key.name)
            {
                index.insert(module_path.clone(), &alias.key);
            }
            module_path.extend(file.module.clone());
            index.insert(module_path, &alias.key);
            aliases.push(alias);
        }
        let key = (group.to_owned(), version.to_owned(), file.module.clone());
        scopes.insert(
            key,
            FileScope {
                scope: Scope {
                    module: [group, version]
                        .into_iter()
                        .map(str::to_owned)
                        .chain(file.module.clone())
                        .collect(),
                    uses: file.uses,
                    local_types,
                    child_modules: file.mods.into_iter().map(|m| m.name).collect(),
                },
                path: file.path.clone(),
            },
        );
    }
    out
}

/// Every `mod name;` of the version's module file must have its file, and no other file
/// may declare modules of its own: crdgen reads one level of file modules, and a module
/// it did not read would silently take its kinds away.
fn report_module_files(files: &[ParsedFile], diags: &mut Diagnostics) {
    let read: BTreeSet<&str> = files.iter().filter_map(|f| f.module.as_deref()).collect();
    for file in files {
        for decl in &file.mods {
            let (message, hint) = match &file.module {
                None if read.contains(decl.name.as_str()) => continue,
                None => (
                    format!(
                        "module `{}` is declared, but neither `{0}.rs` nor `{0}/mod.rs` exists beside this file",
                        decl.name
                    ),
                    "create the file, or remove the declaration".to_owned(),
                ),
                Some(_) => (
                    format!(
                        "module `{}` is declared in a type file; crdgen reads only the modules the version's mod.rs declares",
                        decl.name
                    ),
                    format!(
                        "move `{}` into the version directory and declare it in the version's mod.rs, or write it inline (`mod {0} {{ .. }}`)",
                        decl.name
                    ),
                ),
            };
            diags.push(
                Diagnostic::error(Code::MissingDirectory, message)
                    .at(&file.path, decl.pos)
                    .hint(hint),
            );
        }
    }
}

/// A file's `//!` markers, after reporting markers its plain comments hide.
fn package_markers(file: &ParsedFile, diags: &mut Diagnostics) -> Vec<Marker> {
    report_comment_markers(file, diags);
    markers::extract(
        &file.inner_docs,
        markers::Target::Package,
        &file.path,
        diags,
    )
    .markers
}

fn report_comment_markers(file: &ParsedFile, diags: &mut Diagnostics) {
    for (pos, text) in &file.comment_markers {
        if markers::is_crdgen_marker(&text[1..]) {
            diags.push(
                Diagnostic::error(Code::MarkerInPlainComment, format!("marker `{text}` is in a plain comment, where crdgen cannot see it"))
                    .at(&file.path, *pos)
                    .hint("markers go in doc comments: write `///` (or `//!` for package markers); to keep it as a note, drop the `+`"),
            );
        }
    }
}

fn find_kinds(
    version: &mut Version,
    resolver: &Resolver<'_>,
    scopes: &Scopes,
    opts: &Options,
    diags: &mut Diagnostics,
) {
    let mut exceptions = naming::default_plural_exceptions();
    exceptions.extend(opts.plural_exceptions.clone());
    let mut kinds: Vec<Kind> = Vec::new();
    for ty in version.types.values() {
        let marked =
            markers::GENCLIENT.is_set(&ty.markers) || markers::OBJECT_ROOT.is_set(&ty.markers);
        match (&ty.kube, marked) {
            (Some(_), true) => diags.push(
                Diagnostic::error(Code::Conflict, format!("`{}` is both a `#[derive(CustomResource)]` spec and a marked kind", ty.key.name))
                    .at(&ty.file, ty.pos)
                    .hint("use one style per kind: drop `+genclient`/`+kubebuilder:object:root` or the CustomResource derive"),
            ),
            (Some(attrs), false) => {
                let scope = scopes.get(&scope_key(&ty.key)).map(|f| &f.scope);
                kinds.extend(derive_kind(ty, attrs, version, scope, resolver, &exceptions, diags));
            }
            (None, true) => kinds.extend(marker_kind(ty, &exceptions, diags)),
            (None, false) => {}
        }
    }
    for kind in kinds {
        names::check_kind(&kind, diags);
        if let Some(first) = version.kinds.get(&kind.name) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateKind,
                    format!("kind `{}` is declared twice in {}", kind.name, version.name),
                )
                .at(&kind.file, kind.pos)
                .hint(format!(
                    "the first is at {}:{}:{}; a group version holds each kind once",
                    first.file, first.pos.line, first.pos.col
                )),
            );
            continue;
        }
        version.kinds.insert(kind.name.clone(), kind);
    }
}
