//! Descriptions: the prose of a CRD's `description` and of a Rust doc comment, which are
//! the same text in two forms. rustdoc and clippy read a doc comment as Markdown, where a
//! description is plain text with line breaks; the two forms differ in four places only,
//! and [`to_doc_comment`] and [`from_doc_comment`] are each other's inverse on them, so
//! that an imported CRD's descriptions generate back as they were:
//!
//! - a tab is `&#9;` (clippy's `tabs_in_doc_comments`), and `&#` itself `&amp;#`;
//! - a line a list item's paragraph continues on is indented to the item's text
//!   (clippy's `doc_lazy_continuation` and `doc_overindented_list_items`), and where it
//!   was indented otherwise, `&#32;`s after that say how: one for none (the usual
//!   case), `k + 1` for `k` spaces short of the item's text, `k` for `k` past it;
//! - a line indented as code after a blank line starts `&#32;` (rustdoc would compile
//!   an indented code block as a doctest);
//! - a code fence without a language is a `text` fence (for the same reason).
//!
//! [`blocks`] reads the same structure for the API reference: paragraphs, lists and code.

/// A list item's line: how far its marker is indented, and where its text starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListItem {
    pub indent: usize,
    pub ordered: bool,
    /// The column of the item's text: its marker's indentation, the marker and a space.
    pub text_column: usize,
}

/// The list item `line` starts, if any: `- `, `* `, `+ `, `1. ` or `1) `.
pub fn list_item(line: &str) -> Option<ListItem> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (marker, ordered) = match rest.as_bytes().get(digits)? {
        b'-' | b'*' | b'+' if digits == 0 => (1, false),
        b'.' | b')' if (1..=9).contains(&digits) => (digits + 1, true),
        _ => return None,
    };
    (rest.as_bytes().get(marker) == Some(&b' ')).then_some(ListItem {
        indent,
        ordered,
        text_column: indent + marker + 1,
    })
}

/// The info string of the code fence `line` opens or closes, if it is one.
fn fence(line: &str) -> Option<(&'static str, &str)> {
    let rest = line.trim_start();
    ["```", "~~~"]
        .into_iter()
        .find(|f| rest.starts_with(f))
        .map(|f| (f, rest.trim_start_matches(f.as_bytes()[0] as char).trim()))
}

/// The length of a fence line's indentation and fence, before its info string.
fn fence_head(line: &str) -> usize {
    line.len() - line.trim_start().trim_start_matches(['`', '~']).len()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A space rustdoc shows but does not read as indentation.
const SPACE: &str = "&#32;";

/// The language rustdoc takes for a fence with none of its own: not Rust, so not a test.
const PLAIN: &str = "text";

/// `description` as the lines of a doc comment that rustdoc and clippy read as it is
/// meant (see the module's page).
pub fn to_doc_comment(description: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = Lines::default();
    for line in description.split('\n') {
        let line = line.replace("&#", "&amp;#").replace('\t', "&#9;");
        out.push(match lines.next(&line) {
            Line::Fence { open: true, info } if info.is_empty() || first_word(info) == PLAIN => {
                let at = fence_head(&line);
                let space = if info.is_empty() { "" } else { " " };
                format!("{}{PLAIN}{space}{}", &line[..at], line[at..].trim_start())
            }
            Line::Code => format!("&#32;{}", &line[1..]),
            Line::Continues { text_column } if indent(&line) != text_column => {
                let k = indent(&line);
                let marks = if k < text_column { k + 1 } else { k };
                format!(
                    "{}{}{}",
                    " ".repeat(text_column),
                    "&#32;".repeat(marks),
                    &line[k..]
                )
            }
            _ => line,
        });
    }
    out
}

/// The description a doc comment's prose lines say: [`to_doc_comment`] undone.
pub fn from_doc_comment(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut structure = Lines::default();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = match structure.next(line) {
            Line::Fence { open: true, info } if first_word(info) == PLAIN => {
                let at = fence_head(line);
                let rest = line[at..].trim_start();
                let rest = rest[PLAIN.len()..]
                    .strip_prefix(' ')
                    .unwrap_or(&rest[PLAIN.len()..]);
                format!("{}{rest}", &line[..at])
            }
            Line::Continues { text_column } if indent(line) == text_column => {
                let rest = &line[text_column..];
                let text = rest.trim_start_matches(SPACE);
                let marks = (rest.len() - text.len()) / SPACE.len();
                let k = match marks {
                    0 => text_column,
                    n if n <= text_column => n - 1,
                    n => n,
                };
                format!("{}{text}", " ".repeat(k))
            }
            _ => (*line).to_owned(),
        };
        unescape(&line, &mut out);
    }
    out
}

fn first_word(info: &str) -> &str {
    info.split_whitespace().next().unwrap_or_default()
}

/// `&#9;`, `&#32;` and `&amp;#` read back as a tab, a space and `&#`.
fn unescape(line: &str, out: &mut String) {
    let mut rest = line;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let (text, len) = match () {
            _ if rest.starts_with("&#9;") => ("\t", 4),
            _ if rest.starts_with("&#32;") => (" ", 5),
            _ if rest.starts_with("&amp;#") => ("&#", 6),
            _ => ("&", 1),
        };
        out.push_str(text);
        rest = &rest[len..];
    }
    out.push_str(rest);
}

/// What a line of prose is, read in order as Markdown's blocks go.
#[derive(Debug, PartialEq, Eq)]
enum Line<'a> {
    Blank,
    Fence {
        open: bool,
        info: &'a str,
    },
    /// Inside a fenced block.
    Fenced,
    /// Indented as code after a blank line (or first).
    Code,
    Item(ListItem),
    /// The paragraph of the list item above goes on.
    Continues {
        text_column: usize,
    },
    Text,
}

/// The state of the reading: an open fence, the list item whose paragraph is open, and
/// whether the last line was blank.
#[derive(Default)]
struct Lines {
    fence: Option<&'static str>,
    item: Option<ListItem>,
    after_blank: bool,
    /// The last line was indented code.
    in_code: bool,
    started: bool,
}

impl Lines {
    fn next<'a>(&mut self, line: &'a str) -> Line<'a> {
        let first = !self.started;
        self.started = true;
        let after_blank = std::mem::replace(&mut self.after_blank, false);
        if let Some(open) = self.fence {
            if fence(line).is_some_and(|(f, info)| f == open && info.is_empty()) {
                self.fence = None;
                return Line::Fence {
                    open: false,
                    info: "",
                };
            }
            return Line::Fenced;
        }
        if let Some((f, info)) = fence(line) {
            self.fence = Some(f);
            self.item = None;
            return Line::Fence { open: true, info };
        }
        if line.trim().is_empty() {
            self.item = None;
            self.in_code = false;
            self.after_blank = true;
            return Line::Blank;
        }
        let code = (first || after_blank || self.in_code)
            && (indent(line) >= 4 || line.starts_with("&#32;"));
        self.in_code = code;
        if code {
            return Line::Code;
        }
        if let Some(item) = list_item(line) {
            self.item = Some(item);
            return Line::Item(item);
        }
        match self.item {
            Some(item) => Line::Continues {
                text_column: item.text_column,
            },
            None => Line::Text,
        }
    }
}

/// A block of a description, as the API reference shows it.
#[derive(Debug, PartialEq, Eq)]
pub enum Block<'a> {
    /// Lines of one paragraph, to be joined.
    Paragraph(Vec<&'a str>),
    /// A list's items, each its depth (0 outermost), whether it is numbered, and its
    /// paragraph's lines.
    List(Vec<(usize, bool, Vec<&'a str>)>),
    /// Code, its lines as they are (indented lines lose the indentation they share).
    Code(Vec<&'a str>),
}

/// The paragraphs, lists and code blocks of `description`.
pub fn blocks(description: &str) -> Vec<Block<'_>> {
    let mut out: Vec<Block> = Vec::new();
    let mut lines = Lines::default();
    // The text columns of the open list's items, outermost first: an item's depth.
    let mut columns: Vec<usize> = Vec::new();
    let mut after_blank = false;
    for line in description.split('\n') {
        let kind = lines.next(line);
        let last = out.last_mut();
        match (kind, last) {
            (Line::Blank | Line::Fence { open: false, .. }, _) => {}
            (Line::Fence { open: true, .. }, _) => out.push(Block::Code(Vec::new())),
            (Line::Fenced, Some(Block::Code(code))) => code.push(line),
            (Line::Code, Some(Block::Code(code))) if !after_blank => code.push(line),
            (Line::Code, _) => out.push(Block::Code(vec![line])),
            (Line::Item(item), last) => {
                let entry = |depth| (depth, item.ordered, vec![line[item.text_column..].trim()]);
                match last {
                    // A nested item, or one more of the same kind of list.
                    Some(Block::List(items)) if item.indent > 0 || items[0].1 == item.ordered => {
                        while columns.last().is_some_and(|&c| item.indent < c) {
                            columns.pop();
                        }
                        items.push(entry(columns.len()));
                    }
                    _ => {
                        columns.clear();
                        out.push(Block::List(vec![entry(0)]));
                    }
                }
                columns.push(item.text_column);
            }
            (Line::Continues { .. }, Some(Block::List(items))) => {
                if let Some((_, _, text)) = items.last_mut() {
                    text.push(line.trim());
                }
            }
            (_, Some(Block::Paragraph(text))) if !after_blank => text.push(line.trim()),
            _ => out.push(Block::Paragraph(vec![line.trim()])),
        }
        after_blank = line.trim().is_empty();
    }
    for block in &mut out {
        if let Block::Code(code) = block {
            let shared = code
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| indent(l))
                .min()
                .unwrap_or(0);
            for l in code.iter_mut() {
                *l = l.get(shared..).unwrap_or_default();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Descriptions in the shapes real CRDs have: lists continued without indentation,
    /// tabs, Go's indented code, a fence without a language, `&#` in text.
    const SHAPES: &[&str] = &[
        "One line.",
        "Lines of\none paragraph.\n\nAnd another.",
        "Either:\n- `Exists`: the key is there,\nwhatever its value\n- `In`: one of\nthe values\n\n1. first\nsecond line\n10) tenth",
        "Tabs\tin text, and\n\tat a line's start.",
        "Go code:\n\n    x := 1\n    y := 2\n\nafter.",
        "    starts indented",
        "YAML:\n\n```\nmatch:\n\tpath: /\n```\n\n```yaml\na: 1\n```\n\n```text\nplain\n```",
        "An entity &#9; and &amp; stay text; so does &#32;.",
        "- item\n  already indented\n- a\n   past\n - b\n 1\n\n      code after a list",
    ];

    #[test]
    fn a_description_comes_back_from_its_doc_comment() {
        for description in SHAPES {
            let doc = to_doc_comment(description);
            let lines: Vec<&str> = doc.iter().map(String::as_str).collect();
            let back = from_doc_comment(&lines);
            assert_eq!(&back, description, "doc comment:\n{}", doc.join("\n"));
        }
    }

    #[test]
    fn a_doc_comment_is_what_rustdoc_and_clippy_take() {
        let doc = to_doc_comment(SHAPES[2]).join("\n");
        assert_eq!(
            doc,
            "Either:\n- `Exists`: the key is there,\n  &#32;whatever its value\n- `In`: one of\n  &#32;the values\n\n1. first\n   &#32;second line\n10) tenth"
        );
        assert_eq!(
            to_doc_comment(SHAPES[8])[..6],
            [
                "- item",
                "  already indented",
                "- a",
                "  &#32;&#32;&#32;past",
                " - b",
                "   &#32;&#32;1"
            ]
        );
        assert_eq!(
            to_doc_comment(SHAPES[3]),
            ["Tabs&#9;in text, and", "&#9;at a line's start."]
        );
        assert_eq!(
            to_doc_comment(SHAPES[4]),
            [
                "Go code:",
                "",
                "&#32;   x := 1",
                "&#32;   y := 2",
                "",
                "after."
            ]
        );
        let fenced = to_doc_comment(SHAPES[6]);
        assert_eq!(fenced[2], "```text");
        assert_eq!(fenced[4], "&#9;path: /");
        assert_eq!(fenced[7], "```yaml");
        assert_eq!(fenced[11], "```text text");
        assert_eq!(
            to_doc_comment(SHAPES[7]),
            ["An entity &amp;#9; and &amp; stay text; so does &amp;#32;."]
        );
    }

    #[test]
    fn blocks_are_paragraphs_lists_and_code() {
        use Block::*;
        assert_eq!(
            blocks(SHAPES[1]),
            [
                Paragraph(vec!["Lines of", "one paragraph."]),
                Paragraph(vec!["And another."])
            ]
        );
        assert_eq!(
            blocks(SHAPES[2]),
            [
                Paragraph(vec!["Either:"]),
                List(vec![
                    (
                        0,
                        false,
                        vec!["`Exists`: the key is there,", "whatever its value"]
                    ),
                    (0, false, vec!["`In`: one of", "the values"]),
                ]),
                List(vec![
                    (0, true, vec!["first", "second line"]),
                    (0, true, vec!["tenth"])
                ]),
            ]
        );
        assert_eq!(
            blocks(SHAPES[4]),
            [
                Paragraph(vec!["Go code:"]),
                Code(vec!["x := 1", "y := 2"]),
                Paragraph(vec!["after."])
            ]
        );
        assert_eq!(
            blocks("- a\n  - b\n  - c\n- d"),
            [List(vec![
                (0, false, vec!["a"]),
                (1, false, vec!["b"]),
                (1, false, vec!["c"]),
                (0, false, vec!["d"])
            ])]
        );
        assert_eq!(blocks(SHAPES[6])[1], Code(vec!["match:", "\tpath: /"]));
    }
}
