//! The reference as Markdown, for mdBook (or any CommonMark reader with GitHub's
//! tables): a page per group version, and the SUMMARY fragment that lists them. Cells
//! are written as inline HTML, escaped, so that no description or pattern can break a
//! table.

use std::fmt::Write as _;

use super::reference::{KindDoc, Link, Row, Rule, TypeText};
use super::{Page, description};
use crate::naming::docs as names;

/// The SUMMARY.md lines of the pages, for a book's SUMMARY.md.
pub fn summary(pages: &[Page]) -> String {
    let mut out = String::from("- [API reference](")
        + &pages
            .first()
            .map_or(String::new(), |p| names::page_file(&p.group, &p.version))
        + ")\n";
    for page in pages {
        let _ = writeln!(
            out,
            "  - [{}]({})",
            page.title(),
            names::page_file(&page.group, &page.version)
        );
    }
    out
}

/// One group version's page, its kinds' Markdown sections taken into it.
pub fn page(page: &mut Page) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", page.title());
    let kinds: Vec<String> = page
        .kinds
        .iter()
        .map(|k| format!("[{}](#{})", k.kind, k.anchor))
        .collect();
    let _ = writeln!(out, "Kinds: {}\n", kinds.join(", "));
    for kind in &mut page.kinds {
        out.push_str(&std::mem::take(&mut kind.markdown));
    }
    out
}

/// A kind's section of its page.
pub fn kind_section(kind: &KindDoc) -> String {
    let mut section = String::new();
    let out = &mut section;
    let _ = writeln!(out, "<a id=\"{}\"></a>\n", kind.anchor);
    let _ = writeln!(out, "## {}\n", kind.kind);
    if !kind.description.is_empty() {
        let _ = writeln!(out, "{}\n", description::render(&kind.description, cell));
    }
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(out, "| Scope | {} |", cell(&kind.scope));
    let _ = writeln!(out, "| Plural | <code>{}</code> |", cell(&kind.plural));
    let list = |items: &[String]| {
        let codes: Vec<String> = items
            .iter()
            .map(|i| format!("<code>{}</code>", cell(i)))
            .collect();
        codes.join(", ")
    };
    if !kind.short_names.is_empty() {
        let _ = writeln!(out, "| Short names | {} |", list(&kind.short_names));
    }
    if !kind.categories.is_empty() {
        let _ = writeln!(out, "| Categories | {} |", list(&kind.categories));
    }
    if !kind.subresources.is_empty() {
        let _ = writeln!(
            out,
            "| Subresources | {} |",
            cell(&kind.subresources.join(", "))
        );
    }
    let _ = writeln!(out, "| Versions | {} |\n", kind.versions_line(cell));
    if let Some(warning) = kind.deprecation() {
        let _ = writeln!(out, "> **Deprecated:** {}\n", cell(warning));
    }
    if !kind.columns.is_empty() {
        let _ = writeln!(out, "Printer columns (`kubectl get`):\n");
        let _ = writeln!(
            out,
            "| Name | Type | JSONPath | Description |\n|---|---|---|---|"
        );
        for c in &kind.columns {
            let wide = if c.priority > 0 { " (`-o wide`)" } else { "" };
            let _ = writeln!(
                out,
                "| {}{wide} | {} | <code>{}</code> | {} |",
                cell(&c.name),
                cell(&c.ty),
                cell(&c.json_path),
                cell(&c.description)
            );
        }
        out.push('\n');
    }
    if !kind.rules.is_empty() {
        let _ = writeln!(out, "Rules on the object:\n");
        for rule in &kind.rules {
            let _ = writeln!(out, "- {}", rule_text(rule));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "### Fields\n");
    let _ = writeln!(
        out,
        "| Field | Type | Required | Default | Description | Validation |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for row in &kind.rows {
        field_row(row, out);
    }
    out.push('\n');
    if !kind.samples.is_empty() {
        let _ = writeln!(out, "### Samples\n");
        for sample in &kind.samples {
            let _ = writeln!(out, "`{}`:\n\n```yaml\n{}```\n", sample.file, sample.text);
        }
    }
    section
}

fn field_row(row: &Row, out: &mut String) {
    let indent = "&nbsp;&nbsp;".repeat(row.depth);
    let mut validation: Vec<String> = row.validations.iter().map(|w| inline(w)).collect();
    validation.extend(row.rules.iter().map(rule_text));
    let _ = writeln!(
        out,
        "| {indent}<a id=\"{}\"></a><code>{}</code> | {} | {} | {} | {} | {} |",
        row.anchor,
        cell(&row.path),
        type_cell(&row.ty),
        if row.required { "required" } else { "optional" },
        row.default
            .as_deref()
            .map_or(String::new(), |d| format!("<code>{}</code>", cell(d))),
        description::render(&row.description, cell),
        validation.join("<br>"),
    );
}

fn type_cell(ty: &TypeText) -> String {
    let name = match &ty.link {
        None => cell(&ty.name),
        Some(Link::Internal(anchor)) => format!("<a href=\"#{anchor}\">{}</a>", cell(&ty.name)),
        Some(Link::External(url)) => format!("<a href=\"{}\">{}</a>", cell(url), cell(&ty.name)),
    };
    format!("{}{name}", cell(&ty.around))
}

/// A rule and its message: `` `self.a > 0`: a must be positive ``.
fn rule_text(rule: &Rule) -> String {
    let code = format!("rule <code>{}</code>", cell(&rule.rule));
    match &rule.message {
        Some(message) => format!("{code}: {}", cell(message)),
        None => code,
    }
}

/// Text with its `` `code` `` spans as `<code>`, escaped for a table cell.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        match i % 2 {
            1 => {
                let _ = write!(out, "<code>{}</code>", cell(part));
            }
            _ => out.push_str(&cell(part)),
        }
    }
    out
}

/// Text escaped for a table cell: HTML's specials and the cell separator as entities,
/// line breaks as `<br>`.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '\\' => out.push_str("&#92;"),
            '*' => out.push_str("&#42;"),
            '_' => out.push_str("&#95;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '`' => out.push_str("&#96;"),
            '\n' => out.push_str("<br>"),
            c => out.push(c),
        }
    }
    out
}
