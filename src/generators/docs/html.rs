//! The reference as one self-contained HTML page: every group version, its style and
//! its field filter inline, nothing fetched (no font, script or image from elsewhere).

use std::fmt::Write as _;

use super::reference::{KindDoc, Link, Row, Rule, TypeText};
use super::{Page, description};
use crate::known::KubeVersion;

const STYLE: &str = include_str!("../../../templates/docs/reference.css");
const SCRIPT: &str = include_str!("../../../templates/docs/reference.js");

/// The page of every group version, their kinds' HTML sections taken into it.
pub fn page(pages: Vec<Page>, kube_version: KubeVersion) -> String {
    let size: usize = pages
        .iter()
        .flat_map(|p| &p.kinds)
        .map(|k| k.html.len())
        .sum();
    let mut out = String::with_capacity(size + (64 << 10));
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let groups: Vec<String> = pages.iter().map(Page::title).collect();
    let _ = writeln!(
        out,
        "<title>API reference: {}</title>",
        text(&groups.join(", "))
    );
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>");
    out.push_str("<header><h1>API reference</h1>");
    out.push_str(
        "<input id=\"filter\" type=\"search\" placeholder=\"Filter fields\" aria-label=\"Filter fields\" autocomplete=\"off\">",
    );
    out.push_str("<span id=\"count\"></span></header>\n<div class=\"layout\">\n<nav>\n");
    // A group version's kinds fold under it: a reference of many groups stays short.
    for page in &pages {
        let _ = write!(
            out,
            "<details open><summary>{}</summary><ul>",
            text(&page.title()).replace('.', ".<wbr>")
        );
        for kind in &page.kinds {
            let _ = write!(
                out,
                "<li><a href=\"#{}\">{}</a></li>",
                kind.anchor,
                words_html(&kind.kind)
            );
        }
        out.push_str("</ul></details>\n");
    }
    out.push_str("</nav>\n<main>\n");
    let _ = writeln!(
        out,
        "<p>Kubernetes' own types link to the Kubernetes {kube_version} API reference.</p>"
    );
    for page in pages {
        let _ = writeln!(out, "<h2>{}</h2>", text(&page.title()));
        for kind in page.kinds {
            out.push_str(&kind.html);
        }
    }
    let _ = write!(
        out,
        "</main>\n</div>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

/// A kind's section of the page.
pub fn kind_section(kind: &KindDoc) -> String {
    let mut section = String::with_capacity(16 << 10);
    let out = &mut section;
    let _ = writeln!(
        out,
        "<section class=\"kind\" id=\"{}\" data-kind=\"{}\">\n<h3>{}</h3>",
        kind.anchor,
        text(&kind.kind),
        text(&kind.kind)
    );
    if !kind.description.is_empty() {
        let _ = writeln!(out, "{}", description::render(&kind.description, text));
    }
    out.push_str("<table class=\"facts\">\n");
    let fact = |out: &mut String, name: &str, value: String| {
        let _ = writeln!(out, "<tr><th>{name}</th><td>{value}</td></tr>");
    };
    fact(out, "Scope", text(&kind.scope));
    fact(out, "Plural", code(&kind.plural));
    let list = |items: &[String]| items.iter().map(|i| code(i)).collect::<Vec<_>>().join(", ");
    if !kind.short_names.is_empty() {
        fact(out, "Short names", list(&kind.short_names));
    }
    if !kind.categories.is_empty() {
        fact(out, "Categories", list(&kind.categories));
    }
    if !kind.subresources.is_empty() {
        fact(out, "Subresources", text(&kind.subresources.join(", ")));
    }
    fact(out, "Versions", kind.versions_line(text));
    out.push_str("</table>\n");
    if let Some(warning) = kind.deprecation() {
        let _ = writeln!(
            out,
            "<p class=\"deprecated\"><b>Deprecated:</b> {}</p>",
            text(warning)
        );
    }
    if !kind.columns.is_empty() {
        out.push_str("<h4>Printer columns</h4>\n<table><tr><th>Name</th><th>Type</th><th>JSONPath</th><th>Description</th></tr>\n");
        for c in &kind.columns {
            let wide = if c.priority > 0 {
                " (<code>-o wide</code>)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<tr><td>{}{wide}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                text(&c.name),
                text(&c.ty),
                code(&c.json_path),
                text(&c.description)
            );
        }
        out.push_str("</table>\n");
    }
    if !kind.rules.is_empty() {
        out.push_str("<h4>Rules on the object</h4>\n<ul class=\"rules\">");
        for rule in &kind.rules {
            let _ = write!(out, "<li>{}</li>", rule_html(rule));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h4>Fields</h4>\n<table class=\"fields\"><tr><th>Field</th><th>Type</th><th>Required</th><th>Default</th><th>Description</th><th>Validation</th></tr>\n");
    for row in &kind.rows {
        field_row(row, out);
    }
    out.push_str("</table>\n");
    if !kind.samples.is_empty() {
        out.push_str("<h4>Samples</h4>\n");
        for sample in &kind.samples {
            let _ = writeln!(
                out,
                "<p>{}</p>\n<pre><code>{}</code></pre>",
                code(&sample.file),
                text(&sample.text)
            );
        }
    }
    out.push_str("</section>\n");
    section
}

fn field_row(row: &Row, out: &mut String) {
    let mut validation: Vec<String> = row.validations.iter().map(|w| inline(w)).collect();
    validation.extend(row.rules.iter().map(rule_html));
    let _ = writeln!(
        out,
        "<tr id=\"{}\" class=\"row\"><td class=\"field\" style=\"padding-left:{}px\"><a href=\"#{}\">{}</a></td><td>{}</td><td{}>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        row.anchor,
        // The path says how deep a field is; past a few steps, indenting would only
        // narrow the column.
        8 + 10 * row.depth.min(6),
        row.anchor,
        path_html(&row.path, &row.name),
        type_html(&row.ty),
        if row.required {
            " class=\"required\""
        } else {
            ""
        },
        if row.required { "required" } else { "optional" },
        row.default.as_deref().map_or(String::new(), code),
        description::render(&row.description, text),
        validation.join("<br>"),
    );
}

/// The path with its last name stressed: `spec.ports[].` dimmed, `name` plain; a long
/// one breaks after its dots.
fn path_html(path: &str, name: &str) -> String {
    let breaking = |s: &str| text(s).replace('.', ".<wbr>");
    match path.strip_suffix(name) {
        Some(parent) if !parent.is_empty() => {
            format!(
                "<span class=\"path\">{}</span>{}",
                breaking(parent),
                breaking(name)
            )
        }
        _ => breaking(path),
    }
}

/// A type's name, breakable where its words meet (`AnalysisTemplate<wbr>Spec…`).
fn words_html(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 16);
    let mut previous = ' ';
    for c in name.chars() {
        if c.is_ascii_uppercase() && (previous.is_ascii_lowercase() || previous.is_ascii_digit()) {
            out.push_str("<wbr>");
        }
        previous = c;
        out.push_str(&text(c.encode_utf8(&mut [0; 4])));
    }
    out
}

fn type_html(ty: &TypeText) -> String {
    let name = match &ty.link {
        None => words_html(&ty.name),
        Some(Link::Internal(anchor)) => {
            format!("<a href=\"#{anchor}\">{}</a>", words_html(&ty.name))
        }
        Some(Link::External(url)) => format!(
            "<a href=\"{}\" rel=\"external\">{}</a>",
            text(url),
            words_html(&ty.name)
        ),
    };
    format!("{}{name}", text(&ty.around))
}

fn rule_html(rule: &Rule) -> String {
    let code = format!("rule {}", code(&rule.rule));
    match &rule.message {
        Some(message) => format!("{code}: {}", text(message)),
        None => code,
    }
}

/// Text with its `` `code` `` spans as `<code>`.
fn inline(words: &str) -> String {
    words
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { code(part) } else { text(part) })
        .collect()
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", text(s))
}

/// Text escaped for HTML (in text and in quoted attributes).
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
