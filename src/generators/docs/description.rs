//! A description as the reference shows it, in both pages: its paragraphs (the lines of
//! each joined), lists and code blocks as HTML, `` `code` `` spans as `<code>` and URLs
//! as links, every piece of text escaped by the page's own escaping.

use std::fmt::Write as _;

use crate::prose::{Block, blocks};

/// `text` as HTML blocks on one line (a Markdown table cell holds no line break),
/// `escape` making each piece of its text safe where it goes.
pub fn render(text: &str, escape: fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    for block in blocks(text) {
        match block {
            Block::Paragraph(lines) => {
                let _ = write!(out, "<p>{}</p>", inline(&lines.join(" "), escape));
            }
            Block::List(items) => list(&items, escape, &mut out),
            Block::Code(lines) => {
                // A line break in a Markdown cell is `<br>`, which `escape` writes there.
                let _ = write!(out, "<pre><code>{}</code></pre>", escape(&lines.join("\n")));
            }
        }
    }
    out
}

/// A list's items, nested by their depth.
fn list(items: &[(usize, bool, Vec<&str>)], escape: fn(&str) -> String, out: &mut String) {
    let tag = |ordered: bool| if ordered { "ol" } else { "ul" };
    // The open lists, innermost last: each one's tag.
    let mut open: Vec<&str> = Vec::new();
    for (depth, ordered, lines) in items {
        if open.len() > depth + 1 {
            while open.len() > depth + 1 {
                let _ = write!(out, "</li></{}>", open.pop().unwrap_or("ul"));
            }
            out.push_str("</li>");
        } else if open.len() == depth + 1 {
            out.push_str("</li>");
        }
        while open.len() < depth + 1 {
            let _ = write!(out, "<{}>", tag(*ordered));
            open.push(tag(*ordered));
        }
        let _ = write!(out, "<li>{}", inline(&lines.join(" "), escape));
    }
    while let Some(tag) = open.pop() {
        let _ = write!(out, "</li></{tag}>");
    }
}

/// Text with its `` `code` `` spans as `<code>` and its URLs as links.
fn inline(text: &str, escape: fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
            continue;
        }
        let mut rest = part;
        while let Some(at) = [rest.find("https://"), rest.find("http://")]
            .into_iter()
            .flatten()
            .min()
        {
            out.push_str(&escape(&rest[..at]));
            let url = url_at(&rest[at..]);
            let _ = write!(out, "<a href=\"{0}\" rel=\"external\">{0}</a>", escape(url));
            rest = &rest[at + url.len()..];
        }
        out.push_str(&escape(rest));
    }
    out
}

/// The URL `text` starts with: up to a space or quote, without the punctuation that
/// ends the sentence around it (a closing parenthesis only where it opens none).
fn url_at(text: &str) -> &str {
    let end = text
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>' | '\''))
        .unwrap_or(text.len());
    let mut url = &text[..end];
    loop {
        let trimmed = url.trim_end_matches(['.', ',', ';', ':', '!', '?']);
        let trimmed = match trimmed.strip_suffix(')') {
            Some(inner) if !inner.contains('(') => inner,
            _ => trimmed,
        };
        if trimmed.len() == url.len() {
            return url;
        }
        url = trimmed;
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    fn plain(s: &str) -> String {
        s.replace('&', "&amp;").replace('<', "&lt;")
    }

    #[test]
    fn paragraphs_join_their_lines_and_keep_lists_code_and_links() {
        let text = "Servers should convert recognized schemas, and\nmay reject others.\nMore info: https://example.com/a_(b).\n\nOne of:\n- `a`: the first,\nstill the first\n  - nested\n- b (see http://x.io)\n\n    code <x>\n      indented";
        assert_eq!(
            render(text, plain),
            "<p>Servers should convert recognized schemas, and may reject others. More info: <a href=\"https://example.com/a_(b)\" rel=\"external\">https://example.com/a_(b)</a>.</p>\
             <p>One of:</p>\
             <ul><li><code>a</code>: the first, still the first<ul><li>nested</li></ul></li>\
             <li>b (see <a href=\"http://x.io\" rel=\"external\">http://x.io</a>)</li></ul>\
             <pre><code>code &lt;x>\n  indented</code></pre>"
        );
        assert_eq!(render("1. a\n2. b", plain), "<ol><li>a</li><li>b</li></ol>");
    }
}
