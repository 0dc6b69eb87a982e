//! Expected output as plain files beside each case's input (prost-build's
//! `fixtures/<case>/_expected_*`, typify's `*.stderr`): a case's expected files are
//! what crdgen writes, byte for byte, so a change shows in `git diff` as a change to
//! the output itself. `CRDGEN_BLESS=1 cargo test --test fixtures` rewrites them;
//! review the diff before committing it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::bless::{BLESS, blessing, compare};

/// Under `root`, the directories `owned` hold exactly `files` (by path relative to
/// `root`): none differs, none is missing, none is left over (but the stamp of an
/// earlier run, a cache every generated directory may hold). With `CRDGEN_BLESS=1`,
/// they are made to.
pub fn tree(root: &Path, owned: &[PathBuf], files: &BTreeMap<PathBuf, String>) {
    let mut problems: Vec<String> = files
        .iter()
        .filter_map(|(path, text)| compare(&root.join(path), text))
        .collect();
    for dir in owned {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let Ok(entry) = entry else { continue };
            let rel = entry.path().strip_prefix(root).unwrap();
            let stamp = entry.file_name() == crdgen::STAMP_FILE;
            if entry.file_type().is_file() && !files.contains_key(rel) && !stamp {
                if blessing() {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    problems.push(format!(
                        "{} is expected, and not generated ({BLESS}=1 removes it)",
                        entry.path().display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
