//! Finds markers written in plain comments. syn drops `//` and `/* */` comments, so a
//! `// +genclient` would silently do nothing; this finds them so they can be reported.
//!
//! Rather than lexing Rust again, it takes the byte ranges of every token the real
//! lexer produced (doc comments are tokens too): what lies between tokens is only white
//! space and plain comments, so string literals can never be mistaken for comments.

use proc_macro2::{TokenStream, TokenTree};

use crate::diag::Pos;

/// Every plain-comment line that starts with `+` and a letter, with the position of
/// the `+` and the text from it on.
pub(super) fn markers_in_plain_comments(text: &str, tokens: &TokenStream) -> Vec<(Pos, String)> {
    let mut ranges = Vec::new();
    collect_ranges(tokens, &mut ranges);
    ranges.sort_unstable();

    let mut out = Vec::new();
    let mut cursor = 0;
    for (start, end) in ranges.into_iter().chain([(text.len(), text.len())]) {
        if start > cursor {
            scan_gap(text, cursor, start, &mut out);
        }
        cursor = cursor.max(end);
    }
    out
}

fn collect_ranges(tokens: &TokenStream, out: &mut Vec<(usize, usize)>) {
    for tree in tokens.clone() {
        match &tree {
            TokenTree::Group(g) => {
                let open = g.span_open().byte_range();
                let close = g.span_close().byte_range();
                out.push((open.start, open.end));
                out.push((close.start, close.end));
                collect_ranges(&g.stream(), out);
            }
            other => {
                let r = other.span().byte_range();
                out.push((r.start, r.end));
            }
        }
    }
}

/// Scans `text[from..to]`, which holds only white space and comments.
fn scan_gap(text: &str, from: usize, to: usize, out: &mut Vec<(Pos, String)>) {
    let gap = &text[from..to];
    let mut i = 0;
    while let Some(rel) = gap[i..].find('/') {
        let at = i + rel;
        let rest = &gap[at..];
        if let Some(body) = rest.strip_prefix("//") {
            let end = rest.find('\n').map_or(gap.len(), |n| at + n);
            // `////…` is a plain comment too: skip every leading slash.
            let body_start = at + 2 + body.len() - body.trim_start_matches('/').len();
            check_line(text, from + body_start, &gap[body_start..end], out);
            i = end;
        } else if rest.starts_with("/*") {
            let end = block_end(rest).map_or(gap.len(), |n| at + n);
            let inner_start = at + 2;
            let inner_end = end.saturating_sub(2).max(inner_start);
            let mut line_start = inner_start;
            for line in gap[inner_start..inner_end].split_inclusive('\n') {
                let trimmed = line.trim_start_matches([' ', '\t', '*']);
                let offset = line.len() - trimmed.len();
                check_line(text, from + line_start + offset, trimmed.trim_end(), out);
                line_start += line.len();
            }
            i = end;
        } else {
            i = at + 1;
        }
    }
}

/// Records `line` (which starts at byte `at` of `text`) when it reads like a marker.
fn check_line(text: &str, at: usize, line: &str, out: &mut Vec<(Pos, String)>) {
    let lead = line.len() - line.trim_start().len();
    let line = line.trim();
    let mut chars = line.chars();
    if chars.next() == Some('+') && chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        out.push((pos_at(text, at + lead), line.to_owned()));
    }
}

/// Length of a (possibly nested) block comment at the start of `s`.
fn block_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Line and column (both 1-based, the column in characters) of byte `at` of `text`.
fn pos_at(text: &str, at: usize) -> Pos {
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    Pos {
        line: before.matches('\n').count() + 1,
        col: before[line_start..].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn scan(src: &str) -> Vec<(usize, usize, String)> {
        let tokens = TokenStream::from_str(src).unwrap();
        markers_in_plain_comments(src, &tokens)
            .into_iter()
            .map(|(p, t)| (p.line, p.col, t))
            .collect()
    }

    #[test]
    fn finds_markers_in_plain_comments_only() {
        let src = r#"
/// +genclient
// +genclient:nonNamespaced
//// +kubebuilder:object:root=true
pub struct A {
    // plain words
    /* +kubebuilder:validation:Minimum=1 */
    pub x: i32, // +optional
    pub s: &'static str,
}
const S: &str = "// +genclient not a comment";
/*
 * +groupName=x.io
 */
"#;
        assert_eq!(
            scan(src),
            vec![
                (3, 4, "+genclient:nonNamespaced".to_owned()),
                (4, 6, "+kubebuilder:object:root=true".to_owned()),
                (7, 8, "+kubebuilder:validation:Minimum=1".to_owned()),
                (8, 20, "+optional".to_owned()),
                (13, 4, "+groupName=x.io".to_owned()),
            ]
        );
    }

    #[test]
    fn ignores_plus_signs_that_are_not_markers() {
        assert!(scan("// +1 for this\n// a + b\nfn f() {}\n").is_empty());
    }
}
