//! Reads one Rust source file with syn and turns what crdgen needs of it into model
//! data: types with their fields and attributes, doc comments, module declarations and
//! `use` items. Nothing of syn outlives this module.

mod attrs;
mod comments;
mod depth;
mod docs;

use std::collections::BTreeMap;
use std::str::FromStr;

use proc_macro2::{LineColumn, Span, TokenStream};
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
    let (text, lifted) = docs::lift(text_of(file));
    let tokens = lex(file, &text, diags)?;
    let comment_markers = comments::markers_in_plain_comments(&text, &tokens);
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
        lifted: &lifted,
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
    // Where the item before ends: a lifted doc comment after it is the next item's.
    let mut before = LineColumn { line: 0, column: 0 };
    for item in &ast.items {
        let after = std::mem::replace(&mut before, item_end(item));
        match item {
            syn::Item::Struct(s) => {
                let body = Body::Struct(ctx.fields(&s.fields));
                out.types.push(ctx.type_def(
                    group,
                    version,
                    file,
                    TypeParts {
                        after,
                        ident: &s.ident,
                        attrs: &s.attrs,
                        vis: &s.vis,
                        generics: &s.generics,
                        body,
                    },
                ));
            }
            syn::Item::Enum(e) => {
                let mut prev = e.brace_token.span.open().end();
                let mut variants = Vec::new();
                for pair in e.variants.pairs() {
                    variants.push(ctx.variant(pair.value(), prev));
                    prev = match pair.punct() {
                        Some(comma) => comma.span.end(),
                        None => variant_end(pair.value()),
                    };
                }
                ctx.stray_docs(prev, e.brace_token.span.close().start());
                out.types.push(ctx.type_def(
                    group,
                    version,
                    file,
                    TypeParts {
                        after,
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
                raw_docs: ctx.docs(&t.attrs, after, t.ident.span().start()),
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
    ctx.stray_docs(
        before,
        LineColumn {
            line: usize::MAX,
            column: 0,
        },
    );
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
            syn::Item::Const(c) => Some((c.ident.to_string(), int_literal(&c.expr)?)),
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

/// Where `item` ends: a lifted doc comment after it documents what comes next.
fn item_end(item: &syn::Item) -> LineColumn {
    use syn::Item;
    let close = |d: &proc_macro2::extra::DelimSpan| d.close().end();
    match item {
        Item::Struct(s) => match (&s.fields, s.semi_token) {
            (syn::Fields::Named(n), _) => close(&n.brace_token.span),
            (_, Some(semi)) => semi.span.end(),
            _ => item.span().end(),
        },
        Item::Enum(e) => close(&e.brace_token.span),
        Item::Union(u) => close(&u.fields.brace_token.span),
        Item::Type(t) => t.semi_token.span.end(),
        Item::Use(u) => u.semi_token.span.end(),
        Item::Const(c) => c.semi_token.span.end(),
        Item::Static(s) => s.semi_token.span.end(),
        Item::Impl(i) => close(&i.brace_token.span),
        Item::Fn(f) => close(&f.block.brace_token.span),
        Item::Trait(t) => close(&t.brace_token.span),
        Item::Mod(m) => match (&m.content, m.semi) {
            (Some((brace, _)), _) => close(&brace.span),
            (None, Some(semi)) => semi.span.end(),
            _ => item.span().end(),
        },
        _ => item.span().end(),
    }
}

/// Where `variant` ends, when no comma follows it.
fn variant_end(variant: &syn::Variant) -> LineColumn {
    match (&variant.discriminant, &variant.fields) {
        (Some((_, expr)), _) => expr.span().end(),
        (None, syn::Fields::Named(n)) => n.brace_token.span.close().end(),
        (None, syn::Fields::Unnamed(u)) => u.paren_token.span.close().end(),
        (None, syn::Fields::Unit) => variant.ident.span().end(),
    }
}

/// The text of `file`, without a byte order mark.
fn text_of(file: &SourceFile) -> &str {
    file.text.strip_prefix('\u{feff}').unwrap_or(&file.text)
}

/// The tokens of `text`, which is `file`'s, or `None` after reporting why it cannot be
/// read as Rust.
fn lex(file: &SourceFile, text: &str, diags: &mut Diagnostics) -> Option<TokenStream> {
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
    Some(tokens)
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
    let text = text_of(file);
    let tokens = lex(file, text, diags)?;
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
    /// Where the item before it ends.
    after: LineColumn,
    ident: &'a syn::Ident,
    attrs: &'a [syn::Attribute],
    vis: &'a syn::Visibility,
    generics: &'a syn::Generics,
    body: Body,
}

struct Ctx<'a> {
    path: &'a str,
    diags: &'a mut Diagnostics,
    lifted: &'a docs::LiftedDocs,
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
            raw_docs: self.docs(parts.attrs, parts.after, parts.ident.span().start()),
        }
    }

    /// The doc comment of what `attrs` belong to and `name` names, `after` being where
    /// the thing before it ends: the lifted `///` lines between the two, and any doc
    /// attributes written otherwise, in the order they stand.
    fn docs(&self, attrs: &[syn::Attribute], after: LineColumn, name: LineColumn) -> Vec<DocLine> {
        let mut lines = self.lifted.between(after, name);
        let written = doc_lines(attrs, false);
        if lines.is_empty() {
            return written;
        }
        if !written.is_empty() {
            lines.extend(written);
            lines.sort_by_key(|l| (l.pos.line, l.pos.col));
        }
        lines
    }

    /// Reports a lifted doc comment between `after` and `before`, where nothing follows
    /// it to document: the lexer and syn would have refused it there.
    fn stray_docs(&mut self, after: LineColumn, before: LineColumn) {
        if let Some(pos) = self.lifted.first_between(after, before) {
            self.diags.push(
                Diagnostic::error(
                    Code::MalformedRust,
                    "this file is not valid Rust: a doc comment documents nothing here"
                        .to_owned(),
                )
                .at(self.path, pos)
                .hint("a `///` comment stands above the item, field or variant it documents; make it a plain `//` comment"),
            );
        }
    }

    fn variant(&mut self, v: &syn::Variant, after: LineColumn) -> Variant {
        let name = v.ident.to_string();
        Variant {
            wire_name: name.clone(),
            pos: Pos::of(v.ident.span()),
            docs: String::new(),
            markers: Vec::new(),
            serde: attrs::serde_variant(&v.attrs, self),
            fields: self.fields(&v.fields),
            raw_docs: self.docs(&v.attrs, after, v.ident.span().start()),
            name,
        }
    }

    fn fields(&mut self, fields: &syn::Fields) -> Fields {
        let convert = |ctx: &mut Self, i: usize, f: &syn::Field, after: LineColumn| {
            let (name, pos, start) = match &f.ident {
                Some(id) => (id.to_string(), Pos::of(id.span()), id.span().start()),
                None => {
                    let span = f.ty.span();
                    (i.to_string(), Pos::of(span), span.start())
                }
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
                raw_docs: ctx.docs(&f.attrs, after, start),
            }
        };
        let mut convert_all =
            |fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
             delimiters: &proc_macro2::extra::DelimSpan| {
                let mut after = delimiters.open().end();
                let mut out = Vec::new();
                for (i, pair) in fields.pairs().enumerate() {
                    out.push(convert(self, i, pair.value(), after));
                    after = match pair.punct() {
                        Some(comma) => comma.span.end(),
                        None => pair.value().ty.span().end(),
                    };
                }
                self.stray_docs(after, delimiters.close().start());
                out
            };
        match fields {
            syn::Fields::Named(n) => Fields::Named(convert_all(&n.named, &n.brace_token.span)),
            syn::Fields::Unnamed(u) => Fields::Tuple(convert_all(&u.unnamed, &u.paren_token.span)),
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
        _ => {
            int_literal(expr).unwrap_or_else(|| quote::ToTokens::to_token_stream(expr).to_string())
        }
    }
}

/// The digits of an integer literal (`3`, `0x10`, `4usize`), in base 10.
fn int_literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => Some(n.base10_digits().to_owned()),
        _ => None,
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

    fn parsed(text: &str) -> (Option<ParsedFile>, Diagnostics) {
        let file = SourceFile {
            path: "types.rs".into(),
            module: Some("types".into()),
            text: text.into(),
        };
        let mut diags = Diagnostics::default();
        (parse_file("g", "v1", &file, &mut diags), diags)
    }

    fn docs(lines: &[DocLine]) -> Vec<(usize, usize, &str)> {
        lines
            .iter()
            .map(|l| (l.pos.line, l.pos.col, l.text.as_str()))
            .collect()
    }

    #[test]
    fn lifted_doc_comments_go_to_what_they_stand_above() {
        let text = "\
/// Not the struct's: the impl's.
impl A {}
#[derive(Clone)]
/// A thing.
#[doc = \" Written out.\"]
pub struct A {
    /// The name.
    #[serde(default)]
    pub name: String, /// not lifted: after code
    pub plain: i32,
}
/// B's.
pub enum B {
    /// One.
    One = 1,
    /// Two.
    Two { /// x's.
        x: i32 },
}
/// The alias.
pub type C = A;
";
        let (file, diags) = parsed(text);
        assert_eq!(diags.error_count(), 0, "{diags:?}");
        let file = file.unwrap();
        let a = &file.types[0];
        assert_eq!(
            docs(&a.raw_docs),
            [(4, 4, " A thing."), (5, 10, " Written out.")]
        );
        let Body::Struct(Fields::Named(fields)) = &a.body else {
            panic!()
        };
        assert_eq!(docs(&fields[0].raw_docs), [(7, 8, " The name.")]);
        // A `///` after code stays an attribute of what follows it.
        assert_eq!(
            docs(&fields[1].raw_docs),
            [(9, 26, " not lifted: after code")]
        );
        let b = &file.types[1];
        assert_eq!(docs(&b.raw_docs), [(12, 4, " B's.")]);
        let Body::Enum(variants) = &b.body else {
            panic!()
        };
        assert_eq!(docs(&variants[0].raw_docs), [(14, 8, " One.")]);
        assert_eq!(docs(&variants[1].raw_docs), [(16, 8, " Two.")]);
        assert_eq!(docs(&file.aliases[0].raw_docs), [(20, 4, " The alias.")]);
    }

    #[test]
    fn a_doc_comment_that_documents_nothing_is_refused() {
        for text in [
            "pub struct A {\n    pub a: i32,\n    /// dangling\n}\n",
            "pub enum B {\n    One,\n    /// dangling\n}\n",
            "pub struct A;\n/// dangling\n",
        ] {
            let (_, diags) = parsed(text);
            let rendered = format!("{diags:?}");
            assert!(
                rendered.contains("documents nothing"),
                "{text:?}: {rendered}"
            );
        }
    }
}
