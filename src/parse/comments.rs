//! Finds markers written in plain comments. syn drops `//` and `/* */` comments, so a
//! `// +genclient` would silently do nothing; this finds them so they can be reported.
//!
//! A cheap scan of the text finds lines where a `+name` opens a comment line. Only
//! when there is one does it ask the real lexer where its tokens are: a `+` that lies
//! outside every token (doc comments are tokens too) can only be in a plain comment,
//! so string literals are never mistaken for comments.

use proc_macro2::{TokenStream, TokenTree};

use crate::diag::Pos;

/// Every plain-comment line that starts with `+` and a letter, with the position of
/// the `+` and the text from it on.
pub(super) fn markers_in_plain_comments(text: &str, tokens: &TokenStream) -> Vec<(Pos, String)> {
    let candidates = candidates(text);
    if candidates.is_empty() {
        return Vec::new();
    }
    let mut ranges = Vec::new();
    collect_ranges(tokens.clone(), &mut ranges);
    ranges.sort_unstable();
    candidates
        .into_iter()
        .filter(|&at| {
            // The last token starting at or before `at` is the only one that can hold it.
            let i = ranges.partition_point(|&(start, _)| start <= at);
            i == 0 || ranges[i - 1].1 <= at
        })
        .map(|at| {
            let line = &text[at..text[at..].find('\n').map_or(text.len(), |n| at + n)];
            let line = line.trim_end();
            let line = line.strip_suffix("*/").unwrap_or(line).trim_end();
            (pos_at(text, at), line.to_owned())
        })
        .collect()
}

/// Byte offsets of each `+` that follows a letter-less comment opener on its line:
/// `// +x`, `//// +x`, `/* +x`, or ` * +x` inside a block comment. Doc comment openers
/// (`///`, `//!`, `/**`, `/*!`) do not count: those are markers crdgen reads.
fn candidates(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        for (i, _) in line.match_indices('+') {
            let next_is_letter = line[i + 1..].starts_with(|c: char| c.is_ascii_alphabetic());
            let before = line[..i].trim_end_matches([' ', '\t']);
            let slashes = before.len() - before.trim_end_matches('/').len();
            let opens_comment = (slashes == 2 || slashes >= 4)
                || before.ends_with("/*")
                || before.trim_start_matches([' ', '\t', '*']).is_empty();
            if next_is_letter && opens_comment {
                out.push(line_start + i);
            }
        }
        line_start += line.len();
    }
    out
}

fn collect_ranges(tokens: TokenStream, out: &mut Vec<(usize, usize)>) {
    for tree in tokens {
        if let TokenTree::Group(g) = &tree {
            let (open, close) = (g.span_open().byte_range(), g.span_close().byte_range());
            out.push((open.start, open.end));
            out.push((close.start, close.end));
            collect_ranges(g.stream(), out);
        } else {
            let r = tree.span().byte_range();
            out.push((r.start, r.end));
        }
    }
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
