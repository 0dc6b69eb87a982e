//! `register`: what makes a marker-style kind a Kubernetes resource to kube —
//! `impl kube::Resource`, the group and version constants, and a constructor that
//! fills in `apiVersion` and `kind`. kube-derive kinds already have all of it.

use super::{Context, Definition, Generator, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Kind, KindStyle, TypeDef};
use crate::naming::{self, consts};

/// The `register` generator.
pub(super) const GENERATOR: Definition =
    Definition::rust("register", generate).brings(&[Generator::Conversion]);

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let tree = &mut out.rust;
    for (group_name, version) in ctx.versions() {
        let kinds: Vec<&Kind> = version
            .kinds
            .values()
            .filter(|k| k.style == KindStyle::Markers)
            .collect();
        let Some(first) = kinds.first() else { continue };
        let api_version = format!("{group_name}/{}", version.name);
        let version_name = &version.name;
        let (group, version_const, api_version_const) =
            (consts::GROUP, consts::VERSION, consts::API_VERSION);
        let module = ctx
            .apis_module(tree, &first.root)
            .child(naming::modules::REGISTER, || {
                "Group and version constants, `kube::Resource` impls and constructors.".to_owned()
            });
        module.push_text(&format!(
            r#"/// The API group of this package: `{group_name}`.
pub const {group}: &str = {group_name:?};
/// The API version of this package: `{version_name}`.
pub const {version_const}: &str = {version_name:?};
/// The `apiVersion` of objects in this package: `{api_version}`.
pub const {api_version_const}: &str = {api_version:?};
"#
        ));
        for kind in kinds.iter().copied() {
            module.push_text(&resource_impl(ctx, kind));
            if let Some(def) = version.types.get(&kind.root.id()) {
                module.push_text(&constructor(ctx, kind, def, diags));
            }
        }
    }
}

/// `impl kube::Resource`, as text: its shape is fixed (see `client::kind_clients`).
fn resource_impl(ctx: &Context<'_>, kind: &Kind) -> String {
    let ty = ctx.type_path(&kind.root, &kind.path);
    let scope = if kind.namespaced {
        "NamespaceResourceScope"
    } else {
        "ClusterResourceScope"
    };
    let (name, plural) = (&kind.name, &kind.plural);
    let (group, version, api_version) = (consts::GROUP, consts::VERSION, consts::API_VERSION);
    let cow = "::std::borrow::Cow<'_, str>";
    format!(
        r#"impl ::kube::core::Resource for {ty} {{
    type DynamicType = ();
    type Scope = ::kube::core::{scope};
    fn kind(_: &()) -> {cow} {{
        ::std::borrow::Cow::Borrowed({name:?})
    }}
    fn group(_: &()) -> {cow} {{
        ::std::borrow::Cow::Borrowed({group})
    }}
    fn version(_: &()) -> {cow} {{
        ::std::borrow::Cow::Borrowed({version})
    }}
    fn api_version(_: &()) -> {cow} {{
        ::std::borrow::Cow::Borrowed({api_version})
    }}
    fn plural(_: &()) -> {cow} {{
        ::std::borrow::Cow::Borrowed({plural:?})
    }}
    fn meta(&self) -> &{OBJECT_META} {{
        &self.metadata
    }}
    fn meta_mut(&mut self) -> &mut {OBJECT_META} {{
        &mut self.metadata
    }}
}}
"#
    )
}

const OBJECT_META: &str = "::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta";

/// `Kind::new(name, spec)`, which sets `apiVersion` and `kind` so that the object
/// carries them on the wire. Skipped, with a warning, when a field has no obvious
/// starting value. Text, laid out as rustfmt would at any name length.
fn constructor(ctx: &Context<'_>, kind: &Kind, def: &TypeDef, diags: &mut Diagnostics) -> String {
    let ty = ctx.type_path(&kind.root, &kind.path);
    let mut params = String::new();
    let mut inits = String::new();
    let mut uncovered = None;
    for field in def.named_fields() {
        let ident = naming::ident(&field.name);
        let wire = field.wire_name.as_deref();
        let init = if Some(field.name.as_str()) == kind.type_meta_field.as_deref() {
            format!(
                "{ident}: ::std::option::Option::Some(::kube::core::TypeMeta::resource::<Self>()),"
            )
        } else if wire == Some("metadata") && !field.serde.flatten {
            format!(
                "{ident}: {OBJECT_META} {{
                name: ::std::option::Option::Some(::std::borrow::ToOwned::to_owned(name)),
                ..::std::default::Default::default()
            }},"
            )
        } else if wire == Some("spec") && !field.serde.flatten {
            match ctx.type_text(&field.ty) {
                Ok(spec_ty) => {
                    params.push_str(&format!(", {ident}: {spec_ty}"));
                    format!("{ident},")
                }
                Err(unreachable) => {
                    diags.push(
                        Diagnostic::error(Code::UnreachableType, format!("generated code cannot name `{unreachable}`, the spec type of kind `{}`", kind.name))
                            .at(&def.file, field.pos)
                            .hint("name the spec type by a path crdgen can follow: declare it in the kind's file, or import it with a `use` item"),
                    );
                    return String::new();
                }
            }
        } else if field.ty.option_inner().is_some() {
            format!("{ident}: ::std::option::Option::None,")
        } else {
            uncovered.get_or_insert(field);
            continue;
        };
        inits.push_str(&format!("            {init}\n"));
    }
    match uncovered {
        None => {}
        Some(_) if def.derives("Default") => {
            inits.push_str("            ..::std::default::Default::default()\n");
        }
        Some(field) => {
            diags.push(
                Diagnostic::warning(
                    Code::Unsupported,
                    format!(
                        "no `{}::new`: field `{}` has no obvious starting value",
                        kind.name, field.name
                    ),
                )
                .at(&def.file, field.pos)
                .hint("make the field an `Option`, or derive `Default` on the kind"),
            );
            return String::new();
        }
    }
    let name = &kind.name;
    format!(
        r#"impl {ty} {{
    /// A new `{name}` named `name`, carrying `apiVersion` and `kind` so that kube can create or apply it as it is.
    pub fn new(name: &str{params}) -> Self {{
        Self {{
{inits}        }}
    }}
}}
"#
    )
}
