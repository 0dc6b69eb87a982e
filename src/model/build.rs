//! Builds the model from parsed files: markers, wire names, type resolution, kinds,
//! and every check that needs more than one file to make.

use std::collections::{BTreeMap, BTreeSet};

use super::names;
use super::parsed::{ParsedFile, ParsedGroup, UseEntry};
use super::rename::RenameRule;
use super::resolve::{Resolver, Scope, TypeIndex};
use super::{
    Body, Field, Fields, Group, Kind, KindStyle, Model, Target, TypeDef, TypeKey, TypeRef, Version,
    Visibility,
};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::{self, Marker, Value};
use crate::naming;
use crate::options::Options;

/// Builds the model. Problems go to `diags`; the model is only meaningful when none
/// of them is an error.
pub fn build(groups: Vec<ParsedGroup>, opts: &Options, diags: &mut Diagnostics) -> Model {
    let mut model = Model::default();
    let mut index = TypeIndex::default();
    let mut scopes = Scopes::new();
    let mut group_markers: BTreeMap<String, Vec<(String, Marker)>> = BTreeMap::new();

    for group in groups {
        if let Some(file) = &group.module_file {
            let package = package_markers(file, diags);
            group_markers.insert(group.dir.clone(), located(&file.path, package));
        }
        let mut versions = BTreeMap::new();
        for version in group.versions {
            let built = build_version(
                &group.dir,
                &version.name,
                version.files,
                &mut index,
                &mut scopes,
                diags,
            );
            versions.insert(version.name, built);
        }
        model.groups.insert(
            group.dir.clone(),
            Group {
                dir: group.dir,
                name: String::new(),
                versions,
            },
        );
    }

    let resolver = Resolver {
        index: &index,
        apis_module: &opts.apis_module,
    };
    for group in model.groups.values_mut() {
        for version in group.versions.values_mut() {
            for ty in version.types.values_mut() {
                let Some(file) = scopes.get(&scope_key(&ty.key)) else {
                    continue;
                };
                for field in fields_mut(&mut ty.body) {
                    resolver.resolve(&mut field.ty, &file.scope);
                }
            }
        }
    }

    for group in model.groups.values_mut() {
        let from_group_file = group_markers.get(&group.dir);
        for version in group.versions.values_mut() {
            find_kinds(version, &resolver, &scopes, opts, diags);
        }
        let crd = opts.generators.contains(&crate::options::Generator::Crd);
        group.name = group_name(group, from_group_file, crd, &scopes, diags);
        for version in group.versions.values() {
            check_derive_groups(&group.name, version, diags);
        }
        names::check_collisions(group, diags);
    }
    model
}

/// Parsed files' scopes by (group, version, file module).
type Scopes = BTreeMap<(String, String, Option<String>), FileScope>;

fn scope_key(key: &TypeKey) -> (String, String, Option<String>) {
    (key.group.clone(), key.version.clone(), key.module.clone())
}

/// One parsed file's scope, kept for resolution after all types are known.
struct FileScope {
    scope: Scope,
    path: String,
}

fn build_version(
    group: &str,
    version: &str,
    files: Vec<ParsedFile>,
    index: &mut TypeIndex,
    scopes: &mut Scopes,
    diags: &mut Diagnostics,
) -> Version {
    let mut out = Version {
        name: version.to_owned(),
        markers: Vec::new(),
        group_names: Vec::new(),
        kinds: BTreeMap::new(),
        types: BTreeMap::new(),
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
    let manual_clones: BTreeSet<String> = files
        .iter()
        .flat_map(|f| f.manual_clones.iter().cloned())
        .collect();
    report_module_files(&files, diags);

    for file in files {
        let package = package_markers(&file, diags);
        out.group_names.extend(located(&file.path, package.clone()));
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
            let extracted =
                markers::extract(&ty.raw_docs, markers::Target::Type, &file.path, diags);
            ty.docs = extracted.docs;
            ty.markers = extracted.markers;
            ty.manual_clone = manual_clones.contains(&ty.key.name);
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

/// Markers and docs of fields and variants, wire names and optionality.
fn finish_body(
    body: &mut Body,
    rule: Option<RenameRule>,
    container_default: bool,
    file: &str,
    diags: &mut Diagnostics,
) {
    match body {
        Body::Struct(fields) => finish_fields(fields, rule, container_default, file, diags),
        Body::Enum(variants) => {
            for variant in variants {
                let extracted =
                    markers::extract(&variant.raw_docs, markers::Target::Field, file, diags);
                variant.docs = extracted.docs;
                variant.markers = extracted.markers;
                variant.wire_name = match (&variant.serde.rename, rule) {
                    (Some(name), _) => name.clone(),
                    (None, Some(rule)) => rule.apply_to_variant(&variant.name),
                    (None, None) => variant.name.clone(),
                };
                finish_fields(
                    &mut variant.fields,
                    variant.serde.rename_all,
                    false,
                    file,
                    diags,
                );
            }
        }
    }
}

fn finish_fields(
    fields: &mut Fields,
    rule: Option<RenameRule>,
    container_default: bool,
    file: &str,
    diags: &mut Diagnostics,
) {
    let named = matches!(fields, Fields::Named(_));
    let fields = match fields {
        Fields::Named(f) | Fields::Tuple(f) => f,
        Fields::Unit => return,
    };
    for field in fields.iter_mut() {
        let extracted = markers::extract(&field.raw_docs, markers::Target::Field, file, diags);
        field.docs = extracted.docs;
        field.markers = extracted.markers;
        if named {
            let rust_name = naming::unraw(&field.name);
            field.wire_name = Some(match (&field.serde.rename, rule) {
                (Some(name), _) => name.clone(),
                (None, Some(rule)) => rule.apply_to_field(rust_name),
                (None, None) => rust_name.to_owned(),
            });
        }
        let has = |name: &str| markers::has(&field.markers, name);
        field.optional = !has("required")
            && (field.ty.option_inner().is_some()
                || field.serde.default
                || container_default
                || field.serde.skip_serializing_if
                || has("optional"));
    }
    if named {
        report_field_collisions(fields, file, diags);
    }
}

/// Two fields of one Rust name (`#[cfg]` lets a struct declare both) or one wire name
/// would make generated code declare a field twice, or one of them vanish from the CRD.
fn report_field_collisions(fields: &[Field], file: &str, diags: &mut Diagnostics) {
    let mut rust: BTreeMap<&str, &Field> = BTreeMap::new();
    let mut wire: BTreeMap<&str, &Field> = BTreeMap::new();
    for field in fields {
        let clash = match rust.insert(naming::unraw(&field.name), field) {
            Some(first) => Some((
                first,
                "is declared twice",
                "keep one field of each name; crdgen does not evaluate `#[cfg]`",
            )),
            None if field.serde.flatten => None,
            None => field
                .wire_name
                .as_deref()
                .and_then(|w| wire.insert(w, field))
                .map(|first| {
                    (
                        first,
                        "serializes under the same name as another field",
                        "give one of them another `#[serde(rename = \"..\")]`",
                    )
                }),
        };
        if let Some((first, what, hint)) = clash {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "field `{}` {what}: `{}` at {file}:{}:{} is also `{}`",
                        field.name,
                        first.name,
                        first.pos.line,
                        first.pos.col,
                        field.wire_name.as_deref().unwrap_or(&field.name),
                    ),
                )
                .at(file, field.pos)
                .hint(hint),
            );
        }
    }
}

fn fields_mut(body: &mut Body) -> Vec<&mut Field> {
    match body {
        Body::Struct(Fields::Named(f) | Fields::Tuple(f)) => f.iter_mut().collect(),
        Body::Struct(Fields::Unit) => Vec::new(),
        Body::Enum(variants) => variants
            .iter_mut()
            .flat_map(|v| match &mut v.fields {
                Fields::Named(f) | Fields::Tuple(f) => f.iter_mut().collect::<Vec<_>>(),
                Fields::Unit => Vec::new(),
            })
            .collect(),
    }
}

fn list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::List(items)) => items.clone(),
        _ => Vec::new(),
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
        let marked = markers::flag(&ty.markers, "genclient")
            || markers::flag(&ty.markers, "kubebuilder:object:root");
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

fn marker_kind(
    ty: &TypeDef,
    exceptions: &BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> Option<Kind> {
    let name = &ty.key.name;
    let error = |code: Code, message: String, hint: String| {
        Diagnostic::error(code, message)
            .at(&ty.file, ty.pos)
            .hint(hint)
    };
    let Body::Struct(Fields::Named(fields)) = &ty.body else {
        diags.push(error(Code::Unsupported, format!("kind `{name}` must be a struct with named fields"), "a kind looks like `pub struct Example { pub metadata: ObjectMeta, pub spec: ExampleSpec, .. }`".into()));
        return None;
    };
    if !ty.generics.is_empty() {
        diags.push(error(
            Code::Unsupported,
            format!("kind `{name}` has type parameters"),
            "a kind is a concrete type; move the generic part into a field".into(),
        ));
        return None;
    }
    let by_wire = |wire: &str| {
        fields
            .iter()
            .find(|f| f.wire_name.as_deref() == Some(wire) && !f.serde.flatten)
    };
    let Some(metadata) = by_wire("metadata") else {
        diags.push(error(
            Code::KindWithoutMetadata,
            format!("kind `{name}` has no `metadata` field"),
            "add `pub metadata: ObjectMeta` (k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)".into(),
        ));
        return None;
    };
    match metadata.ty.last_segment() {
        Some("ObjectMeta") => {}
        // A `FooList` marked root, as Go projects do: kube lists need no type of their own.
        Some("ListMeta") => return None,
        _ => {
            diags.push(
                Diagnostic::error(
                    Code::KindWithoutMetadata,
                    format!("`metadata` of kind `{name}` must be `ObjectMeta`"),
                )
                .at(&ty.file, metadata.pos)
                .hint("use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta"),
            );
            return None;
        }
    }
    let type_meta = fields.iter().find(|f| {
        f.serde.flatten
            && (f.ty.last_segment() == Some("TypeMeta")
                || f.ty.option_inner().and_then(TypeRef::last_segment) == Some("TypeMeta"))
    });
    let type_meta_hint = "add `#[serde(flatten, default)] pub types: Option<TypeMeta>` (kube::core::TypeMeta), as Go kinds embed metav1.TypeMeta";
    match type_meta {
        None => {
            diags.push(error(
                Code::KindWithoutTypeMeta,
                format!("kind `{name}` has no flattened `TypeMeta` field, so it cannot carry apiVersion and kind"),
                type_meta_hint.into(),
            ));
            return None;
        }
        Some(f) if f.ty.option_inner().is_none() => {
            diags.push(
                Diagnostic::error(Code::KindWithoutTypeMeta, format!("`{}` of kind `{name}` must be `Option<TypeMeta>`", f.name))
                    .at(&ty.file, f.pos)
                    .hint("list items from the apiserver carry no apiVersion or kind; only an Option lets them deserialize"),
            );
            return None;
        }
        Some(_) => {}
    }
    for field in [Some(metadata), type_meta].into_iter().flatten() {
        if !field.visibility.crate_visible() {
            diags.push(
                Diagnostic::error(
                    Code::UnreachableType,
                    format!(
                        "field `{}` of kind `{name}` is private to its module",
                        field.name
                    ),
                )
                .at(&ty.file, field.pos)
                .hint(
                    "generated code lives in another module: make the field `pub` or `pub(crate)`",
                ),
            );
        }
    }
    let path = reachable(ty, diags)?;

    let scope = markers::arg(&ty.markers, "kubebuilder:resource", "scope").and_then(Value::as_str);
    let non_namespaced = markers::flag(&ty.markers, "genclient:nonNamespaced");
    let namespaced = match scope {
        None => !non_namespaced,
        Some("Cluster") => false,
        Some("Namespaced") if non_namespaced => {
            diags.push(error(
                Code::Conflict,
                format!(
                    "kind `{name}` is marked both `+genclient:nonNamespaced` and `scope=Namespaced`"
                ),
                "keep one of the two".into(),
            ));
            true
        }
        Some("Namespaced") => true,
        Some(other) => {
            diags.push(error(
                Code::BadMarkerArgument,
                format!("`scope={other}` on kind `{name}` is neither `Namespaced` nor `Cluster`"),
                "write `+kubebuilder:resource:scope=Cluster` or `scope=Namespaced`".into(),
            ));
            true
        }
    };
    let resource_name = markers::find(&ty.markers, "resourceName").and_then(Value::as_str);
    let path_marker =
        markers::arg(&ty.markers, "kubebuilder:resource", "path").and_then(Value::as_str);
    let plural = match (resource_name, path_marker) {
        (Some(a), Some(b)) if a != b => {
            diags.push(error(
                Code::Conflict,
                format!("kind `{name}` has two plurals: `+resourceName={a}` and `path={b}`"),
                "keep one of the two".into(),
            ));
            a.to_owned()
        }
        (Some(p), _) | (None, Some(p)) => p.to_owned(),
        (None, None) => naming::plural(name, exceptions),
    };
    let names_pos = ty
        .markers
        .iter()
        .rev()
        .find(|m| m.name == "kubebuilder:resource" || m.name == "resourceName")
        .map_or(ty.pos, |m| m.pos);
    let by_rust_wire = |wire: &str| by_wire(wire).map(|f| f.ty.clone());
    Some(Kind {
        name: name.clone(),
        style: KindStyle::Markers,
        root: ty.key.clone(),
        path,
        spec: by_rust_wire("spec"),
        status: by_rust_wire("status").map(|t| t.option_inner().cloned().unwrap_or(t)),
        status_subresource: markers::flag(&ty.markers, "kubebuilder:subresource:status"),
        plural,
        names_pos,
        singular: markers::arg(&ty.markers, "kubebuilder:resource", "singular")
            .and_then(Value::as_str)
            .map_or_else(|| naming::singular(name), str::to_owned),
        namespaced,
        short_names: list(markers::arg(
            &ty.markers,
            "kubebuilder:resource",
            "shortName",
        )),
        categories: list(markers::arg(
            &ty.markers,
            "kubebuilder:resource",
            "categories",
        )),
        type_meta_field: type_meta.map(|f| f.name.clone()),
        markers: ty.markers.clone(),
        root_rules: Vec::new(),
        file: ty.file.clone(),
        pos: ty.pos,
    })
}

fn derive_kind(
    ty: &TypeDef,
    attrs: &super::KubeAttrs,
    version: &Version,
    scope: Option<&Scope>,
    resolver: &Resolver<'_>,
    exceptions: &BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> Option<Kind> {
    let error = |message: String, hint: &str| {
        Diagnostic::error(Code::BadAttribute, message)
            .at(&ty.file, attrs.pos)
            .hint(hint)
    };
    let mut ok = true;
    for (key, value) in [
        ("group", &attrs.group),
        ("version", &attrs.version),
        ("kind", &attrs.kind),
    ] {
        if value.is_empty() {
            diags.push(error(
                format!("`#[kube(...)]` on `{}` has no `{key}`", ty.key.name),
                "kube-derive needs `group`, `version` and `kind`",
            ));
            ok = false;
        }
    }
    for (key, value) in [("kind", Some(&attrs.kind)), ("root", attrs.root.as_ref())] {
        if let Some(value) = value.filter(|v| !v.is_empty() && !naming::is_identifier(v)) {
            diags.push(error(
                format!(
                    "`{key} = \"{value}\"` on `{}` is not a Rust type name",
                    ty.key.name
                ),
                "kube-derive names the generated root type after it: use a PascalCase identifier",
            ));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    if let Err(d) = names::check_group(&attrs.group, false, &ty.file, attrs.pos) {
        diags.push(d);
        return None;
    }
    if attrs.version != version.name {
        diags.push(
            Diagnostic::error(
                Code::Conflict,
                format!(
                    "`{}` declares version `{}` but lives in `{}`",
                    ty.key.name, attrs.version, version.name
                ),
            )
            .at(&ty.file, attrs.pos)
            .hint(format!(
                "move it to the `{}` directory or change `version`",
                attrs.version
            )),
        );
        return None;
    }
    let kind = attrs.kind.clone();
    let singular = attrs
        .singular
        .clone()
        .unwrap_or_else(|| naming::singular(&kind));
    let plural = attrs
        .plural
        .clone()
        .unwrap_or_else(|| naming::pluralize(&singular));
    if let Some(exception) = exceptions.get(&kind).filter(|e| **e != plural) {
        diags.push(
            Diagnostic::error(Code::Conflict, format!("plural exception `{kind}:{exception}` cannot change kube-derive's plural `{plural}`"))
                .at(&ty.file, attrs.pos)
                .hint(format!("set `#[kube(plural = \"{exception}\")]` on `{}` instead", ty.key.name)),
        );
    }
    let root_name = attrs.root.clone().unwrap_or_else(|| kind.clone());
    let root = TypeKey {
        name: root_name,
        ..ty.key.clone()
    };
    let path = reachable(ty, diags)?;
    let status = attrs.status.as_ref().map(|s| {
        let mut status = TypeRef::Path {
            segments: s.split("::").map(str::to_owned).collect(),
            args: Vec::new(),
            target: None,
        };
        if let Some(scope) = scope {
            resolver.resolve(&mut status, scope);
        }
        status
    });
    Some(Kind {
        name: kind,
        style: KindStyle::KubeDerive,
        root,
        path,
        spec: Some(TypeRef::Path {
            segments: vec![ty.key.name.clone()],
            args: Vec::new(),
            target: Some(Target::Local(ty.key.clone())),
        }),
        status_subresource: status.is_some(),
        status,
        plural,
        singular,
        names_pos: attrs.pos,
        namespaced: attrs.namespaced,
        short_names: attrs.short_names.clone(),
        categories: attrs.categories.clone(),
        type_meta_field: None,
        markers: derive_markers(ty, attrs),
        root_rules: attrs.validations.clone(),
        file: ty.file.clone(),
        pos: ty.pos,
    })
}

/// The spec struct's markers, plus kube-derive's CRD attributes said as the markers
/// that mean the same, so that the CRD generator reads one language.
fn derive_markers(ty: &TypeDef, attrs: &super::KubeAttrs) -> Vec<Marker> {
    let mut out = ty.markers.clone();
    let marker = |name: &str, value: Value| Marker {
        name: name.to_owned(),
        value,
        pos: attrs.pos,
    };
    let args = |map: &BTreeMap<String, String>| {
        Value::Args(
            map.iter()
                .map(|(k, v)| {
                    let value = match (k.as_str(), v.parse::<i64>()) {
                        ("priority", Ok(n)) => Value::Int(n),
                        _ => Value::String(v.clone()),
                    };
                    (k.clone(), value)
                })
                .collect(),
        )
    };
    out.extend(
        attrs
            .printcolumns
            .iter()
            .map(|p| marker("kubebuilder:printcolumn", args(p))),
    );
    out.extend(
        attrs
            .scale
            .iter()
            .map(|s| marker("kubebuilder:subresource:scale", args(s))),
    );
    out.extend(attrs.selectable.iter().map(|path| {
        marker(
            "kubebuilder:selectablefield",
            args(&BTreeMap::from([("JSONPath".to_owned(), path.clone())])),
        )
    }));
    if attrs.storage != Some(false) {
        out.push(marker("kubebuilder:storageversion", Value::Bool(true)));
    }
    if attrs.served == Some(false) {
        out.push(marker("kubebuilder:unservedversion", Value::Bool(true)));
    }
    if let Some(warning) = &attrs.deprecated {
        let warning: BTreeMap<String, String> = warning
            .iter()
            .map(|w| ("warning".to_owned(), w.clone()))
            .collect();
        out.push(marker("kubebuilder:deprecatedversion", args(&warning)));
    }
    if !attrs.annotations.is_empty() || !attrs.labels.is_empty() {
        let list = |pairs: &[(String, String)]| {
            Value::List(pairs.iter().map(|(k, v)| format!("{k}={v}")).collect())
        };
        let metadata = BTreeMap::from([
            ("annotations".to_owned(), list(&attrs.annotations)),
            ("labels".to_owned(), list(&attrs.labels)),
        ]);
        out.push(marker("kubebuilder:metadata", Value::Args(metadata)));
    }
    out
}

/// The module path generated code names `ty` by, or an error saying why it cannot.
fn reachable(ty: &TypeDef, diags: &mut Diagnostics) -> Option<Vec<String>> {
    if ty.reachable_via.is_none() {
        let hint = if ty.visibility.crate_visible() {
            format!(
                "declare its module `pub`, or re-export it with `pub use {}::*;` in the version's mod.rs",
                ty.key.module.as_deref().unwrap_or("self")
            )
        } else {
            format!("make `{}` `pub`", ty.key.name)
        };
        diags.push(
            Diagnostic::error(
                Code::UnreachableType,
                format!(
                    "generated code cannot name `{}`: it is not visible outside its module",
                    ty.key.name
                ),
            )
            .at(&ty.file, ty.pos)
            .hint(hint),
        );
    }
    ty.reachable_via.clone()
}

/// `+groupName` markers with the file each is in.
fn located(file: &str, markers: Vec<Marker>) -> Vec<(String, Marker)> {
    markers
        .into_iter()
        .filter(|m| m.name == "groupName")
        .map(|m| (file.to_owned(), m))
        .collect()
}

/// The one `+groupName` of `found`, checked; two that disagree are an error naming both.
fn one_group_name<'a>(
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

fn group_conflict(first_file: &str, first: &Marker, file: &str, marker: &Marker) -> Diagnostic {
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
fn group_name(
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

/// kube-derive kinds must agree with the group name their directory declares.
fn check_derive_groups(group_name: &str, version: &Version, diags: &mut Diagnostics) {
    for kind in version
        .kinds
        .values()
        .filter(|k| k.style == KindStyle::KubeDerive)
    {
        let Some(attrs) = kind
            .spec_key()
            .and_then(|k| version.types.get(&k.id())?.kube.as_ref())
        else {
            continue;
        };
        if !group_name.is_empty() && attrs.group != group_name {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "kind `{}` declares group `{}` but its directory's group is `{group_name}`",
                        kind.name, attrs.group
                    ),
                )
                .at(&kind.file, attrs.pos)
                .hint("kinds of one group directory share one API group"),
            );
        }
    }
}

impl Kind {
    /// The model type of the spec, when it is one.
    pub fn spec_key(&self) -> Option<&TypeKey> {
        match self.spec.as_ref()? {
            TypeRef::Path {
                target: Some(Target::Local(key)),
                ..
            } => Some(key),
            _ => None,
        }
    }
}
