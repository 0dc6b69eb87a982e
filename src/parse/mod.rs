//! Reads one Rust source file with syn and turns what crdgen needs of it into model
//! data: types with their fields and attributes, doc comments, module declarations and
//! `use` items. Nothing of syn outlives this module.

mod attrs;
mod comments;
mod depth;

use std::collections::BTreeMap;
use std::str::FromStr;

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::DocLine;
use crate::model::parsed::{ModDecl, ParsedFile, ParsedGroup, ParsedVersion, TypeAlias, UseEntry};
use crate::model::{Body, Field, Fields, TypeDef, TypeKey, TypeRef, Variant, Visibility};
use crate::naming;
use crate::source::SourceFile;

/// Parses `file` of `group`/`version`. Errors go to `diags`; `None` when the file is
/// not valid Rust.
pub fn parse_file(
    group: &str,
    version: &str,
    file: &SourceFile,
    diags: &mut Diagnostics,
) -> Option<ParsedFile> {
    let (text, tokens) = lex(file, diags)?;
    let comment_markers = comments::markers_in_plain_comments(text, &tokens);
    let ast = match syn::parse2::<syn::File>(tokens) {
        Ok(ast) => ast,
        Err(e) => {
            malformed(file, Pos::of(e.span()), &e.to_string(), diags);
            return None;
        }
    };

    let mut ctx = Ctx {
        path: &file.path,
        diags,
    };
    let mut out = ParsedFile {
        path: file.path.clone(),
        module: file.module.clone(),
        inner_docs: doc_lines(&ast.attrs, true),
        mods: Vec::new(),
        uses: Vec::new(),
        types: Vec::new(),
        aliases: Vec::new(),
        manual_impls: Vec::new(),
        comment_markers,
    };
    for item in &ast.items {
        match item {
            syn::Item::Struct(s) => {
                let body = Body::Struct(ctx.fields(&s.fields));
                out.types.push(ctx.type_def(
                    group,
                    version,
                    file,
                    TypeParts {
                        ident: &s.ident,
                        attrs: &s.attrs,
                        vis: &s.vis,
                        generics: &s.generics,
                        body,
                    },
                ));
            }
            syn::Item::Enum(e) => {
                let variants = e.variants.iter().map(|v| ctx.variant(v)).collect();
                out.types.push(ctx.type_def(
                    group,
                    version,
                    file,
                    TypeParts {
                        ident: &e.ident,
                        attrs: &e.attrs,
                        vis: &e.vis,
                        generics: &e.generics,
                        body: Body::Enum(variants),
                    },
                ));
            }
            syn::Item::Type(t) => out.aliases.push(TypeAlias {
                key: TypeKey {
                    group: group.to_owned(),
                    version: version.to_owned(),
                    module: file.module.clone(),
                    name: naming::unraw(&t.ident.to_string()).to_owned(),
                },
                pos: Pos::of(t.ident.span()),
                generics: t
                    .generics
                    .type_params()
                    .map(|p| p.ident.to_string())
                    .collect(),
                ty: type_ref(&t.ty),
                raw_docs: doc_lines(&t.attrs, false),
            }),
            syn::Item::Mod(m) if m.content.is_none() => out.mods.push(ModDecl {
                name: naming::unraw(&m.ident.to_string()).to_owned(),
                visibility: visibility(&m.vis),
                pos: Pos::of(m.ident.span()),
            }),
            syn::Item::Use(u) => {
                flatten_use(&u.tree, &mut Vec::new(), visibility(&u.vis), &mut out.uses)
            }
            syn::Item::Impl(i) => {
                let implemented = i
                    .trait_
                    .as_ref()
                    .and_then(|(path, _)| path.segments.last())
                    .map(|s| s.ident.to_string());
                if let (Some(trait_name), syn::Type::Path(p)) = (implemented, &*i.self_ty)
                    && let Some(last) = p.path.segments.last()
                    && ["Clone", "Serialize"].contains(&trait_name.as_str())
                {
                    out.manual_impls.push((trait_name, last.ident.to_string()));
                }
            }
            _ => {}
        }
    }
    let lengths = array_lengths(&ast.items);
    if !lengths.is_empty() {
        for def in &mut out.types {
            for field in def.body.fields_mut() {
                name_lengths(&mut field.ty, &lengths);
            }
        }
        for alias in &mut out.aliases {
            name_lengths(&mut alias.ty, &lengths);
        }
    }
    Some(out)
}

/// The file's `const N: usize = 3;` items, by name: what an array's length may name
/// (`[String; N]`).
fn array_lengths(items: &[syn::Item]) -> BTreeMap<String, String> {
    items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Const(c) => match &*c.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => Some((c.ident.to_string(), n.base10_digits().to_owned())),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Replaces an array length naming one of `lengths` by its value.
fn name_lengths(ty: &mut TypeRef, lengths: &BTreeMap<String, String>) {
    match ty {
        TypeRef::Array { elem, len } => {
            if let Some(n) = lengths.get(len.as_str()) {
                *len = n.clone();
            }
            name_lengths(elem, lengths);
        }
        TypeRef::Path { args, .. } => args.iter_mut().for_each(|a| name_lengths(a, lengths)),
        TypeRef::Other(_) => {}
    }
}

/// The file's text (without a byte order mark) and its tokens, or `None` after
/// reporting why it cannot be read as Rust.
fn lex<'f>(file: &'f SourceFile, diags: &mut Diagnostics) -> Option<(&'f str, TokenStream)> {
    let text = file.text.strip_prefix('\u{feff}').unwrap_or(&file.text);
    let tokens = match TokenStream::from_str(text) {
        Ok(tokens) => tokens,
        Err(e) => {
            malformed(file, Pos::of(e.span()), &e.to_string(), diags);
            return None;
        }
    };
    if let Some(span) = depth::too_deep(&tokens) {
        diags.push(
            Diagnostic::error(
                Code::Limit,
                format!("this file nests deeper than {} levels", depth::MAX_NESTING),
            )
            .at(&file.path, Pos::of(span))
            .hint("crdgen reads at most this many nested brackets and generic arguments; name the inner part as a type of its own"),
        );
        return None;
    }
    Some((text, tokens))
}

fn malformed(file: &SourceFile, pos: Pos, message: &str, diags: &mut Diagnostics) {
    diags.push(
        Diagnostic::error(
            Code::MalformedRust,
            format!("this file is not valid Rust: {message}"),
        )
        .at(&file.path, pos)
        .hint("crdgen reads Rust with syn; `cargo check` shows the same mistake"),
    );
}

/// What markers that belong to no type (`+kubebuilder:rbac`) are read from.
pub struct DocComments {
    /// Every doc comment line, wherever it stands: on items, fields, statements in
    /// function bodies, `//!`.
    pub lines: Vec<DocLine>,
    /// Lines of plain comments that look like markers, with where their `+` is.
    pub in_plain_comments: Vec<(Pos, String)>,
}

/// The doc comments of `file`; `None` when it is not valid Rust.
pub fn doc_comments(file: &SourceFile, diags: &mut Diagnostics) -> Option<DocComments> {
    let (text, tokens) = lex(file, diags)?;
    let in_plain_comments = comments::markers_in_plain_comments(text, &tokens);
    let mut lines = Vec::new();
    collect_doc_lines(tokens, &mut lines);
    Some(DocComments {
        lines,
        in_plain_comments,
    })
}

/// Doc attributes (`#[doc = ".."]`, which `///` and `//!` are) anywhere in `tokens`.
fn collect_doc_lines(tokens: TokenStream, out: &mut Vec<DocLine>) {
    use proc_macro2::{Delimiter, TokenTree};
    use syn::parse::Parser;
    let is_punct =
        |c: char| move |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == c);
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(pound) if pound.as_char() == '#' => {
                let bang = trees.next_if(is_punct('!'));
                let Some(body) = trees.next_if(
                    |t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket),
                ) else {
                    continue;
                };
                let inner = bang.is_some();
                let attr: TokenStream = std::iter::once(TokenTree::Punct(pound))
                    .chain(bang)
                    .chain(std::iter::once(body))
                    .collect();
                let parser = if inner {
                    syn::Attribute::parse_inner
                } else {
                    syn::Attribute::parse_outer
                };
                if let Ok(attrs) = parser.parse2(attr) {
                    out.extend(doc_lines(&attrs, inner));
                }
            }
            TokenTree::Group(group) => collect_doc_lines(group.stream(), out),
            _ => {}
        }
    }
}

/// The lines of the doc attributes among `attrs` (inner ones: `//!`), each with where
/// its text starts.
fn doc_lines(attrs: &[syn::Attribute], inner: bool) -> Vec<DocLine> {
    let mut lines = Vec::new();
    for attr in attrs {
        if matches!(attr.style, syn::AttrStyle::Inner(_)) != inner || !attr.path().is_ident("doc") {
            continue;
        }
        let syn::Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &nv.value
        else {
            continue;
        };
        let value = s.value();
        // A `///`, `//!` or `/** */` comment becomes an attribute whose every token
        // has the comment's span; a written-out `#[doc = ".."]` has distinct spans.
        let start = Pos::of(attr.pound_token.span);
        let literal = Pos::of(s.span());
        let (first_col, text_start) = if start == literal {
            (start.col + 3, start)
        } else {
            (literal.col + 1, literal)
        };
        for (i, line) in value.split('\n').enumerate() {
            lines.push(DocLine {
                text: line.to_owned(),
                pos: Pos {
                    line: text_start.line + i,
                    col: if i == 0 { first_col } else { 1 },
                },
            });
        }
    }
    lines
}

struct TypeParts<'a> {
    ident: &'a syn::Ident,
    attrs: &'a [syn::Attribute],
    vis: &'a syn::Visibility,
    generics: &'a syn::Generics,
    body: Body,
}

struct Ctx<'a> {
    path: &'a str,
    diags: &'a mut Diagnostics,
}

impl Ctx<'_> {
    fn type_def(
        &mut self,
        group: &str,
        version: &str,
        file: &SourceFile,
        parts: TypeParts<'_>,
    ) -> TypeDef {
        // `r#match` names the type `match`: generated names are built from the bare word.
        let name = naming::unraw(&parts.ident.to_string()).to_owned();
        let pos = Pos::of(parts.ident.span());
        TypeDef {
            key: TypeKey {
                group: group.to_owned(),
                version: version.to_owned(),
                module: file.module.clone(),
                name,
            },
            file: self.path.to_owned(),
            pos,
            visibility: visibility(parts.vis),
            reachable_via: None,
            docs: String::new(),
            markers: Vec::new(),
            derives: attrs::derives(parts.attrs, self),
            manual_clone: false,
            manual_serialize: false,
            generics: parts
                .generics
                .type_params()
                .map(|p| p.ident.to_string())
                .collect(),
            unsupported_generics: parts.generics.where_clause.is_some()
                || parts.generics.lifetimes().next().is_some()
                || parts.generics.const_params().next().is_some(),
            serde: attrs::serde_container(parts.attrs, self),
            kube: attrs::kube_attrs(parts.attrs, self),
            body: parts.body,
            raw_docs: doc_lines(parts.attrs, false),
        }
    }

    fn variant(&mut self, v: &syn::Variant) -> Variant {
        let name = v.ident.to_string();
        Variant {
            wire_name: name.clone(),
            pos: Pos::of(v.ident.span()),
            docs: String::new(),
            markers: Vec::new(),
            serde: attrs::serde_variant(&v.attrs, self),
            fields: self.fields(&v.fields),
            raw_docs: doc_lines(&v.attrs, false),
            name,
        }
    }

    fn fields(&mut self, fields: &syn::Fields) -> Fields {
        let convert = |ctx: &mut Self, (i, f): (usize, &syn::Field)| {
            let (name, pos) = match &f.ident {
                Some(id) => (id.to_string(), Pos::of(id.span())),
                None => (i.to_string(), Pos::of(f.ty.span())),
            };
            Field {
                wire_name: f.ident.as_ref().map(|_| naming::unraw(&name).to_owned()),
                name,
                pos,
                visibility: visibility(&f.vis),
                ty: type_ref(&f.ty),
                aliased: None,
                optional: false,
                docs: String::new(),
                markers: Vec::new(),
                serde: attrs::serde_field(&f.attrs, ctx),
                raw_docs: doc_lines(&f.attrs, false),
            }
        };
        let mut convert_all = |fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>| {
            fields
                .iter()
                .enumerate()
                .map(|f| convert(self, f))
                .collect()
        };
        match fields {
            syn::Fields::Named(n) => Fields::Named(convert_all(&n.named)),
            syn::Fields::Unnamed(u) => Fields::Tuple(convert_all(&u.unnamed)),
            syn::Fields::Unit => Fields::Unit,
        }
    }

    /// The lines of the `///` (or, with `inner`, `//!`) doc comments among `attrs`, each with the position of its
    /// first character in the source.
    fn error(&mut self, span: Span, message: String, hint: &str) {
        self.diags.push(
            Diagnostic::error(Code::BadAttribute, message)
                .at(self.path, Pos::of(span))
                .hint(hint),
        );
    }
}

fn visibility(vis: &syn::Visibility) -> Visibility {
    match vis {
        syn::Visibility::Public(_) => Visibility::Public,
        syn::Visibility::Restricted(r) if r.in_token.is_none() && r.path.is_ident("crate") => {
            Visibility::Crate
        }
        syn::Visibility::Restricted(_) => Visibility::Restricted,
        _ => Visibility::Private,
    }
}

fn type_ref(ty: &syn::Type) -> TypeRef {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            // Sized up front: a model holds one of these per field.
            let leading = usize::from(p.path.leading_colon.is_some());
            let mut segments: Vec<String> = Vec::with_capacity(leading + p.path.segments.len());
            if leading == 1 {
                segments.push(String::new());
            }
            segments.extend(p.path.segments.iter().map(|s| s.ident.to_string()));
            let (mut lifetimes, mut args) = (Vec::new(), Vec::new());
            if let Some(syn::PathArguments::AngleBracketed(a)) =
                p.path.segments.last().map(|s| &s.arguments)
            {
                args.reserve_exact(a.args.len());
                for arg in &a.args {
                    match arg {
                        syn::GenericArgument::Type(t) => args.push(type_ref(t)),
                        syn::GenericArgument::Lifetime(l) => lifetimes.push(l.to_string()),
                        _ => {}
                    }
                }
            }
            TypeRef::Path {
                segments,
                lifetimes,
                args,
                target: None,
            }
        }
        syn::Type::Array(a) => TypeRef::Array {
            elem: Box::new(type_ref(&a.elem)),
            len: array_len(&a.len),
        },
        syn::Type::Paren(p) => type_ref(&p.elem),
        syn::Type::Group(g) => type_ref(&g.elem),
        other => TypeRef::Other(quote::ToTokens::to_token_stream(other).to_string()),
    }
}

/// An array's length as written, a `{ 3 }` block read as the `3` it holds: a literal's
/// digits, a name (resolved later against the file's consts), or else its tokens.
fn array_len(expr: &syn::Expr) -> String {
    match expr {
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(inner, None) => array_len(inner),
            _ => quote::ToTokens::to_token_stream(expr).to_string(),
        },
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_digits().to_owned(),
        _ => quote::ToTokens::to_token_stream(expr).to_string(),
    }
}

fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    visibility: Visibility,
    out: &mut Vec<UseEntry>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, visibility, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push(UseEntry {
                path,
                alias: None,
                glob: false,
                visibility,
            });
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push(UseEntry {
                path,
                alias: Some(r.rename.to_string()),
                glob: false,
                visibility,
            });
        }
        syn::UseTree::Glob(_) => out.push(UseEntry {
            path: prefix.clone(),
            alias: None,
            glob: true,
            visibility,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, visibility, out);
            }
        }
    }
}

impl UseEntry {
    /// The name this entry brings into scope (`None` for globs and `self` renames).
    pub fn name(&self) -> Option<&str> {
        if self.glob {
            return None;
        }
        self.alias
            .as_deref()
            .or(self.path.last().map(String::as_str))
    }
}

/// Parses every discovered file, reporting every malformed file at once. Files are
/// parsed on all cores; the result keeps the groups' and versions' order.
pub fn parse_all(
    discovered: &crate::source::Discovered,
    diags: &mut Diagnostics,
) -> Vec<ParsedGroup> {
    // Every file with the group and version it belongs to ("" for a group's module).
    let mut files = Vec::new();
    for group in &discovered.groups {
        files.extend(group.module_file.iter().map(|f| (&group.dir, "", f)));
        for v in &group.versions {
            files.extend(v.files.iter().map(|f| (&group.dir, v.version.as_str(), f)));
        }
    }
    let mut parsed = crate::parallel::map(&files, |(group, version, file)| {
        let mut found = Diagnostics::default();
        let parsed = parse_file(group, version, file, &mut found);
        (parsed, found)
    })
    .into_iter()
    .map(|(parsed, found)| {
        diags.extend(found.into_sorted());
        parsed
    });
    let mut groups = Vec::new();
    for group in &discovered.groups {
        let module_file = group
            .module_file
            .as_ref()
            .and_then(|_| parsed.next().flatten());
        let versions = group
            .versions
            .iter()
            .map(|v| ParsedVersion {
                name: v.version.clone(),
                files: v
                    .files
                    .iter()
                    .filter_map(|_| parsed.next().flatten())
                    .collect(),
            })
            .collect();
        groups.push(ParsedGroup {
            dir: group.dir.clone(),
            module_file,
            versions,
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len_of(ty: &str) -> String {
        match type_ref(&syn::parse_str(ty).unwrap()) {
            TypeRef::Array { len, .. } => len,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn array_lengths_are_read_as_the_number_they_are() {
        assert_eq!(len_of("[u8; 4]"), "4");
        assert_eq!(len_of("[u8; 4usize]"), "4");
        assert_eq!(len_of("[u8; { 4 }]"), "4");
        assert_eq!(len_of("[u8; {{ 0x10 }}]"), "16");
        // A name waits for the file's consts; anything else stays as written.
        assert_eq!(len_of("[u8; N]"), "N");
        assert_eq!(len_of("[u8; N * 2]"), "N * 2");
    }
}
