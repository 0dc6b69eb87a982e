//! The intermediate representation every generator reads: plain, ordered data with no
//! syn types in it, serializable for snapshots.
//!
//! `parse` fills in the types as written; `markers` turns their doc comments into docs
//! and typed markers; `build` resolves type references, finds kinds and checks them.

mod aliases;
mod build;
mod derive;
mod facts;
mod fields;
mod group_name;
mod kinds;
mod names;
pub mod parsed;
pub mod rename;
mod resolve;

pub use build::build;
pub use facts::{Verb, storage_version};

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::Pos;
use crate::markers::{self, DocLine, Marker};
use rename::RenameRule;

#[derive(Debug, Default, Serialize)]
pub struct Model {
    /// Keyed by group directory.
    pub groups: BTreeMap<String, Group>,
}

impl Model {
    /// The version a type of `key` is declared in.
    pub fn version_of(&self, key: &TypeKey) -> Option<&Version> {
        self.groups.get(&key.group)?.versions.get(&key.version)
    }

    /// The struct or enum of `key`.
    pub fn type_def(&self, key: &TypeKey) -> Option<&TypeDef> {
        self.version_of(key)?.types.get(&key.id())
    }
}

#[derive(Debug, Serialize)]
pub struct Group {
    /// Directory and Rust module name, e.g. `bcrds`.
    pub dir: String,
    /// The API group's DNS name, e.g. `bcrds.example.com`.
    pub name: String,
    /// What its generated accessors and types are named after: `+groupGoName`, else `dir`.
    pub code_name: String,
    pub versions: BTreeMap<String, Version>,
}

#[derive(Debug, Serialize)]
pub struct Version {
    pub name: String,
    /// Package-level markers (`//!` in the version's or group's module file).
    pub markers: Vec<Marker>,
    /// Every `+groupName` and `+groupGoName` of the version's files, with the file it
    /// is in.
    #[serde(skip)]
    pub group_markers: Vec<(String, Marker)>,
    /// Keyed by kind name.
    pub kinds: BTreeMap<String, Kind>,
    /// Every struct and enum of the version, keyed by `TypeKey::id`.
    pub types: BTreeMap<String, TypeDef>,
    /// The version's aliases with docs or markers of their own, keyed by `TypeKey::id`:
    /// fields name them in [`Field::aliased`].
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub aliases: BTreeMap<String, Alias>,
}

/// A `pub type` alias with docs or markers of its own. Rust code sees through it, as
/// every generator does; the CRD schema of a field of its type has its docs and markers
/// too, as controller-gen gives a field of a Go alias the alias's
/// (`+kubebuilder:validation:MinLength=1` on `pub type Name = String` bounds each `Name`).
#[derive(Clone, Debug, Serialize)]
pub struct Alias {
    pub key: TypeKey,
    pub file: String,
    pub pos: Pos,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub docs: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub generics: Vec<String>,
    /// What it names, resolved; aliases in it are kept, so that theirs apply too.
    pub ty: TypeRef,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KindStyle {
    /// A struct with `metadata: ObjectMeta`, marked `+genclient` or
    /// `+kubebuilder:object:root=true`. crdgen generates its `Resource` impl.
    Markers,
    /// A `#[derive(CustomResource)]` spec struct; kube-derive generates the root type.
    KubeDerive,
}

#[derive(Debug, Serialize)]
pub struct Kind {
    pub name: String,
    pub style: KindStyle,
    /// The type that implements `kube::Resource`: the marked struct, or the root
    /// type kube-derive generates next to the spec struct.
    pub root: TypeKey,
    /// The module path generated code names the root type by, relative to the
    /// version module (see `TypeDef::reachable_via`).
    pub path: Vec<String>,
    /// The spec type, when the kind has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<TypeRef>,
    /// The status type (without `Option`), when the kind has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<TypeRef>,
    /// Whether the resource has a `/status` subresource: `+kubebuilder:subresource:status`,
    /// or kube-derive's `status = ..`.
    pub status_subresource: bool,
    pub plural: String,
    pub singular: String,
    /// Where the resource names are declared: the `+kubebuilder:resource` or
    /// `+resourceName` marker, the `#[kube(..)]` attribute, or the kind itself.
    #[serde(skip)]
    pub names_pos: Pos,
    pub namespaced: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// For marker-style kinds, the Rust name of the flattened `Option<TypeMeta>` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_meta_field: Option<String>,
    /// Markers on the kind's type (for kube-derive kinds, on the spec struct):
    /// `+genclient:*` options live here.
    #[serde(skip)]
    pub markers: Vec<crate::markers::Marker>,
    /// CEL rules on the root object (kube-derive's `validation`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub root_rules: Vec<RootRule>,
    /// Where the kind is declared.
    pub file: String,
    pub pos: Pos,
}

/// Identifies a type of the model: its group, version, and the file module it is
/// declared in (`None` for the version's module file).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct TypeKey {
    pub group: String,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    pub name: String,
}

impl TypeKey {
    /// The key within its version's `types` map: `example_types::ExampleSpec`.
    pub fn id(&self) -> String {
        match &self.module {
            Some(m) => format!("{m}::{}", self.name),
            None => self.name.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct TypeDef {
    pub key: TypeKey,
    pub file: String,
    pub pos: Pos,
    pub visibility: Visibility,
    /// The path generated code names the type by, relative to the version module:
    /// `[]` when the version module declares or re-exports it, `[file]` otherwise.
    /// `None` when generated code cannot name it at all.
    pub reachable_via: Option<Vec<String>>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub docs: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    /// Last segments of the `#[derive(..)]` paths.
    pub derives: Vec<String>,
    /// An `impl Clone for` this type was written by hand.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub manual_clone: bool,
    /// An `impl Serialize for` this type was written by hand: its JSON form is its own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub manual_serialize: bool,
    /// Type parameters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub generics: Vec<String>,
    /// Lifetime or const parameters, or a where clause: crdgen generates nothing that
    /// would have to repeat them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsupported_generics: bool,
    pub serde: SerdeContainer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube: Option<KubeAttrs>,
    pub body: Body,
    /// The doc lines as parsed; building the model takes its docs and markers from
    /// them and leaves this empty.
    #[serde(skip)]
    pub raw_docs: Vec<DocLine>,
}

impl Kind {
    /// Whether the kind gets a typed client, informer and lister: marker-style kinds
    /// when marked `+genclient` (as client-gen decides), kube-derive kinds always.
    pub fn has_client(&self) -> bool {
        self.style == KindStyle::KubeDerive || markers::GENCLIENT.is_set(&self.markers)
    }

    /// The `/scale` subresource, when the kind declares one with
    /// `+kubebuilder:subresource:scale` (or kube-derive's `scale`, said as that marker).
    pub fn scale(&self) -> Option<ScalePaths> {
        let path = |key: &str| {
            markers::SCALE
                .arg_text(&self.markers, key)
                .map(str::to_owned)
        };
        Some(ScalePaths {
            spec_replicas: path("specpath")?,
            status_replicas: path("statuspath")?,
            label_selector: path("selectorpath"),
        })
    }
}

/// Where a kind's `/scale` subresource reads and writes, as dotted paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

impl TypeDef {
    pub fn derives(&self, name: &str) -> bool {
        self.derives.iter().any(|d| d == name)
    }

    /// The named fields of a struct; empty for enums and tuple or unit structs.
    pub fn named_fields(&self) -> &[Field] {
        match &self.body {
            Body::Struct(Fields::Named(fields)) => fields,
            _ => &[],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    /// `pub`
    Public,
    /// `pub(crate)`
    Crate,
    /// `pub(super)`, `pub(in path)`, `pub(self)`
    Restricted,
    /// no `pub`
    Private,
}

impl Visibility {
    /// Whether code elsewhere in the crate (the generated modules) can use the item.
    pub fn crate_visible(self) -> bool {
        matches!(self, Visibility::Public | Visibility::Crate)
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Body {
    Struct(Fields),
    Enum(Vec<Variant>),
}

impl Body {
    /// Every field: the struct's, or those of every variant.
    pub fn fields_mut(&mut self) -> Vec<&mut Field> {
        match self {
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
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fields {
    Named(Vec<Field>),
    Tuple(Vec<Field>),
    Unit,
}

impl Field {
    /// The type as written (aliases with docs or markers kept): what its CRD schema is
    /// built from.
    pub fn written_ty(&self) -> &TypeRef {
        self.aliased.as_deref().unwrap_or(&self.ty)
    }
}

impl Fields {
    pub fn all(&self) -> &[Field] {
        match self {
            Fields::Named(f) | Fields::Tuple(f) => f,
            Fields::Unit => &[],
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Variant {
    pub name: String,
    /// The name on the wire, after serde's `rename` and `rename_all`.
    pub wire_name: String,
    pub pos: Pos,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub docs: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    pub serde: SerdeVariant,
    pub fields: Fields,
    /// The doc lines as parsed; building the model takes its docs and markers from
    /// them and leaves this empty.
    #[serde(skip)]
    pub raw_docs: Vec<DocLine>,
}

#[derive(Debug, Serialize)]
pub struct Field {
    /// The Rust name (`r#type` keeps its prefix); `0`, `1`… for tuple fields.
    pub name: String,
    /// The JSON name, after serde's `rename` and `rename_all`; `None` for tuple fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_name: Option<String>,
    pub pos: Pos,
    pub visibility: Visibility,
    pub ty: TypeRef,
    /// The type as written, resolved, when it names an alias with docs or markers of its
    /// own (`ty` has every alias replaced by what it names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliased: Option<Box<TypeRef>>,
    /// Whether the field may be absent on the wire: an `Option`, a serde default,
    /// or a `skip_serializing_if`.
    pub optional: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub docs: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    pub serde: SerdeField,
    /// The doc lines as parsed; building the model takes its docs and markers from
    /// them and leaves this empty.
    #[serde(skip)]
    pub raw_docs: Vec<DocLine>,
}

/// A type as written in a field, with the generic arguments of its last segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypeRef {
    Path {
        /// Segments as written; a leading `""` stands for a leading `::`.
        segments: Vec<String>,
        /// The lifetime arguments of its last segment (`'static` of `Cow<'static, str>`),
        /// which generated code repeats.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        lifetimes: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        args: Vec<TypeRef>,
        /// What the path names, once resolved through the file's `use` items.
        #[serde(skip_serializing_if = "Option::is_none")]
        /// Boxed: a model holds a type per field, and most paths name no target.
        target: Option<Box<Target>>,
    },
    /// `[T; N]`, with its length: digits when written as a literal (`3`, `{ 3 }`), or a
    /// file's `const` of one; else as written.
    Array { elem: Box<TypeRef>, len: String },
    /// Tuples, references and the like, as written.
    Other(String),
}

impl TypeRef {
    /// The last path segment (`Option`, `ObjectMeta`), if the type is a path.
    pub fn last_segment(&self) -> Option<&str> {
        match self {
            TypeRef::Path { segments, .. } => segments.last().map(String::as_str),
            TypeRef::Array { .. } | TypeRef::Other(_) => None,
        }
    }

    /// The type with the single-segment names in `bindings` (type parameters) replaced.
    pub fn substituted(&self, bindings: &BTreeMap<String, TypeRef>) -> TypeRef {
        match self {
            TypeRef::Path { segments, .. }
                if segments.len() == 1 && bindings.contains_key(&segments[0]) =>
            {
                bindings[&segments[0]].clone()
            }
            TypeRef::Path {
                segments,
                lifetimes,
                args,
                target,
            } => TypeRef::Path {
                segments: segments.clone(),
                lifetimes: lifetimes.clone(),
                args: args.iter().map(|a| a.substituted(bindings)).collect(),
                target: target.clone(),
            },
            TypeRef::Array { elem, len } => TypeRef::Array {
                elem: Box::new(elem.substituted(bindings)),
                len: len.clone(),
            },
            TypeRef::Other(text) => TypeRef::Other(text.clone()),
        }
    }

    /// `T` when the type is `Option<T>`.
    pub fn option_inner(&self) -> Option<&TypeRef> {
        match self {
            TypeRef::Path { args, .. } if self.last_segment() == Some("Option") => args.first(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// A struct or enum of the model.
    Local(TypeKey),
    /// A path that is valid anywhere in the crate: `crate::…` or `some_crate::…`.
    Absolute(String),
}

#[derive(Debug, Default, Serialize)]
pub struct SerdeContainer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename_all: Option<RenameRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untagged: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub transparent: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deny_unknown_fields: bool,
    /// The type of `into = "…"`: what the type's `Serialize` writes, its own fields
    /// being for Rust only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire: Option<TypeRef>,
}

#[derive(Debug, Default, Serialize)]
pub struct SerdeField {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flatten: bool,
    /// `skip`, or both `skip_serializing` and `skip_deserializing`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skip: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skip_serializing_if: bool,
    /// `with = "…"` or `serialize_with = "…"`: the module or function that writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct SerdeVariant {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename_all: Option<RenameRule>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skip: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub other: bool,
}

/// The `#[kube(...)]` attributes of a `#[derive(CustomResource)]` spec struct that
/// crdgen reads.
#[derive(Debug, Default, Serialize)]
pub struct KubeAttrs {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// `root = ".."`: the name of the generated root type, when not the kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub namespaced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plural: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub singular: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// `printcolumn(..)` or `printcolumn = "{json}"`, as named arguments in
    /// `+kubebuilder:printcolumn`'s spelling.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub printcolumns: Vec<BTreeMap<String, String>>,
    /// `scale(..)`, in `+kubebuilder:subresource:scale`'s spelling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectable: Vec<String>,
    /// `storage = false` / `served = false` (both default to true in kube-derive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served: Option<bool>,
    /// `deprecated` (`Some(None)`) or `deprecated = "warning"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<Option<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<(String, String)>,
    /// `validation = "rule"` or `validation = Rule::new("rule").message("..")`: CEL
    /// rules on the root object.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validations: Vec<RootRule>,
    /// `doc = ".."`: the root schema's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    #[serde(skip)]
    pub pos: Pos,
}

/// A CEL rule on a kind's root object, with the message the apiserver gives when it
/// fails (`x-kubernetes-validations`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RootRule {
    pub rule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
