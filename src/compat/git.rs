//! The CRD files of a directory as a git revision holds them (`--since main`): listed
//! with `git ls-tree` and read through one `git cat-file --batch`, so that a thousand
//! files cost two processes.

use std::collections::BTreeSet;
use std::io::{BufRead as _, Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

use super::Texts;
use crate::diag::{Code, Diagnostic};

/// What went wrong reading `dir` at `revision`.
fn failed(dir: &Path, revision: &str, what: String) -> Diagnostic {
    Diagnostic::error(Code::Io, format!("cannot read `{}` at `{revision}`: {what}", dir.display()))
        .at_path(dir.display().to_string())
        .hint("--since and --compat take a git revision (a branch, a tag, a commit) of the repository the output is in, or a directory")
}

/// `git ARGS -- dir` in `base`: the NUL-separated names it prints (YAML and JSON ones).
fn names(
    base: &Path,
    dir: &Path,
    revision: &str,
    args: &[&str],
) -> Result<Vec<String>, Diagnostic> {
    // A directory's path with `/`, so that git takes it as one; a file's as it is.
    let path = match base.join(dir).is_file() {
        true => dir.display().to_string(),
        false => format!("{}/", dir.display()),
    };
    let listed = Command::new("git")
        .current_dir(base)
        .args(args)
        .args(["--", &path])
        .output()
        .map_err(|e| failed(dir, revision, format!("git: {e}")))?;
    if !listed.status.success() {
        return Err(failed(
            dir,
            revision,
            String::from_utf8_lossy(&listed.stderr).trim().to_owned(),
        ));
    }
    Ok(listed
        .stdout
        .split(|b| *b == 0)
        .filter_map(|name| std::str::from_utf8(name).ok())
        .filter(|name| {
            [".yaml", ".yml", ".json"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .map(str::to_owned)
        .collect())
}

/// The files under `dir` that differ between `revision` and the work tree, from git's
/// index and file times, without reading what is alike. Untracked files are not
/// among them: a CRD in one is new (it breaks nothing), unless it moved there from a
/// file git does list, which the caller finds as a CRD gone from the files that differ.
pub fn changed(base: &Path, dir: &Path, revision: &str) -> Result<BTreeSet<String>, Diagnostic> {
    let diff = ["diff", "--no-renames", "--name-only", "-z", revision];
    Ok(names(base, dir, revision, &diff)?.into_iter().collect())
}

/// The `.yaml`, `.yml` and `.json` files under `dir` (relative to `base`, a directory
/// of a git work tree) at `revision` (those of `only`, when given), each named `dir/…`
/// as the work tree's are. A revision without the directory has none.
pub fn at_revision(
    base: &Path,
    dir: &Path,
    revision: &str,
    only: Option<&BTreeSet<String>>,
) -> Result<Texts, Diagnostic> {
    let failed = |what: String| failed(dir, revision, what);
    if only.is_some_and(BTreeSet::is_empty) {
        return Ok(Vec::new());
    }
    let mut names = names(
        base,
        dir,
        revision,
        &["ls-tree", "-r", "-z", "--name-only", revision],
    )?;
    if let Some(only) = only {
        names.retain(|name| only.contains(name));
    }
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = Command::new("git")
        .current_dir(base)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| failed(format!("git: {e}")))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| failed("no pipe to git".to_owned()))?;
    let request: String = names
        .iter()
        .map(|n| format!("{revision}:./{n}\n"))
        .collect();
    // Written from a thread: git answers as it reads, and a full pipe would stop both.
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let mut stdout = std::io::BufReader::new(
        child
            .stdout
            .take()
            .ok_or_else(|| failed("no pipe from git".to_owned()))?,
    );
    let mut texts = Vec::with_capacity(names.len());
    for name in names {
        let mut header = String::new();
        stdout
            .read_line(&mut header)
            .map_err(|e| failed(e.to_string()))?;
        // `<object> blob <size>`, or `<name> missing`.
        let size = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or_else(|| failed(format!("git cannot read `{name}`: {}", header.trim())))?;
        let mut body = vec![0; size + 1];
        stdout
            .read_exact(&mut body)
            .map_err(|e| failed(e.to_string()))?;
        body.pop();
        let text = String::from_utf8(body).map_err(|_| failed(format!("`{name}` is not UTF-8")))?;
        texts.push((name, text));
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(texts)
}
