//! The header on top of every generated file: the boilerplate (a license, usually),
//! then crdgen's generated-code marker.

use std::path::Path;
use std::str::FromStr;

use crate::diag::{Code, Diagnostic};
use crate::naming::{GENERATED_MARKER, MARKUP_GENERATED_MARKER, YAML_GENERATED_MARKER};
use crate::options::HeaderSource;

const DEFAULT: &str = include_str!("../../boilerplate/boilerplate.rs.txt");
/// The default header of what `crdgen import` writes.
pub const IMPORT_DEFAULT: &str = include_str!("../../boilerplate/import.rs.txt");

/// Both forms are made once, when the boilerplate is read: every generated file starts
/// with one of them.
#[derive(Clone, Debug, Hash)]
pub struct Header {
    /// The boilerplate (with a trailing newline, or empty), the marker, a blank line.
    rust: String,
    /// The boilerplate as `#` comments, then the marker line.
    yaml: String,
    /// The boilerplate as an HTML comment, then the marker line.
    markup: String,
}

impl Header {
    /// Loads the boilerplate. `YEAR` is replaced only when `year` is given, so that
    /// output does not change when the calendar does.
    /// The most crdgen reads of a boilerplate file: a license header, not a book.
    pub const MAX_BOILERPLATE_BYTES: u64 = 64 << 10;

    pub fn load(
        source: &HeaderSource,
        year: Option<&str>,
        base: &Path,
    ) -> Result<Header, Diagnostic> {
        let (text, shown) = match source {
            HeaderSource::Default => (
                DEFAULT.to_owned(),
                "boilerplate/boilerplate.rs.txt".to_owned(),
            ),
            HeaderSource::File(path) => {
                let full = base.join(path);
                let shown = crate::source::display_path(base, &full);
                let text = crate::source::read_text(&full, Self::MAX_BOILERPLATE_BYTES).map_err(|e| {
                    Diagnostic::error(
                        e.code(Code::BadBoilerplate),
                        format!("cannot read boilerplate file `{shown}`: {e}"),
                    )
                    .at_path(shown.clone())
                    .hint("--boilerplate takes a text file of at most 64 KiB, relative to --output-base")
                })?;
                (text, shown)
            }
        };
        Header::from_text(&text, &shown, year)
    }

    /// The header of `text`, a boilerplate shown as `shown` in diagnostics.
    pub fn from_text(text: &str, shown: &str, year: Option<&str>) -> Result<Header, Diagnostic> {
        let text = match year {
            Some(year) => text.replace("YEAR", year),
            None => text.to_owned(),
        };
        // Anything but comments and white space would end up as code in every file.
        let only_comments = proc_macro2::TokenStream::from_str(&text).is_ok_and(|t| t.is_empty());
        if !only_comments {
            return Err(Diagnostic::error(Code::BadBoilerplate, format!("boilerplate file `{shown}` is not a Rust comment"))
                .at_path(shown)
                .hint("write the header as `//` lines or one `/* ... */` block (doc comments are not allowed)"));
        }
        let trimmed = text.trim();
        let text = if trimmed.is_empty() {
            String::new()
        } else {
            format!("{trimmed}\n")
        };
        Ok(Header {
            rust: format!("{text}{GENERATED_MARKER}\n\n"),
            yaml: yaml_comments(&text),
            markup: markup_comment(&text),
        })
    }

    /// A complete generated Rust file: header, marker, blank line, then `body`'s parts.
    pub fn rust_file(&self, body: &[&str]) -> String {
        concat(&self.rust, body)
    }

    /// A complete generated YAML file: the header's text as `#` comments, the marker,
    /// then the document.
    pub fn yaml_file(&self, body: &str) -> String {
        concat(&self.yaml, &[body])
    }

    /// A complete generated Markdown or HTML file: the header's text as an HTML
    /// comment, the marker, then the page.
    pub fn markup_file(&self, body: &str) -> String {
        concat(&self.markup, &[body])
    }

    /// A generated file of `name`: YAML, or Markdown and HTML (by its extension).
    pub fn manifest_file(&self, name: &str, body: &str) -> String {
        match name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("md" | "html") => self.markup_file(body),
            _ => self.yaml_file(body),
        }
    }
}

/// `first` and `rest`, in one allocation: generated files are copied once.
fn concat(first: &str, rest: &[&str]) -> String {
    let mut out = String::with_capacity(first.len() + rest.iter().map(|p| p.len()).sum::<usize>());
    out.push_str(first);
    rest.iter().for_each(|part| out.push_str(part));
    out
}

/// The boilerplate `text` as YAML `#` comments, followed by the marker line.
fn yaml_comments(text: &str) -> String {
    let mut out = String::new();
    for line in plain_lines(text) {
        out.push_str(if line.is_empty() { "#\n" } else { "# " });
        if !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    format!("{out}{YAML_GENERATED_MARKER}\n")
}

/// The boilerplate `text` as one HTML comment (Markdown takes it too), followed by the
/// marker line.
fn markup_comment(text: &str) -> String {
    let lines = plain_lines(text);
    if lines.is_empty() {
        return format!("{MARKUP_GENERATED_MARKER}\n");
    }
    // `--` may not stand inside an HTML comment.
    let body = lines.join("\n").replace("--", "- -");
    format!("<!--\n{body}\n-->\n{MARKUP_GENERATED_MARKER}\n")
}

/// The boilerplate's lines without their comment syntax (`//`, `/*`, `*/`, a block's
/// leading `*`), without the empty lines that open and close it.
fn plain_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .lines()
        .map(|line| {
            let line = line.trim();
            let line = line
                .strip_prefix("//")
                .map(|l| l.strip_prefix(' ').unwrap_or(l))
                .unwrap_or(line);
            let line = line.strip_prefix("/*").unwrap_or(line);
            let line = line.strip_suffix("*/").unwrap_or(line).trim_end();
            line.strip_prefix('*')
                .map(|l| l.strip_prefix(' ').unwrap_or(l))
                .unwrap_or(line)
        })
        .collect();
    // Block-comment delimiters on lines of their own leave nothing to keep.
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether a file on disk was generated by crdgen (and so may be replaced or pruned).
pub fn is_generated(text: &str) -> bool {
    text.lines()
        .take(100)
        .any(crate::naming::is_generated_marker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn year_is_replaced_only_on_request() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("h.txt"), "// Copyright YEAR Someone.\n").unwrap();
        let source = HeaderSource::File("h.txt".into());
        let kept = Header::load(&source, None, dir.path()).unwrap();
        assert!(
            kept.rust_file(&[])
                .starts_with("// Copyright YEAR Someone.\n// Code generated")
        );
        let set = Header::load(&source, Some("2031"), dir.path()).unwrap();
        assert!(
            set.rust_file(&[])
                .starts_with("// Copyright 2031 Someone.\n")
        );
    }

    #[test]
    fn rejects_headers_that_are_not_comments() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["Copyright me\n", "/// doc comment\n", "/* unterminated\n"] {
            std::fs::write(dir.path().join("h.txt"), bad).unwrap();
            let err =
                Header::load(&HeaderSource::File("h.txt".into()), None, dir.path()).unwrap_err();
            assert_eq!(err.code, Code::BadBoilerplate, "{bad}");
        }
        std::fs::write(dir.path().join("h.txt"), "/*\nCopyright Go style.\n*/\n").unwrap();
        assert!(Header::load(&HeaderSource::File("h.txt".into()), None, dir.path()).is_ok());
    }

    #[test]
    fn yaml_headers_are_hash_comments() {
        let dir = tempfile::tempdir().unwrap();
        for text in [
            "// Copyright A.\n//\n// Licensed.\n",
            "/*\nCopyright A.\n\nLicensed.\n*/\n",
        ] {
            std::fs::write(dir.path().join("h.txt"), text).unwrap();
            let header =
                Header::load(&HeaderSource::File("h.txt".into()), None, dir.path()).unwrap();
            assert_eq!(
                header.yaml_file("a: 1\n"),
                "# Copyright A.\n#\n# Licensed.\n# Code generated by crdgen. DO NOT EDIT.\na: 1\n",
                "{text}"
            );
            assert_eq!(
                header.manifest_file("api.md", "# API\n"),
                "<!--\nCopyright A.\n\nLicensed.\n-->\n<!-- Code generated by crdgen. DO NOT EDIT. -->\n# API\n",
                "{text}"
            );
            assert!(is_generated(&header.manifest_file("index.html", "<html>")));
        }
    }

    #[test]
    fn recognizes_generated_files() {
        let header = Header::load(&HeaderSource::Default, None, Path::new(".")).unwrap();
        assert!(is_generated(&header.rust_file(&["fn f() {}\n"])));
        assert!(!is_generated("// hand written\nfn f() {}\n"));
    }
}
