//! `applyconfiguration`: client-go's apply configurations. For every kind and every
//! struct of the apis tree it holds, a type in which every field is optional and only
//! what was set is sent, with `with_*` builders, so that a server-side apply claims
//! just the fields a controller means to own. The generated clients' `apply` and
//! `apply_status` take them.
//!
//! A field of a struct that gets its own apply configuration refers to that one; every
//! other type (enums, newtypes, generic structs, Kubernetes types from k8s-openapi,
//! whose optional fields are already left out when unset) is used as it is.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use super::{Context, Definition, Generator, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Field, Kind, KindStyle, Target, TypeDef, TypeRef, Version};
use crate::naming::{self, applyconfig as names};

const OBJECT_META: &str = "::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta";

/// The `applyconfiguration` generator.
pub(super) const GENERATOR: Definition = Definition::rust("applyconfiguration", generate)
    .brings(&[Generator::Register, Generator::Clone]);

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let tree = &mut out.rust;
    let metadata_builders = metadata_builders();
    for group in ctx.model.groups.values() {
        for version in group.versions.values() {
            let kinds: Vec<&Kind> = version.kinds.values().filter(|k| k.has_client()).collect();
            if kinds.is_empty() {
                continue;
            }
            let mut configs = Configs {
                ctx,
                group: &group.dir,
                version,
                structs: BTreeSet::new(),
                metadata_builders: &metadata_builders,
            };
            configs.structs = configs.reachable_structs(&kinds);
            if !unique_names(version, &kinds, &configs.structs, diags) {
                continue;
            }
            let mut text = String::new();
            for kind in &kinds {
                text.push_str(&configs.kind_config(kind));
            }
            for id in &configs.structs {
                text.push_str(&configs.struct_config(&version.types[id]));
            }
            tree.child(naming::modules::APPLY_CONFIGURATIONS, || {
                "Apply configurations: every field optional, only what is set sent \
                 (client-go's `applyconfigurations`)."
                    .to_owned()
            })
            .child(&group.dir, || format!("The `{}` API group.", group.name))
            .child(&version.name, || {
                format!("Version `{}` of the group.", version.name)
            })
            .push_text(&text);
        }
    }
}

/// One group version's configurations, and the structs that get one.
struct Configs<'a> {
    ctx: &'a Context<'a>,
    group: &'a str,
    version: &'a Version,
    /// By type id.
    structs: BTreeSet<String>,
    /// What `metadata_builders` writes, made once a run.
    metadata_builders: &'a str,
}

impl<'a> Configs<'a> {
    /// The structs (by type id) that get an apply configuration: those a kind holds,
    /// directly or through other such structs.
    fn reachable_structs(&self, kinds: &[&'a Kind]) -> BTreeSet<String> {
        let mut queue: VecDeque<&TypeRef> = VecDeque::new();
        for kind in kinds {
            match kind.style {
                KindStyle::Markers => {
                    if let Some(root) = self.version.types.get(&kind.root.id()) {
                        queue.extend(kind_fields(kind, root).map(|f| &f.ty));
                    }
                }
                KindStyle::KubeDerive => queue.extend(kind.spec.iter().chain(&kind.status)),
            }
        }
        let mut found = BTreeSet::new();
        while let Some(ty) = queue.pop_front() {
            let TypeRef::Path { args, target, .. } = ty else {
                continue;
            };
            queue.extend(args);
            if let Some(def) = self.configurable(target.as_deref())
                && found.insert(def.key.id())
            {
                queue.extend(def.named_fields().iter().map(|f| &f.ty));
            }
        }
        found
    }

    /// The struct `target` names, when it may get an apply configuration: a struct of
    /// this group version (another's is that version's business) with named fields,
    /// no generics, and a path generated code can name.
    fn configurable(&self, target: Option<&Target>) -> Option<&'a TypeDef> {
        let Some(Target::Local(key)) = target else {
            return None;
        };
        if key.group != self.group || key.version != self.version.name {
            return None;
        }
        let def = self.version.types.get(&key.id())?;
        // A type serde writes as another (`into`) or by hand is set whole, as a value.
        let plain = def.generics.is_empty()
            && !def.unsupported_generics
            && !def.serde.transparent
            && def.serde.wire.is_none()
            && !def.manual_serialize
            && def.reachable_via.is_some();
        (plain && !def.named_fields().is_empty()).then_some(def)
    }

    /// The configuration of a kind: apiVersion and kind always, metadata, its fields.
    fn kind_config(&self, kind: &Kind) -> String {
        let name = names::type_name(&kind.name);
        let object = self.ctx.type_path(&kind.root, &kind.path);
        let fields: Vec<ConfigField> = match kind.style {
            KindStyle::Markers => self
                .version
                .types
                .get(&kind.root.id())
                .map(|root| kind_fields(kind, root).map(|f| self.field(f)).collect())
                .unwrap_or_default(),
            // kube-derive's root: `spec` always, `status` when it has one.
            KindStyle::KubeDerive => kind
                .spec
                .iter()
                .map(|ty| ("spec", ty))
                .chain(kind.status.iter().map(|ty| ("status", ty)))
                .map(|(wire, ty)| ConfigField {
                    rust: wire.to_owned(),
                    wire: wire.to_owned(),
                    flatten: false,
                    shape: self.shape(ty),
                })
                .collect(),
        };
        let (new_args, namespace) = if kind.namespaced {
            (
                "name: &str, namespace: &str",
                "namespace: ::std::option::Option::Some(namespace.to_owned()),\n                ",
            )
        } else {
            ("name: &str", "")
        };
        format!(
            r#"/// What to apply of a `{kind}`: apiVersion and kind, and only the fields that are set.
#[derive(Clone, Debug, Default, ::serde::Serialize)]
pub struct {name} {{
    #[serde(rename = "apiVersion")]
    pub api_version: ::std::string::String,
    pub kind: ::std::string::String,
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub metadata: ::std::option::Option<{OBJECT_META}>,
{fields}}}

impl {name} {{
    /// A configuration for the object `name`, with its apiVersion and kind.
    pub fn new({new_args}) -> Self {{
        Self {{
            api_version: <{object} as ::kube::Resource>::api_version(&()).into_owned(),
            kind: <{object} as ::kube::Resource>::kind(&()).into_owned(),
            metadata: ::std::option::Option::Some({OBJECT_META} {{
                name: ::std::option::Option::Some(name.to_owned()),
                {namespace}..::std::default::Default::default()
            }}),{rest}
        }}
    }}
{metadata}{builders}}}

"#,
            kind = kind.name,
            // Its own fields, when it has any, start out unset.
            rest = if fields.is_empty() {
                ""
            } else {
                "\n            ..::std::default::Default::default()"
            },
            fields = field_decls(&fields),
            metadata = self.metadata_builders,
            builders = builders(&fields),
        )
    }

    /// The configuration of a struct the kinds hold.
    fn struct_config(&self, def: &TypeDef) -> String {
        let name = names::type_name(&def.key.name);
        let fields: Vec<ConfigField> = def
            .named_fields()
            .iter()
            .filter(|f| !f.serde.skip)
            .map(|f| self.field(f))
            .collect();
        format!(
            r#"/// What to apply of a `{original}`: only the fields that are set.
#[derive(Clone, Debug, Default, ::serde::Serialize)]
pub struct {name} {{
{fields}}}

impl {name} {{
{builders}}}

"#,
            original = def.key.name,
            fields = field_decls(&fields),
            builders = builders(&fields),
        )
    }

    fn field(&self, field: &Field) -> ConfigField {
        ConfigField {
            rust: field.name.clone(),
            wire: field
                .wire_name
                .clone()
                .unwrap_or_else(|| field.name.clone()),
            flatten: field.serde.flatten,
            shape: self.shape(&field.ty),
        }
    }

    /// What a field of type `ty` holds (an `Option` says nothing here: every field of
    /// a configuration is optional).
    fn shape(&self, ty: &TypeRef) -> Shape {
        let ty = ty.option_inner().unwrap_or(ty);
        match (ty.last_segment(), ty) {
            (Some("Vec"), TypeRef::Path { args, .. }) if args.len() == 1 => Shape::List {
                item: self.config_type(&args[0]),
            },
            (Some(map @ ("BTreeMap" | "HashMap")), TypeRef::Path { args, .. })
                if args.len() == 2 =>
            {
                Shape::Map {
                    container: format!("::std::collections::{map}"),
                    key: self.config_type(&args[0]),
                    value: self.config_type(&args[1]),
                }
            }
            _ => Shape::Value(self.config_type(ty)),
        }
    }

    /// A type as a configuration holds it: a configured struct by its configuration,
    /// every other type as written, with its arguments so mapped.
    fn config_type(&self, ty: &TypeRef) -> String {
        if let TypeRef::Path { target, args, .. } = ty {
            if let Some(def) = self.configurable(target.as_deref())
                && self.structs.contains(&def.key.id())
            {
                return names::type_name(&def.key.name);
            }
            let container = ty.last_segment().unwrap_or_default();
            if ["Option", "Vec", "Box"].contains(&container) && args.len() == 1 {
                let inner = self.config_type(&args[0]);
                return format!("::std::{}::{container}<{inner}>", std_module(container));
            }
        }
        // A type the model could not resolve was reported by the generators that need
        // it; here it is written as it was.
        self.ctx.type_text(ty).unwrap_or_else(|name| name)
    }
}

/// The std module of a container `config_type` rewrites.
fn std_module(container: &str) -> &'static str {
    match container {
        "Option" => "option",
        "Vec" => "vec",
        _ => "boxed",
    }
}

/// The fields of a marker-style kind that its configuration carries: all but its
/// apiVersion/kind and its metadata, which the configuration has of its own.
fn kind_fields<'d>(kind: &'d Kind, root: &'d TypeDef) -> impl Iterator<Item = &'d Field> {
    root.named_fields().iter().filter(move |f| {
        !f.serde.skip
            && Some(&f.name) != kind.type_meta_field.as_ref()
            && f.wire_name.as_deref() != Some("metadata")
    })
}

/// The metadata fields every kind's configuration has a builder for (client-go's
/// `WithLabels`, …): maps, or lists of the item type given.
const METADATA_FIELDS: [(&str, Option<&str>); 4] = [
    ("labels", None),
    ("annotations", None),
    ("finalizers", Some("::std::string::String")),
    (
        "owner_references",
        Some("::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference"),
    ),
];

/// Two configured types of one version may not share a name, nor may a kind's field
/// take the name of a configuration's own member.
fn unique_names(
    version: &Version,
    kinds: &[&Kind],
    structs: &BTreeSet<String>,
    diags: &mut Diagnostics,
) -> bool {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    let named = kinds
        .iter()
        .map(|k| (k.name.as_str(), k.file.as_str(), k.pos))
        .chain(structs.iter().map(|id| {
            let def = &version.types[id];
            (def.key.name.as_str(), def.file.as_str(), def.pos)
        }));
    let mut ok = true;
    for kind in kinds.iter().filter(|k| k.style == KindStyle::Markers) {
        let Some(root) = version.types.get(&kind.root.id()) else {
            continue;
        };
        for field in kind_fields(kind, root) {
            let builder = names::builder(&field.name);
            let wire = field.wire_name.as_deref().unwrap_or_default();
            if METADATA_FIELDS
                .iter()
                .any(|(metadata, _)| names::builder(metadata) == builder)
                || ["apiVersion", "kind"].contains(&wire)
            {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::Conflict,
                        format!(
                            "field `{}` of kind `{}` would clash with its apply configuration's own `{builder}` or apiVersion/kind",
                            field.name, kind.name
                        ),
                    )
                    .at(&root.file, field.pos)
                    .hint("a kind's own fields sit beside its metadata: rename this one, or move it into the spec"),
                );
            }
        }
    }
    for (name, file, pos) in named {
        if let Some(other) = seen.insert(names::type_name(name), file) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "two types of `{}` are named `{name}` (here and in `{other}`): their apply configurations would share a name",
                        version.name
                    ),
                )
                .at(file, pos)
                .hint("rename one of them"),
            );
        }
    }
    ok
}

/// One field of a configuration.
struct ConfigField {
    /// The Rust name, as the original field's (`r#type` keeps its prefix).
    rust: String,
    wire: String,
    flatten: bool,
    shape: Shape,
}

/// What a field holds, which decides its builder.
enum Shape {
    /// A list of `item`: the builder appends.
    List { item: String },
    /// A map from `key` to `value`: the builder adds entries.
    Map {
        container: String,
        key: String,
        value: String,
    },
    /// Anything else: the builder sets it.
    Value(String),
}

impl Shape {
    fn type_text(&self) -> String {
        match self {
            Shape::List { item } => format!("::std::vec::Vec<{item}>"),
            Shape::Map {
                container,
                key,
                value,
            } => format!("{container}<{key}, {value}>"),
            Shape::Value(text) => text.clone(),
        }
    }
}

/// Builders for the metadata an apply commonly owns, as client-go's `WithLabels`, …:
/// one per `METADATA_FIELDS` entry, the same text for every kind.
fn metadata_builders() -> String {
    let mut out = String::new();
    for (field, list_item) in METADATA_FIELDS {
        let method = names::builder(field);
        let what = field.replace('_', " ");
        let _ = match list_item {
            None => write!(
                out,
                r#"    /// Adds {what}.
    pub fn {method}<K: ::std::convert::Into<::std::string::String>, V: ::std::convert::Into<::std::string::String>>(
        mut self,
        entries: impl ::std::iter::IntoIterator<Item = (K, V)>,
    ) -> Self {{
        let metadata = self.metadata.get_or_insert_with(::std::default::Default::default);
        metadata
            .{field}
            .get_or_insert_with(::std::default::Default::default)
            .extend(entries.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }}
"#
            ),
            Some(item) => write!(
                out,
                r#"    /// Adds {what}.
    pub fn {method}(mut self, items: impl ::std::iter::IntoIterator<Item = {item}>) -> Self {{
        let metadata = self.metadata.get_or_insert_with(::std::default::Default::default);
        metadata
            .{field}
            .get_or_insert_with(::std::default::Default::default)
            .extend(items);
        self
    }}
"#
            ),
        };
    }
    out
}

fn field_decls(fields: &[ConfigField]) -> String {
    let mut out = String::new();
    for field in fields {
        let serde = if field.flatten {
            "flatten, skip_serializing_if = \"::std::option::Option::is_none\"".to_owned()
        } else {
            format!(
                "rename = {:?}, skip_serializing_if = \"::std::option::Option::is_none\"",
                field.wire
            )
        };
        let _ = writeln!(
            out,
            "    #[serde({serde})]\n    pub {}: ::std::option::Option<{}>,",
            field.rust,
            field.shape.type_text()
        );
    }
    out
}

fn builders(fields: &[ConfigField]) -> String {
    let mut out = String::new();
    for field in fields {
        let method = names::builder(&field.rust);
        let rust = &field.rust;
        let wire = &field.wire;
        let _ = match &field.shape {
            Shape::List { item } => write!(
                out,
                r#"    /// Adds items to `{wire}`.
    pub fn {method}(mut self, items: impl ::std::iter::IntoIterator<Item = {item}>) -> Self {{
        self.{rust}.get_or_insert_with(::std::default::Default::default).extend(items);
        self
    }}
"#
            ),
            Shape::Map { key, value, .. } => write!(
                out,
                r#"    /// Adds entries to `{wire}`.
    pub fn {method}(mut self, entries: impl ::std::iter::IntoIterator<Item = ({key}, {value})>) -> Self {{
        self.{rust}.get_or_insert_with(::std::default::Default::default).extend(entries);
        self
    }}
"#
            ),
            Shape::Value(ty) => write!(
                out,
                r#"    /// Sets `{wire}`.
    pub fn {method}(mut self, value: impl ::std::convert::Into<{ty}>) -> Self {{
        self.{rust} = ::std::option::Option::Some(value.into());
        self
    }}
"#
            ),
        };
    }
    out
}
