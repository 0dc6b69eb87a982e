//! What `parse` hands the model: each file's types, module declarations, `use` items
//! and doc lines, as plain data. It lives here, below `parse`, so that the model never
//! depends on the parser.

use super::{TypeDef, TypeKey, TypeRef, Visibility};
use crate::diag::Pos;
use crate::markers::DocLine;

/// A `mod name;` declaration.
#[derive(Debug)]
pub struct ModDecl {
    pub name: String,
    pub visibility: Visibility,
    pub pos: Pos,
}

/// One leaf of a `use` tree: `use a::b::C as D;` is `{ path: [a, b, C], alias: D }`;
/// `use a::b::*;` is `{ path: [a, b], glob: true }`.
#[derive(Debug, Clone)]
pub struct UseEntry {
    pub path: Vec<String>,
    pub alias: Option<String>,
    pub glob: bool,
    pub visibility: Visibility,
}

#[derive(Debug)]
pub struct ParsedFile {
    pub path: String,
    /// `None` for the version's module file; the file stem otherwise.
    pub module: Option<String>,
    /// `//!` lines: package-level markers and docs.
    pub inner_docs: Vec<DocLine>,
    pub mods: Vec<ModDecl>,
    pub uses: Vec<UseEntry>,
    pub types: Vec<TypeDef>,
    /// `type Name = …;` items: resolved as the types they name.
    pub aliases: Vec<TypeAlias>,
    /// `(trait, type)` of hand-written `impl Clone` and `impl Serialize` items.
    pub manual_impls: Vec<(String, String)>,
    /// Marker-like text found in plain `//` or `/* */` comments, with its position.
    pub comment_markers: Vec<(Pos, String)>,
}

/// `pub type Replicas = i32;`: fields of the alias's type are fields of the aliased one.
#[derive(Debug)]
pub struct TypeAlias {
    pub key: TypeKey,
    pub pos: Pos,
    pub generics: Vec<String>,
    pub ty: TypeRef,
    /// Its doc lines: its docs and markers, once the model reads them.
    pub raw_docs: Vec<DocLine>,
}

/// A group's parsed files.
#[derive(Debug)]
pub struct ParsedGroup {
    pub dir: String,
    pub module_file: Option<ParsedFile>,
    pub versions: Vec<ParsedVersion>,
}

/// A version's parsed files: its module file first, if it could be parsed.
#[derive(Debug)]
pub struct ParsedVersion {
    pub name: String,
    pub files: Vec<ParsedFile>,
}
