//! `clone` (alias `deepcopy`): `impl Clone` for every API type that neither derives nor
//! implements it, so that every kind and everything it holds can be copied. Rust's
//! answer to deepcopy-gen: a field-by-field clone, exactly what `#[derive(Clone)]`
//! would write.

use std::fmt::Write as _;

use super::{Context, Definition, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Body, Fields, TypeDef};
use crate::naming;

/// The `clone` generator.
pub(super) const GENERATOR: Definition = Definition::rust("clone", generate).aliases(&["deepcopy"]);

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let tree = &mut out.rust;
    for (_, version) in ctx.versions() {
        let mut items = String::new();
        let mut key = None;
        // `+kubebuilder:object:generate=false` on the package or the type: no copy
        // generated (controller-gen's deepcopy switch); a type's own marker wins.
        let generate = |markers: &[crate::markers::Marker]| match crate::markers::OBJECT_GENERATE
            .value(markers)
        {
            Some(crate::markers::Value::Bool(on)) => Some(*on),
            _ => None,
        };
        let package = generate(&version.markers).unwrap_or(true);
        for def in version.types.values() {
            if def.derives("Clone")
                || def.manual_clone
                || !generate(&def.markers).unwrap_or(package)
            {
                continue;
            }
            if let Some(text) = clone_impl(ctx, def, diags) {
                items.push_str(&text);
                key.get_or_insert(&def.key);
            }
        }
        if let Some(key) = key {
            ctx.apis_module(tree, key)
                .child(naming::modules::CLONE, || {
                    "`Clone` for the API types that do not derive it.".to_owned()
                })
                .push_text(&items);
        }
    }
}

/// The `impl Clone` of `def`, as text: a field-by-field clone has one shape, so it is
/// written as it reads rather than built as tokens and formatted.
fn clone_impl(ctx: &Context<'_>, def: &TypeDef, diags: &mut Diagnostics) -> Option<String> {
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
    let (impl_generics, ty_generics) = if def.generics.is_empty() {
        (String::new(), String::new())
    } else {
        let bounded: Vec<String> = def
            .generics
            .iter()
            .map(|g| format!("{g}: ::core::clone::Clone"))
            .collect();
        (
            format!("<{}>", bounded.join(", ")),
            format!("<{}>", def.generics.join(", ")),
        )
    };
    let body = match &def.body {
        Body::Struct(Fields::Unit) => "        Self\n".to_owned(),
        Body::Struct(fields) => {
            let (pattern, rebuilt) = destructure("Self", fields, "        ");
            format!("        let {pattern} = self;\n        {rebuilt}\n")
        }
        Body::Enum(variants) if variants.is_empty() => "        match *self {}\n".to_owned(),
        Body::Enum(variants) => {
            let mut arms = String::new();
            for v in variants {
                let ctor = format!("Self::{}", naming::ident(&v.name));
                let (pattern, rebuilt) = destructure(&ctor, &v.fields, "            ");
                let _ = writeln!(arms, "            {pattern} => {rebuilt},");
            }
            format!("        match self {{\n{arms}        }}\n")
        }
    };
    Some(format!(
        "impl{impl_generics} ::core::clone::Clone for {path}{ty_generics} {{\n    fn clone(&self) -> Self {{\n{body}    }}\n}}\n"
    ))
}

/// A pattern binding every field of `ctor` by reference, and the expression that
/// rebuilds it from clones of those bindings (a named field a line, after `indent`).
fn destructure(ctor: &str, fields: &Fields, indent: &str) -> (String, String) {
    const CLONE: &str = "::core::clone::Clone::clone";
    match fields {
        Fields::Named(fields) => {
            let names: Vec<String> = fields
                .iter()
                .map(|f| naming::ident(&f.name).to_string())
                .collect();
            let bound: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, name)| format!("{name}: f{i}"))
                .collect();
            let rebuilt: String = names
                .iter()
                .enumerate()
                .map(|(i, name)| format!("{indent}    {name}: {CLONE}(f{i}),\n"))
                .collect();
            (
                format!("{ctor} {{ {} }}", bound.join(", ")),
                format!("{ctor} {{\n{rebuilt}{indent}}}"),
            )
        }
        Fields::Tuple(fields) => {
            let bindings: Vec<String> = (0..fields.len()).map(|i| format!("f{i}")).collect();
            let clones: Vec<String> = bindings.iter().map(|b| format!("{CLONE}({b})")).collect();
            (
                format!("{ctor}({})", bindings.join(", ")),
                format!("{ctor}({})", clones.join(", ")),
            )
        }
        Fields::Unit => (ctor.to_owned(), ctor.to_owned()),
    }
}
