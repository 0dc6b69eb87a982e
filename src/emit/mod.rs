//! Turns the generated module tree into text: one file per module under OUTPUT_PKG
//! (the CLI), or a single includable file (build.rs). Generation never touches the disk.

pub mod header;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use crate::diag::{Code, Diagnostic};
use crate::naming;
use header::Header;

/// A generated Rust module: its items and its child modules, in name order.
#[derive(Debug, Default)]
pub struct RustModule {
    /// Documentation for the `pub mod` line that declares this module.
    pub doc: String,
    pub items: TokenStream,
    pub children: BTreeMap<String, RustModule>,
}

impl RustModule {
    /// The child module `name`, created (with `doc`) on first use.
    pub fn child(&mut self, name: &str, doc: impl FnOnce() -> String) -> &mut RustModule {
        self.children
            .entry(name.to_owned())
            .or_insert_with(|| RustModule {
                doc: doc(),
                ..RustModule::default()
            })
    }

    fn declarations(&self) -> TokenStream {
        self.children
            .iter()
            .map(|(name, child)| {
                let ident = naming::ident(name);
                let doc = doc(&child.doc);
                quote! {
                    #doc
                    pub mod #ident;
                }
            })
            .collect()
    }

    fn inline(&self) -> TokenStream {
        let mut out = self.items.clone();
        for (name, child) in &self.children {
            let ident = naming::ident(name);
            let doc = doc(&child.doc);
            let body = child.inline();
            out.extend(quote! {
                #doc
                pub mod #ident {
                    #body
                }
            });
        }
        out
    }
}

/// `///` lines for `text`, one attribute per line, as rustdoc writes them.
pub fn doc(text: &str) -> TokenStream {
    text.lines()
        .map(|line| {
            let line = if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            };
            quote!(#[doc = #line])
        })
        .collect()
}

/// Generated files, keyed by their path relative to the output base.
#[derive(Debug, Default)]
pub struct OutputSet {
    /// The directories crdgen owns, relative to the output base: stale generated files
    /// under them are pruned.
    pub owned_dirs: Vec<PathBuf>,
    pub files: BTreeMap<PathBuf, String>,
}

/// Lays the tree out as files under `dir`: `dir/mod.rs` for the root, `name/mod.rs`
/// for a module with children, `name.rs` for one without.
pub fn to_files(tree: &RustModule, header: &Header, dir: &Path) -> Result<OutputSet, Diagnostic> {
    let mut out = OutputSet {
        owned_dirs: vec![dir.to_owned()],
        files: BTreeMap::new(),
    };
    let mut root = rustfmt_skip();
    root.extend(tree.declarations());
    root.extend(tree.items.clone());
    out.files
        .insert(dir.join("mod.rs"), header.rust_file(&format(root)?));
    for (name, child) in &tree.children {
        add_files(child, header, &dir.join(name), &mut out)?;
    }
    Ok(out)
}

fn add_files(
    module: &RustModule,
    header: &Header,
    path: &Path,
    out: &mut OutputSet,
) -> Result<(), Diagnostic> {
    let mut tokens = rustfmt_skip();
    tokens.extend(module.declarations());
    tokens.extend(module.items.clone());
    let file = if module.children.is_empty() {
        path.with_extension("rs")
    } else {
        path.join("mod.rs")
    };
    out.files.insert(file, header.rust_file(&format(tokens)?));
    for (name, child) in &module.children {
        add_files(child, header, &path.join(name), out)?;
    }
    Ok(())
}

/// The whole tree as one file of inline modules, for `include!` from build.rs.
pub fn to_single_file(tree: &RustModule, header: &Header) -> Result<String, Diagnostic> {
    Ok(header.rust_file(&format(tree.inline())?))
}

/// Generated files keep prettyplease's layout: rustfmt would change it, and
/// `--verify-only` would then see drift. rustfmt skips the file and its child modules.
fn rustfmt_skip() -> TokenStream {
    quote!(#![cfg_attr(rustfmt, rustfmt::skip)])
}

fn format(tokens: TokenStream) -> Result<String, Diagnostic> {
    let file: syn::File = syn::parse2(tokens.clone()).map_err(|e| {
        Diagnostic::error(
            Code::Bug,
            format!("crdgen generated invalid Rust ({e}): {tokens}"),
        )
        .hint("this is a bug in crdgen; please report it with the input that caused it")
    })?;
    Ok(prettyplease::unparse(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> RustModule {
        let mut root = RustModule::default();
        let apis = root.child("apis", || "APIs.".into());
        apis.child("leaf", || "A leaf.".into()).items = quote!(
            pub const X: u8 = 1;
        );
        root
    }

    #[test]
    fn lays_out_modules_as_files() {
        let header =
            Header::load(&crate::options::HeaderSource::Default, None, Path::new(".")).unwrap();
        let out = to_files(&tree(), &header, Path::new("pkg/client")).unwrap();
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
