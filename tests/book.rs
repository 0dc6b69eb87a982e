//! The book's Rust is compiled code: every `rust` block of docs/src is included from a
//! file that a test run builds (or, for markers, the webhook fixture its tests read), by
//! an anchor or line range that is there; the upgrading pages' "After" code is a run of
//! a compiled example's lines, and their "Before" code, which no earlier release's
//! compiler is here to build, is the only `ignore`, with its reason. Rustdoc has no
//! `ignore` at all.

use std::path::{Path, PathBuf};

/// Where included code is compiled (or, for `testdata/webhook`, read by the webhook
/// generator's tests as its fixture), relative to the repository.
const COMPILED: &[&str] = &[
    "src/",
    "runtime/src/",
    "docs/tutorial/src/",
    "docs/tutorial/tests/",
    "docs/tutorial/examples/",
    "testdata/consumer/build.rs",
    "testdata/consumer/src/",
    "testdata/consumer/tests/",
    "testdata/consumer/examples/",
    "testdata/example/pkg/",
    "testdata/webhook/src/",
];

/// The one reason an `ignore` may give.
const EARLIER_RELEASE: &str =
    "<!-- ignore: the code of an earlier release, which no longer compiles -->";

/// The compiled file an upgrading page's "After" code is in.
const AFTER: &str = "docs/tutorial/examples/upgrading.rs";

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repository())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A fenced block: the line its fence opens on (1-based), its info string, the line
/// before the fence, and its lines.
struct Block {
    line: usize,
    info: String,
    before: String,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    let mut previous = String::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    line: i + 1,
                    info: info.trim().to_owned(),
                    before: previous.clone(),
                    lines: Vec::new(),
                })
            }
            (Some(_), Some("")) => found.extend(open.take()),
            (Some(block), _) => block.lines.push(line.to_owned()),
            (None, None) => {}
        }
        if !trimmed.is_empty() {
            previous = trimmed.to_owned();
        }
    }
    found
}

/// `{{#include PATH[:ANCHOR | :FROM:TO]}}` of `line`, if it is one.
fn include(line: &str) -> Option<(&str, Vec<&str>)> {
    let inner = line
        .trim()
        .strip_prefix("{{#include ")?
        .strip_suffix("}}")?;
    let mut parts = inner.split(':');
    Some((parts.next()?, parts.collect()))
}

/// What is wrong with one include of `md`'s, if anything.
fn check_include(md: &Path, path: &str, selector: &[&str]) -> Option<String> {
    let file = md.parent()?.join(path);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Some(format!("includes `{path}`, which is not there"));
    };
    let shown = relative(&file.canonicalize().unwrap_or(file.clone()));
    if file.extension().is_some_and(|e| e == "rs") && !COMPILED.iter().any(|c| shown.starts_with(c))
    {
        return Some(format!("includes `{shown}`, which no test run compiles"));
    }
    let lines: Vec<&str> = text.lines().collect();
    match selector {
        [] => None,
        // mdBook reads a name of letters, digits, `_` and `-` after `ANCHOR:` and
        // ignores the rest, so that another name includes nothing.
        [anchor]
            if !anchor
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
        {
            Some(format!(
                "includes `{shown}:{anchor}`, a name mdBook cannot match"
            ))
        }
        [anchor] => {
            // mdBook's marks: `ANCHOR: name` and `ANCHOR_END: name`, anywhere in a line.
            let marked = |mark: &str| {
                lines.iter().any(|l| {
                    l.split(&format!("{mark}: "))
                        .nth(1)
                        .is_some_and(|rest| rest.split_whitespace().next() == Some(*anchor))
                })
            };
            (!marked("ANCHOR") || !marked("ANCHOR_END"))
                .then(|| format!("includes `{shown}:{anchor}`, an anchor it does not have"))
        }
        [from, to] => {
            let (Ok(from), Ok(to)) = (from.parse::<usize>(), to.parse::<usize>()) else {
                return Some(format!("includes `{shown}` by lines that are not numbers"));
            };
            // A range must still be a whole item: docs first, its closing brace last.
            let whole = from >= 1
                && to <= lines.len()
                && lines[from - 1].starts_with("///")
                && lines[to - 1] == "}";
            (!whole).then(|| {
                format!("includes lines {from} to {to} of `{shown}`, no longer one whole item")
            })
        }
        _ => Some(format!(
            "includes `{path}` with a selector mdBook does not know"
        )),
    }
}

/// The book's pages.
fn pages() -> Vec<PathBuf> {
    walkdir::WalkDir::new(repository().join("docs/src"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect()
}

#[test]
fn every_rust_block_of_the_book_is_included_from_compiled_code() {
    let mut wrong = Vec::new();
    let mut included = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some((path, selector)) = include(line) {
                included += 1;
                let at = format!("{}:{}", relative(&page), i + 1);
                wrong.extend(check_include(&page, path, &selector).map(|w| format!("{at}: {w}")));
            }
        }
        for block in blocks(&text)
            .into_iter()
            .filter(|b| b.info.starts_with("rust"))
        {
            let at = format!("{}:{}", relative(&page), block.line);
            if block.info != "rust" {
                wrong.push(format!(
                    "{at}: ```{} (the book's code is compiled)",
                    block.info
                ));
            }
            // Includes, and labels (`// src/main.rs`) or elisions (`// …`) between them.
            let written = block.lines.iter().find(|l| {
                !l.trim().is_empty() && include(l).is_none() && !l.trim_start().starts_with("//")
            });
            if let Some(line) = written {
                wrong.push(format!("{at}: code written in the page: {line}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        included >= 30,
        "only {included} includes: is docs/src read?"
    );
}

#[test]
fn the_upgrading_pages_code_is_compiled_or_an_earlier_releases() {
    let after = std::fs::read_to_string(repository().join(AFTER)).unwrap();
    let after: Vec<&str> = after.lines().map(str::trim).collect();
    let changelog = repository().join("CHANGELOG.md");
    let text = std::fs::read_to_string(&changelog).unwrap();
    let mut wrong = Vec::new();
    let (mut before, mut compiled) = (0, 0);
    for block in blocks(&text)
        .into_iter()
        .filter(|b| b.info.starts_with("rust"))
    {
        let at = format!("CHANGELOG.md:{}", block.line);
        match block.info.as_str() {
            "rust,ignore" if block.before == EARLIER_RELEASE => before += 1,
            "rust,ignore" => wrong.push(format!(
                "{at}: an `ignore` without its reason, `{EARLIER_RELEASE}`"
            )),
            "rust" => {
                compiled += 1;
                let lines: Vec<&str> = block.lines.iter().map(|l| l.trim()).collect();
                if !after
                    .windows(lines.len())
                    .any(|run| run == lines.as_slice())
                {
                    wrong.push(format!("{at}: not a run of {AFTER}'s lines"));
                }
            }
            other => wrong.push(format!("{at}: ```{other}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Each breaking change of 0.1 with code shows both sides.
    assert_eq!((before, compiled), (4, 4));
    // The book's page for 0.1 is the CHANGELOG's section.
    let page = std::fs::read_to_string(repository().join("docs/src/upgrading/0.1.md")).unwrap();
    assert!(
        page.contains("{{#include ../../../CHANGELOG.md:changed_0_1}}"),
        "{page}"
    );
}

#[test]
fn rustdoc_ignores_no_example() {
    let mut wrong = Vec::new();
    for dir in ["src", "runtime/src", "apimachinery/src"] {
        for entry in walkdir::WalkDir::new(repository().join(dir)) {
            let path = entry.unwrap().into_path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let doc = line.trim_start();
                let fence = ["///", "//!"]
                    .iter()
                    .find_map(|p| doc.strip_prefix(p))
                    .and_then(|rest| rest.trim_start().strip_prefix("```"));
                if fence.is_some_and(|info| info.split(',').any(|word| word.trim() == "ignore")) {
                    wrong.push(format!("{}:{}: {doc}", relative(&path), i + 1));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "ignored examples:\n{}", wrong.join("\n"));
}

#[test]
fn the_tutorial_installs_the_crdgen_of_this_release() {
    let install = format!(
        "cargo install crdgen --version {}",
        env!("CARGO_PKG_VERSION")
    );
    for file in [".github/workflows/ci.yml", "hack/update-codegen.sh"] {
        let text = std::fs::read_to_string(repository().join("docs/tutorial").join(file)).unwrap();
        assert!(
            text.contains(&install),
            "docs/tutorial/{file} lacks `{install}`"
        );
    }
}
