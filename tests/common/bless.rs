//! One expected file, which a test's output must match byte for byte:
//! `CRDGEN_BLESS=1` (never in CI) rewrites it with what the test got. Shared by the
//! integration tests (through [`super::expect`]) and the crates' own unit tests that pin
//! what disagrees with kube-apiserver's tests (they include this file by path).

use std::path::Path;

/// Set to `1` to write what the tests get over what they expect (never in CI).
pub const BLESS: &str = "CRDGEN_BLESS";

pub fn blessing() -> bool {
    std::env::var(BLESS).is_ok_and(|v| v == "1") && std::env::var_os("CI").is_none()
}

/// `path` holds `actual`; with `CRDGEN_BLESS=1`, it is made to.
pub fn file(path: &Path, actual: &str) {
    if let Some(problem) = compare(path, actual) {
        panic!("{problem}");
    }
}

/// Why `path` does not hold `actual`, after blessing it when asked to.
pub fn compare(path: &Path, actual: &str) -> Option<String> {
    let expected = std::fs::read_to_string(path).ok();
    if expected.as_deref() == Some(actual) {
        return None;
    }
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return None;
    }
    Some(match expected {
        None => format!(
            "{} does not exist; {BLESS}=1 writes it with what the test got:\n{actual}",
            path.display()
        ),
        Some(expected) => format!(
            "{} is not what the test got ({BLESS}=1 rewrites it):\n{}",
            path.display(),
            similar::TextDiff::from_lines(&expected, actual)
                .unified_diff()
                .header("expected", "actual")
        ),
    })
}

/// A line on stderr past the test harness's capture (which takes `println!` and
/// `eprintln!`), so that a run's log shows it.
pub fn say(line: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
}

/// How many of kube-apiserver's cases (`what`) agree, printed as `what: N of M agree`;
/// the others pinned in `path`, a JSON object of each one's id and why it disagrees.
pub fn disagreements<'a>(
    what: &str,
    verdicts: impl IntoIterator<Item = (&'a String, &'a Result<(), String>)>,
    path: &Path,
) {
    let mut total = 0;
    let mut disagreeing = std::collections::BTreeMap::new();
    for (id, verdict) in verdicts {
        total += 1;
        if let Err(why) = verdict {
            disagreeing.insert(id, why);
        }
    }
    say(&format!(
        "{what}: {} of {total} agree",
        total - disagreeing.len()
    ));
    let mut listed = serde_json::to_string_pretty(&disagreeing).unwrap();
    listed.push('\n');
    file(path, &listed);
}
