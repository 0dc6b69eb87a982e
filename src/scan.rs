//! Markers that belong to no type (`+kubebuilder:rbac`, `+kubebuilder:webhook`), read
//! as controller-gen reads its package markers: from every doc comment of the scanned
//! files, wherever it stands. One of them in a plain comment (Go's habit) is an error:
//! it would do nothing.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{self, Marker};
use crate::source::SourceFile;

/// One marker of the names asked for, with the file it is in.
pub struct Found {
    pub file: String,
    pub marker: Marker,
}

/// Every marker named one of `names` in `files`, in file order, type-checked against
/// the marker table.
pub fn scan(files: &[&SourceFile], names: &[&str], diags: &mut Diagnostics) -> Vec<Found> {
    let per_file = crate::parallel::map_light(files, |file| {
        let mut found = Diagnostics::default();
        let markers = scan_file(file, names, &mut found);
        (markers, found)
    });
    let mut out = Vec::new();
    for (markers, found) in per_file {
        out.extend(markers);
        diags.extend(found.into_sorted());
    }
    out
}

fn scan_file(file: &SourceFile, names: &[&str], diags: &mut Diagnostics) -> Vec<Found> {
    // Most files (every API type file, most often) name none: they are not lexed again.
    if !names.iter().any(|name| file.text.contains(name)) {
        return Vec::new();
    }
    let Some(comments) = crate::parse::doc_comments(file, diags) else {
        return Vec::new();
    };
    let wanted = |text: &str| names.iter().any(|name| is_named(text, name));
    for (pos, text) in comments
        .in_plain_comments
        .iter()
        .filter(|(_, t)| wanted(&t[1..]))
    {
        diags.push(
            Diagnostic::error(
                Code::MarkerInPlainComment,
                format!("marker `{text}` is in a plain comment, where crdgen cannot see it"),
            )
            .at(&file.path, *pos)
            .hint("write it in a doc comment: `/// +kubebuilder:…` above the item, or `//! …` at the top of the file"),
        );
    }
    // Only the markers asked for are read here: others in these files (an API type's,
    // say) are the apis tree's business, read and checked there.
    let lines: Vec<_> = comments
        .lines
        .into_iter()
        .filter(|l| l.text.trim_start().strip_prefix('+').is_some_and(wanted))
        .collect();
    markers::extract(&lines, markers::Target::Package, &file.path, diags)
        .markers
        .into_iter()
        .map(|marker| Found {
            file: file.path.clone(),
            marker,
        })
        .collect()
}

/// Whether marker text (without its `+`) is the marker `name`.
fn is_named(text: &str, name: &str) -> bool {
    text.strip_prefix(name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '=', ' ', '\t']))
}
