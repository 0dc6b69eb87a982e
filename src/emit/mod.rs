//! Turns the generated module tree into text: one file per module under OUTPUT_PKG
//! (the CLI), or a single includable file (build.rs). Generation never touches the disk.

pub mod header;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::naming;
use header::Header;

/// A generated Rust module: its items and its child modules, in name order.
///
/// Generators add items as laid-out text (every generated item has a fixed shape), so
/// the tree holds text, in proportion to the output.
#[derive(Debug, Default)]
pub struct RustModule {
    /// Documentation for the `pub mod` line that declares this module.
    pub doc: String,
    body: String,
    /// The first item that was not valid Rust (a bug in crdgen), reported when emitting.
    bug: Option<Diagnostic>,
    pub children: BTreeMap<String, RustModule>,
}

impl RustModule {
    /// The child module `name`, created (with `doc`) on first use.
    pub fn child(&mut self, name: &str, doc: impl FnOnce() -> String) -> &mut RustModule {
        self.children
            .entry(naming::module_name(name))
            .or_insert_with(|| RustModule {
                doc: doc(),
                ..RustModule::default()
            })
    }

    /// Adds `other`'s items after this module's, and its children, as if the generator
    /// that built `other` had run on this tree after the one that built it.
    pub fn merge(&mut self, other: RustModule) {
        self.body.push_str(&other.body);
        if self.bug.is_none() {
            self.bug = other.bug;
        }
        for (name, child) in other.children {
            match self.children.entry(name) {
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(child);
                }
                std::collections::btree_map::Entry::Occupied(mut slot) => {
                    slot.get_mut().merge(child)
                }
            }
        }
    }

    /// Adds items written as text, laid out as they should read. Debug builds (the
    /// tests) check that the text is Rust; a release build trusts it, since checking
    /// would cost as much as the rest of generation.
    pub fn push_text(&mut self, items: &str) {
        if cfg!(debug_assertions)
            && let Err(e) = syn::parse_file(items)
        {
            self.bug.get_or_insert(bug(format!("{e}: {items}")));
        }
        self.body.push_str(items);
    }

    /// The first bug anywhere in the tree.
    fn check(&self) -> Result<(), Diagnostic> {
        match &self.bug {
            Some(bug) => Err(bug.clone()),
            None => self.children.values().try_for_each(RustModule::check),
        }
    }

    /// `/// doc` lines and `pub mod name;` for each child.
    fn declarations(&self) -> String {
        let mut out = String::new();
        for (name, child) in &self.children {
            out.push_str(&child.declaration(name, ";"));
        }
        out
    }

    /// This module's doc lines and its `pub mod name` line, ended by `end`.
    fn declaration(&self, name: &str, end: &str) -> String {
        format!(
            "{}pub mod {}{end}\n",
            doc_comment(&self.doc),
            naming::ident(name)
        )
    }

    /// Writes the module's items, then its children as inline `pub mod name { .. }`
    /// blocks, every line indented by `pad`.
    fn write_inline(&self, out: &mut String, pad: &str) {
        push_indented(out, &self.body, pad);
        let inner = format!("{pad}    ");
        for (name, child) in &self.children {
            push_indented(out, &child.declaration(name, " {"), pad);
            child.write_inline(out, &inner);
            push_indented(out, "}", pad);
        }
    }
}

/// Appends `text` line by line, each non-empty line after `pad`.
fn push_indented(out: &mut String, text: &str, pad: &str) {
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(pad);
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// Generated files, keyed by their path relative to the output base.
#[derive(Debug, Default)]
pub struct OutputSet {
    /// The directories crdgen owns, relative to the output base: stale generated files
    /// under them are pruned.
    pub owned_dirs: Vec<PathBuf>,
    pub files: BTreeMap<PathBuf, String>,
}

/// Lays the tree out as files under `dir` in `out`: `dir/mod.rs` for the root,
/// `name/mod.rs` for a module with children, `name.rs` for one without. Each module's
/// text is dropped once its file is made.
pub fn add_files(
    tree: RustModule,
    header: &Header,
    dir: &Path,
    out: &mut OutputSet,
) -> Result<(), Diagnostic> {
    tree.check()?;
    add_module_files(tree, header, &dir.join("mod.rs"), dir, out);
    Ok(())
}

/// Adds `module` as `file`, and its children under `dir`.
fn add_module_files(
    module: RustModule,
    header: &Header,
    file: &Path,
    dir: &Path,
    out: &mut OutputSet,
) {
    out.files
        .insert(file.to_owned(), file_text(&module, header));
    for (name, child) in module.children {
        let path = dir.join(&name);
        let file = if child.children.is_empty() {
            path.with_extension("rs")
        } else {
            path.join("mod.rs")
        };
        add_module_files(child, header, &file, &path, out);
    }
}

/// A module's file: the header, rustfmt's opt-out, its children's declarations, its items.
fn file_text(module: &RustModule, header: &Header) -> String {
    header.rust_file(&[RUSTFMT_SKIP, "\n", &module.declarations(), &module.body])
}

/// The whole tree as one file of inline modules, for `include!` from build.rs.
pub fn to_single_file(tree: &RustModule, header: &Header) -> Result<String, Diagnostic> {
    tree.check()?;
    let mut text = String::new();
    tree.write_inline(&mut text, "");
    Ok(header.rust_file(&[&text]))
}

/// Generated files keep crdgen's layout: rustfmt would change it, and
/// `--verify-only` would then see drift. rustfmt skips the file and its child modules.
const RUSTFMT_SKIP: &str = "#![cfg_attr(rustfmt, rustfmt::skip)]";

/// `///` lines for `text`.
fn doc_comment(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "///\n".to_owned()
            } else {
                format!("/// {line}\n")
            }
        })
        .collect()
}

/// Generated code that is not Rust: a bug in crdgen.
fn bug(what: String) -> Diagnostic {
    Diagnostic::bug(format!("crdgen generated invalid Rust ({what})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> RustModule {
        let mut root = RustModule::default();
        let apis = root.child("apis", || "APIs.".into());
        apis.child("leaf", || "A leaf.".into())
            .push_text("pub const X: u8 = 1;\n");
        root
    }

    #[test]
    fn lays_out_modules_as_files() {
        let header =
            Header::load(&crate::options::HeaderSource::Default, None, Path::new(".")).unwrap();
        let mut out = OutputSet::default();
        add_files(tree(), &header, Path::new("pkg/client"), &mut out).unwrap();
        let names: Vec<_> = out.files.keys().map(|p| p.display().to_string()).collect();
        assert_eq!(
            names,
            [
                "pkg/client/apis/leaf.rs",
                "pkg/client/apis/mod.rs",
                "pkg/client/mod.rs"
            ]
        );
        assert!(out.files[Path::new("pkg/client/mod.rs")].ends_with("/// APIs.\npub mod apis;\n"));
        assert!(
            out.files[Path::new("pkg/client/apis/leaf.rs")].ends_with("pub const X: u8 = 1;\n")
        );
    }

    #[test]
    fn inlines_modules_into_one_file() {
        let header =
            Header::load(&crate::options::HeaderSource::Default, None, Path::new(".")).unwrap();
        let text = to_single_file(&tree(), &header).unwrap();
        assert!(text.contains("/// APIs.\npub mod apis {\n    /// A leaf.\n    pub mod leaf {\n        pub const X: u8 = 1;\n    }\n}\n"), "{text}");
    }
}
