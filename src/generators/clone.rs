//! `clone` (alias `deepcopy`): `impl Clone` for every API type that neither derives nor
//! implements it, so that every kind and everything it holds can be copied. Rust's
//! answer to deepcopy-gen: a field-by-field clone, exactly what `#[derive(Clone)]`
//! would write.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Context;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::emit::RustModule;
use crate::model::{Body, Fields, TypeDef};
use crate::naming;

pub fn generate(ctx: &Context<'_>, tree: &mut RustModule, diags: &mut Diagnostics) {
    for (_, version) in ctx.versions() {
        let mut items = TokenStream::new();
        let mut key = None;
        for def in version.types.values() {
            if def.derives("Clone") || def.manual_clone {
                continue;
            }
            if let Some(tokens) = clone_impl(ctx, def, diags) {
                items.extend(tokens);
                key.get_or_insert(&def.key);
            }
        }
        if let Some(key) = key {
            ctx.apis_module(tree, key)
                .child(naming::modules::CLONE, || {
                    "`Clone` for the API types that do not derive it.".to_owned()
                })
                .push(items);
        }
    }
}

fn clone_impl(ctx: &Context<'_>, def: &TypeDef, diags: &mut Diagnostics) -> Option<TokenStream> {
    let name = &def.key.name;
    let refuse = |diags: &mut Diagnostics, pos, message: String, hint: &str| {
        diags.push(
            Diagnostic::error(Code::Unsupported, message)
                .at(&def.file, pos)
                .hint(hint),
        );
    };
    if def.unsupported_generics {
        refuse(
            diags,
            def.pos,
            format!(
                "cannot generate `Clone` for `{name}`: it has lifetime or const parameters or a where clause"
            ),
            "derive `Clone` on it",
        );
        return None;
    }
    let Some(via) = &def.reachable_via else {
        let hint = if def.visibility.crate_visible() {
            "declare its module `pub`, re-export it from the version's mod.rs, or derive `Clone` on it"
        } else {
            "make it `pub`, or derive `Clone` on it"
        };
        diags.push(
            Diagnostic::error(
                Code::UnreachableType,
                format!("generated code cannot name `{name}` to implement `Clone` for it"),
            )
            .at(&def.file, def.pos)
            .hint(hint),
        );
        return None;
    };
    if let Body::Struct(fields) = &def.body
        && let Some(private) = fields.all().iter().find(|f| !f.visibility.crate_visible())
    {
        refuse(
            diags,
            private.pos,
            format!(
                "cannot generate `Clone` for `{name}`: field `{}` is private to its module",
                private.name
            ),
            "make the field `pub` or `pub(crate)`, or derive `Clone` on the type",
        );
        return None;
    }

    let path = ctx.type_path(&def.key, via);
    let params: Vec<_> = def
        .generics
        .iter()
        .map(|g| format_ident!("{}", g))
        .collect();
    let (impl_generics, ty_generics) = if params.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        (
            quote!(<#(#params: ::core::clone::Clone),*>),
            quote!(<#(#params),*>),
        )
    };
    let body = match &def.body {
        Body::Struct(Fields::Unit) => quote!(Self),
        Body::Struct(fields) => {
            let (pattern, rebuilt) = destructure(quote!(Self), fields);
            quote! {
                let #pattern = self;
                #rebuilt
            }
        }
        Body::Enum(variants) if variants.is_empty() => quote!(match *self {}),
        Body::Enum(variants) => {
            let arms = variants.iter().map(|v| {
                let variant = naming::ident(&v.name);
                let (pattern, rebuilt) = destructure(quote!(Self::#variant), &v.fields);
                quote!(#pattern => #rebuilt,)
            });
            quote!(match self { #(#arms)* })
        }
    };
    Some(quote! {
        impl #impl_generics ::core::clone::Clone for #path #ty_generics {
            fn clone(&self) -> Self {
                #body
            }
        }
    })
}

/// A pattern binding every field of `ctor` by reference, and the expression that
/// rebuilds it from clones of those bindings.
fn destructure(ctor: TokenStream, fields: &Fields) -> (TokenStream, TokenStream) {
    let clone = quote!(::core::clone::Clone::clone);
    match fields {
        Fields::Named(fields) => {
            let names: Vec<_> = fields.iter().map(|f| naming::ident(&f.name)).collect();
            let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("f{i}")).collect();
            (
                quote!(#ctor { #(#names: #bindings),* }),
                quote!(#ctor { #(#names: #clone(#bindings)),* }),
            )
        }
        Fields::Tuple(fields) => {
            let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("f{i}")).collect();
            (
                quote!(#ctor(#(#bindings),*)),
                quote!(#ctor(#(#clone(#bindings)),*)),
            )
        }
        Fields::Unit => (ctor.clone(), ctor),
    }
}
