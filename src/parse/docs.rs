//! `///` doc comments taken out of a file before it is lexed, and given back to the
//! items, fields and variants they stand above.
//!
//! They are a third of an API type file, and each costs the lexer an escaped string
//! literal and syn an attribute to parse, only for crdgen to unescape the text again:
//! a third of all parsing. Lifted from the text, they cost a scan; the lines they were
//! on stay, empty, so every other token keeps its line and column.
//!
//! Only a `///` that begins its line (after indentation) is lifted, and only where it
//! is a comment: not inside a string, a raw string or a block comment. Any other doc
//! comment (`//!`, `/** */`, one after code on its line, `#[doc = ".."]`) stays an
//! attribute and is read from it, as before.

use std::borrow::Cow;

use proc_macro2::LineColumn;

use crate::diag::Pos;
use crate::markers::DocLine;

/// One lifted `///` line.
struct Lifted {
    /// Where its `///` starts: line from 1, column in characters from 0.
    at: LineColumn,
    /// What follows the `///`, as the lexer would have given it.
    text: String,
}

/// The lifted lines of a file, in order.
#[derive(Default)]
pub(super) struct LiftedDocs {
    lines: Vec<Lifted>,
}

impl LiftedDocs {
    /// The lines after `after` and before `before`: the doc comment of what `before`
    /// names, when `after` is where the thing before it ends.
    fn range(&self, after: LineColumn, before: LineColumn) -> &[Lifted] {
        let key = |p: LineColumn| (p.line, p.column);
        let from = self.lines.partition_point(|l| key(l.at) <= key(after));
        let to = self.lines.partition_point(|l| key(l.at) < key(before));
        &self.lines[from..to.max(from)]
    }

    /// [`range`](Self::range) as doc lines, each placed where its text starts (past the
    /// `///`), as a doc attribute's are.
    pub fn between(&self, after: LineColumn, before: LineColumn) -> Vec<DocLine> {
        self.range(after, before)
            .iter()
            .map(|l| DocLine {
                text: l.text.clone(),
                pos: Pos {
                    line: l.at.line,
                    col: l.at.column + 1 + "///".len(),
                },
            })
            .collect()
    }

    /// Where the `///` of the first line between `after` and `before` is, if any.
    pub fn first_between(&self, after: LineColumn, before: LineColumn) -> Option<Pos> {
        self.range(after, before).first().map(|l| Pos {
            line: l.at.line,
            col: l.at.column + 1,
        })
    }
}

/// `text` with its line-starting `///` comments emptied, and those comments.
pub(super) fn lift(text: &str) -> (Cow<'_, str>, LiftedDocs) {
    if !text.contains("///") {
        return (Cow::Borrowed(text), LiftedDocs::default());
    }
    let mut out = String::with_capacity(text.len());
    let mut lines = Vec::new();
    let mut state = State::Code;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if state == State::Code
            && let Some(doc) = doc_line(line)
        {
            let indent = line[..line.len() - line.trim_start().len()].chars().count();
            lines.push(Lifted {
                at: LineColumn {
                    line: i + 1,
                    column: indent,
                },
                text: doc.to_owned(),
            });
            // The line stays, empty: what follows keeps its place.
            if line.ends_with("\r\n") {
                out.push_str("\r\n");
            } else if line.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        state = scan(line, state);
        out.push_str(line);
    }
    (Cow::Owned(out), LiftedDocs { lines })
}

/// The text of `line` if it is a `///` doc comment (not `////`, a plain one) and the
/// lexer would take it: one with a carriage return inside it is left for the lexer to
/// refuse.
fn doc_line(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("///")?;
    if rest.starts_with('/') {
        return None;
    }
    let text = rest.strip_suffix('\n').unwrap_or(rest);
    let text = text.strip_suffix('\r').unwrap_or(text);
    (!text.contains('\r')).then_some(text)
}

/// What the scan is inside of when a line ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Code,
    /// A string literal (`"…"`, `b"…"`, `c"…"`), which may run over lines.
    Str,
    /// A raw string with this many `#`s.
    Raw(usize),
    /// Block comments, this deep (they nest).
    Block(usize),
}

/// The state after `line`, entered in `state`. It tells comments and strings from code
/// as the lexer does, enough to know whether the next line begins in code.
fn scan(line: &str, mut state: State) -> State {
    let bytes = line.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = 0;
    while i < bytes.len() {
        match state {
            State::Str => match bytes[i] {
                b'\\' => i += 1,
                b'"' => state = State::Code,
                _ => {}
            },
            State::Raw(hashes) => {
                if bytes[i] == b'"'
                    && bytes[i + 1..].len() >= hashes
                    && bytes[i + 1..i + 1 + hashes].iter().all(|&b| b == b'#')
                {
                    state = State::Code;
                    i += hashes;
                }
            }
            State::Block(depth) => {
                if bytes[i..].starts_with(b"/*") {
                    state = State::Block(depth + 1);
                    i += 1;
                } else if bytes[i..].starts_with(b"*/") {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::Block(depth - 1)
                    };
                    i += 1;
                }
            }
            State::Code => match bytes[i] {
                b'/' if bytes.get(i + 1) == Some(&b'/') => return State::Code,
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    state = State::Block(1);
                    i += 1;
                }
                b'"' => state = State::Str,
                b'r' if i == 0 || !is_ident(bytes[i - 1]) || raw_prefix(bytes, i) => {
                    let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                    if bytes.get(i + 1 + hashes) == Some(&b'"') {
                        state = State::Raw(hashes);
                        i += 1 + hashes;
                    }
                }
                b'\'' => i = after_quote(line, i),
                _ => {}
            },
        }
        i += 1;
    }
    state
}

/// Whether the `r` at `i` ends a `br` or `cr` prefix that starts a token.
fn raw_prefix(bytes: &[u8], i: usize) -> bool {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    i >= 1 && matches!(bytes[i - 1], b'b' | b'c') && (i == 1 || !is_ident(bytes[i - 2]))
}

/// Past a `'` at `i`: the last byte of a character literal (`'x'`, `'\n'`, `'"'`), or
/// `i` itself for a lifetime or label (`'a`).
fn after_quote(line: &str, i: usize) -> usize {
    let rest = &line[i + 1..];
    let mut chars = rest.char_indices();
    match chars.next() {
        Some((_, '\\')) => {
            // An escape: the literal ends at the next quote after the escaped character.
            let escaped = chars.next().map_or(0, |(at, c)| at + c.len_utf8());
            rest[escaped..]
                .find('\'')
                .map_or(i, |end| i + 1 + escaped + end)
        }
        Some((_, c)) => match chars.next() {
            Some((at, '\'')) if at == c.len_utf8() => i + 1 + at,
            _ => i,
        },
        None => i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifted(text: &str) -> (String, Vec<(usize, usize, String)>) {
        let (out, docs) = lift(text);
        let lines = docs
            .lines
            .iter()
            .map(|l| (l.at.line, l.at.column, l.text.clone()))
            .collect();
        (out.into_owned(), lines)
    }

    #[test]
    fn line_starting_doc_comments_are_lifted_and_their_lines_kept() {
        let text = "/// A.\n///\n#[derive(Debug)]\npub struct A {\n    /// +optional\r\n    pub a: i32, /// after code\n    //// plain\n}\n";
        let (out, lines) = lifted(text);
        assert_eq!(
            out,
            "\n\n#[derive(Debug)]\npub struct A {\n\r\n    pub a: i32, /// after code\n    //// plain\n}\n"
        );
        assert_eq!(
            lines,
            [
                (1, 0, " A.".to_owned()),
                (2, 0, String::new()),
                (5, 4, " +optional".to_owned())
            ]
        );
    }

    #[test]
    fn doc_comments_inside_strings_and_block_comments_stay() {
        for text in [
            "const S: &str = \"a\n/// not a doc\n\";\n",
            "const S: &str = \"a\\\"\n/// not a doc\n\";\n",
            "const S: &str = r#\"a\"\n/// not a doc\n\"#;\n",
            "const S: &[u8] = br\"a\n/// not a doc\n\";\n",
            "/* outer /* inner */\n/// not a doc\n*/\n",
        ] {
            let (out, lines) = lifted(text);
            assert!(lines.is_empty(), "{text:?}: {lines:?}");
            assert_eq!(out, text);
        }
    }

    #[test]
    fn what_looks_like_a_string_in_code_does_not_hide_the_next_doc() {
        for text in [
            "const C: char = '\"';\n/// doc\nstruct A;\n",
            "const C: char = '\\'';\n/// doc\nstruct A;\n",
            "fn f<'a>(x: &'a str) {} // \"\n/// doc\nstruct A;\n",
            "struct r#type; const R: &str = \"r\";\n/// doc\nstruct A;\n",
            "const E: char = 'é'; /* */\n/// doc\nstruct A;\n",
        ] {
            let (_, lines) = lifted(text);
            assert_eq!(lines.len(), 1, "{text:?}");
        }
    }

    #[test]
    fn a_bare_carriage_return_is_left_to_the_lexer() {
        let (_, lines) = lifted("/// a\rb\nstruct A;\n");
        assert!(lines.is_empty());
    }
}
