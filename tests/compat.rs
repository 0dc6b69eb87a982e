//! `crdgen compat`, run as a user runs it: one fixture per rule under testdata/compat
//! (old.yaml, new.yaml and what the check says, expected.txt), the JSON a CI tool reads,
//! the project's configuration, and the book's page of each rule showing its fixture's
//! finding.

mod common;

use std::path::{Path, PathBuf};

use common::{bless, crdgen, testdata};
use serde_json::Value;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every fixture's directory, by the rule it shows (`compatible` shows none).
fn fixtures() -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(testdata("compat"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    cases
}

/// The rule named `name`'s code, read from `crdgen explain`'s list of titles.
fn code_of(name: &str) -> String {
    let page = |code: &str| {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/src/diagnostics/{code}.md")),
        )
        .unwrap()
    };
    (27..=46)
        .map(|n| format!("E{n:04}"))
        .find(|code| page(code).contains(&format!("`{name}` rule")))
        .unwrap_or_else(|| panic!("no page is the `{name}` rule's"))
}

#[test]
fn each_rule_finds_its_fixture_and_a_compatible_change_passes_without_a_word() {
    let cases = fixtures();
    assert_eq!(
        cases.len(),
        21,
        "one fixture per rule, and the compatible one"
    );
    for (rule, dir) in cases {
        let out = crdgen(&dir, &["compat", "old.yaml", "new.yaml"]);
        let said = stderr(&out);
        bless::file(&dir.join("expected.txt"), &said);
        if rule == "compatible" {
            assert_eq!(
                said,
                "crdgen compat: 0 breaking, 0 to look at, 0 accepted\n"
            );
            assert_eq!(out.status.code(), Some(0));
            continue;
        }
        let code = code_of(&rule);
        let first = said.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("error[{code}]"))
                || first.starts_with(&format!("warning[{code}]")),
            "{rule}: {said}"
        );
        // Errors fail the check; warnings (rule-added, schema-changed) do not.
        let fails = said.lines().any(|l| l.starts_with("error["));
        assert_eq!(
            out.status.code(),
            Some(if fails { 1 } else { 0 }),
            "{rule}: {said}"
        );

        // The same findings as JSON, each naming its rule, version and path.
        let out = crdgen(
            &dir,
            &["compat", "old.yaml", "new.yaml", "--format", "json"],
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let findings = json["findings"].as_array().unwrap();
        assert_eq!(findings[0]["rule"], rule.as_str(), "{json:#}");
        assert_eq!(findings[0]["code"], code.as_str());
        assert_eq!(findings[0]["crd"], "widgets.shop.example.com");
        // Where the new side is; a CRD removed has only the old.
        let side = if rule == "crd-removed" {
            "old.yaml"
        } else {
            "new.yaml"
        };
        assert_eq!(findings[0]["file"], side);
        assert_eq!(
            json["errors"].as_u64().unwrap() as usize,
            said.lines().filter(|l| l.starts_with("error[")).count()
        );
    }
}

/// A rule's page shows, as its example, the first finding of the rule's fixture.
#[test]
fn each_rules_page_shows_its_fixtures_finding() {
    for (rule, dir) in fixtures()
        .into_iter()
        .filter(|(rule, _)| rule != "compatible")
    {
        let said = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
        let first: String = said
            .split_inclusive('\n')
            .enumerate()
            .take_while(|(i, line)| {
                *i == 0
                    || !(line.starts_with("error[")
                        || line.starts_with("warning[")
                        || line.starts_with("crdgen compat:"))
            })
            .map(|(_, line)| line)
            .collect();
        let page_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("docs/src/diagnostics/{}.md", code_of(&rule)));
        let page = std::fs::read_to_string(&page_path).unwrap();
        let (head, rest) = page.split_once("```text\n").unwrap();
        let (_, tail) = rest.split_once("```\n").unwrap();
        bless::file(&page_path, &format!("{head}```text\n{first}```\n{tail}"));
    }
}

fn config_case(config: &str) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    for side in ["old.yaml", "new.yaml"] {
        std::fs::copy(
            testdata("compat/field-removed").join(side),
            dir.path().join(side),
        )
        .unwrap();
    }
    std::fs::copy(
        testdata("compat/rule-added/new.yaml"),
        dir.path().join("ruled.yaml"),
    )
    .unwrap();
    std::fs::write(dir.path().join("crdgen-compat.yaml"), config).unwrap();
    let out = crdgen(dir.path(), &["compat", "old.yaml", "new.yaml"]);
    (dir, out)
}

#[test]
fn the_projects_configuration_sets_levels_and_accepts_a_deliberate_break() {
    // Accepted, with why: the check passes and says so.
    let (_, out) = config_case(
        "accept:\n  - rule: field-removed\n    crd: widgets.shop.example.com\n    version: v1\n    path: .spec.name\n    reason: renamed to spec.title in 0.4\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "crdgen compat: 0 breaking, 0 to look at, 1 accepted\n"
    );

    // An entry for another path accepts nothing.
    let (_, out) = config_case(
        "accept:\n  - rule: field-removed\n    crd: widgets.shop.example.com\n    path: .spec.url\n",
    );
    assert_eq!(out.status.code(), Some(1));

    // A level: a warning passes, off says nothing.
    let (_, out) = config_case("rules:\n  field-removed: warn\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).starts_with("warning[E0033]"),
        "{}",
        stderr(&out)
    );
    let (_, out) = config_case("rules:\n  field-removed: off\n");
    assert_eq!(
        stderr(&out),
        "crdgen compat: 0 breaking, 0 to look at, 0 accepted\n"
    );

    // A new rule fails where the project says so.
    let (dir, _) = config_case("rules:\n  rule-added: error\n");
    let out = crdgen(dir.path(), &["compat", "old.yaml", "ruled.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error[E0042]"), "{}", stderr(&out));

    // A rule there is none of, with where and the one meant.
    let (_, out) = config_case("rules:\n  field-removd: warn\n");
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("error[E0047]: no rule is named `field-removd`"),
        "{said}"
    );
    assert!(said.contains("--> crdgen-compat.yaml:2:3"), "{said}");
    assert!(said.contains("did you mean `field-removed`?"), "{said}");
    let (_, out) = config_case("rules:\n  field-removed: loud\n");
    assert!(stderr(&out).contains("error[E0047]"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("crdgen-compat.yaml:2:"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.yaml"), "kind: [").unwrap();
    let out = crdgen(dir.path(), &["compat", "a.yaml", "missing.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`missing.yaml` does not exist"),
        "{}",
        stderr(&out)
    );
    std::fs::copy(
        testdata("compat/field-removed/new.yaml"),
        dir.path().join("b.yaml"),
    )
    .unwrap();
    let out = crdgen(dir.path(), &["compat", "a.yaml", "b.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[E0024]: `a.yaml` is not valid YAML"),
        "{}",
        stderr(&out)
    );
    let out = crdgen(dir.path(), &["compat", "b.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = crdgen(dir.path(), &["compat", "--since", "HEAD", "b.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot read `b.yaml` at `HEAD`"),
        "{}",
        stderr(&out)
    );
}
