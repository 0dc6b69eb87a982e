//! `register`: what makes a marker-style kind a Kubernetes resource to kube —
//! `impl kube::Resource`, the group and version constants, and a constructor that
//! fills in `apiVersion` and `kind`. kube-derive kinds already have all of it.

use proc_macro2::TokenStream;
use quote::quote;

use super::Context;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::emit::{RustModule, doc};
use crate::model::{Kind, KindStyle, TypeDef};
use crate::naming::{self, consts};

pub fn generate(ctx: &Context<'_>, tree: &mut RustModule, diags: &mut Diagnostics) {
    for (group_name, version) in ctx.versions() {
        let kinds: Vec<&Kind> = version
            .kinds
            .values()
            .filter(|k| k.style == KindStyle::Markers)
            .collect();
        let Some(first) = kinds.first() else { continue };
        let group_const = naming::ident(consts::GROUP);
        let version_const = naming::ident(consts::VERSION);
        let api_version_const = naming::ident(consts::API_VERSION);
        let api_version = format!("{group_name}/{}", version.name);
        let version_name = &version.name;
        let group_doc = doc(&format!("The API group of this package: `{group_name}`."));
        let version_doc = doc(&format!(
            "The API version of this package: `{version_name}`."
        ));
        let api_version_doc = doc(&format!(
            "The `apiVersion` of objects in this package: `{api_version}`."
        ));
        let mut items = quote! {
            #group_doc
            pub const #group_const: &str = #group_name;
            #version_doc
            pub const #version_const: &str = #version_name;
            #api_version_doc
            pub const #api_version_const: &str = #api_version;
        };
        for kind in kinds.iter().copied() {
            let def = version.types.get(&kind.root.id());
            items.extend(resource_impl(ctx, kind));
            if let Some(def) = def {
                items.extend(constructor(ctx, kind, def, diags));
            }
        }
        let module = ctx.apis_module(tree, &first.root);
        module
            .child(naming::modules::REGISTER, || {
                "Group and version constants, `kube::Resource` impls and constructors.".to_owned()
            })
            .push(items);
    }
}

fn resource_impl(ctx: &Context<'_>, kind: &Kind) -> TokenStream {
    let ty = ctx.type_path(&kind.root, &kind.path);
    let scope = if kind.namespaced {
        quote!(::kube::core::NamespaceResourceScope)
    } else {
        quote!(::kube::core::ClusterResourceScope)
    };
    let (name, plural) = (&kind.name, &kind.plural);
    let group = naming::ident(consts::GROUP);
    let version = naming::ident(consts::VERSION);
    let api_version = naming::ident(consts::API_VERSION);
    let object_meta = object_meta();
    quote! {
        impl ::kube::core::Resource for #ty {
            type DynamicType = ();
            type Scope = #scope;

            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#group)
            }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#version)
            }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#api_version)
            }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(#plural)
            }
            fn meta(&self) -> &#object_meta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut #object_meta {
                &mut self.metadata
            }
        }
    }
}

fn object_meta() -> TokenStream {
    quote!(::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)
}

/// `Kind::new(name, spec)`, which sets `apiVersion` and `kind` so that the object
/// carries them on the wire. Skipped, with a warning, when a field has no obvious
/// starting value.
fn constructor(
    ctx: &Context<'_>,
    kind: &Kind,
    def: &TypeDef,
    diags: &mut Diagnostics,
) -> TokenStream {
    let ty = ctx.type_path(&kind.root, &kind.path);
    let object_meta = object_meta();
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut uncovered = None;
    for field in def.named_fields() {
        let ident = naming::ident(&field.name);
        let wire = field.wire_name.as_deref();
        if Some(field.name.as_str()) == kind.type_meta_field.as_deref() {
            inits.push(quote!(#ident: ::std::option::Option::Some(::kube::core::TypeMeta::resource::<Self>())));
        } else if wire == Some("metadata") && !field.serde.flatten {
            inits.push(quote!(#ident: #object_meta {
                name: ::std::option::Option::Some(::std::borrow::ToOwned::to_owned(name)),
                ..::std::default::Default::default()
            }));
        } else if wire == Some("spec") && !field.serde.flatten {
            match ctx.type_tokens(&field.ty) {
                Ok(spec_ty) => {
                    params.push(quote!(#ident: #spec_ty));
                    inits.push(quote!(#ident));
                }
                Err(unreachable) => {
                    diags.push(
                        Diagnostic::error(Code::UnreachableType, format!("generated code cannot name `{unreachable}`, the spec type of kind `{}`", kind.name))
                            .at(&def.file, field.pos)
                            .hint("name the spec type by a path crdgen can follow: declare it in the kind's file, or import it with a `use` item"),
                    );
                    return TokenStream::new();
                }
            }
        } else if field.ty.option_inner().is_some() {
            inits.push(quote!(#ident: ::std::option::Option::None));
        } else {
            uncovered.get_or_insert(field);
        }
    }
    let rest = match uncovered {
        None => None,
        Some(_) if def.derives("Default") => Some(quote!(..::std::default::Default::default())),
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
            return TokenStream::new();
        }
    };
    let docs = doc(&format!(
        "A new `{}` named `name`, carrying `apiVersion` and `kind` so that kube can create or apply it as it is.",
        kind.name
    ));
    quote! {
        impl #ty {
            #docs
            pub fn new(name: &str, #(#params),*) -> Self {
                Self {
                    #(#inits,)*
                    #rest
                }
            }
        }
    }
}
