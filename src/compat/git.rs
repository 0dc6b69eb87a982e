//! The CRD files of a directory as a git revision holds them (`--since main`): listed
//! with `git ls-tree` (or named by the caller) and read through one `git cat-file
//! --batch`, so that a thousand files cost two processes at most.

use std::collections::BTreeSet;
use std::io::{BufRead as _, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::Texts;
use crate::diag::{Code, Diagnostic};

/// What went wrong reading `dir` at `revision`.
fn failed(dir: &Path, revision: &str, what: String) -> Diagnostic {
    Diagnostic::error(Code::Io, format!("cannot read `{}` at `{revision}`: {what}", dir.display()))
        .at_path(dir.display().to_string())
        .hint("--since and --compat take a git revision (a branch, a tag, a commit) of the repository the output is in, or a directory")
}

/// `git ARGS -- dir` in `base`, started: [`listed`] reads its answer.
fn start(base: &Path, dir: &Path, revision: &str, args: &[&str]) -> Result<Child, Diagnostic> {
    // A directory's path with `/`, so that git takes it as one; a file's as it is.
    let path = match base.join(dir).is_file() {
        true => dir.display().to_string(),
        false => format!("{}/", dir.display()),
    };
    Command::new("git")
        .current_dir(base)
        .args(args)
        .args(["--", &path])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(dir, revision, format!("git: {e}")))
}

/// The NUL-separated names a git command of [`start`] printed (YAML and JSON ones),
/// each after `skip` bytes (`git status` prints `XY ` before each).
fn listed(git: Child, dir: &Path, revision: &str, skip: usize) -> Result<Vec<String>, Diagnostic> {
    let listed = git
        .wait_with_output()
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
        .filter_map(|name| std::str::from_utf8(name.get(skip..)?).ok())
        .filter(|name| {
            [".yaml", ".yml", ".json"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .map(str::to_owned)
        .collect())
}

/// The files under `dir` that differ between a revision and the work tree, from git's
/// index and file times, without reading what is alike. Untracked files are not
/// among them: a CRD in one is new (it breaks nothing), unless it moved there from a
/// file git does list, which the caller finds as a CRD gone from the files that differ.
///
/// git is asked at once, and a reader of the revision's files started beside it: both
/// work while the run checks its stamp or generates (a git process costs about as much
/// as a drift check that finds its stamp current). [`Changed::files`] waits for the
/// answer.
///
/// The work tree is compared with HEAD by `git status`, and HEAD with another revision
/// tree to tree: `git diff REVISION` compares the revision's whole tree with the work
/// tree, three times as long as both (12 ms against 4 in a tree of 6,000 files), time
/// taken from the run on a machine of two cores. Their names together are a superset of
/// its: a file changed and changed back is read and found alike.
pub struct Changed {
    /// Started from a thread of its own: starting a process costs the run's thread
    /// milliseconds too.
    started: std::thread::JoinHandle<Result<Started, Diagnostic>>,
}

/// The git processes [`Changed::ask`] starts: `git status`, `git diff REVISION HEAD`
/// unless the revision is HEAD, and the reader.
type Started = (Child, Option<Child>, Reader);

impl Changed {
    /// Asks git which files under `dir` differ from `revision`.
    pub fn ask(base: &Path, dir: &Path, revision: &str) -> Changed {
        let (base, dir, revision) = (base.to_owned(), dir.to_owned(), revision.to_owned());
        Changed {
            started: std::thread::spawn(move || {
                // Without the optional lock, status leaves the index as it is.
                let status = [
                    "--no-optional-locks",
                    "status",
                    "--porcelain",
                    "-z",
                    "--untracked-files=no",
                    "--no-renames",
                ];
                let status = start(&base, &dir, &revision, &status)?;
                let trees = [
                    "diff",
                    "--no-renames",
                    "--name-only",
                    "-z",
                    &revision,
                    "HEAD",
                ];
                let trees = match revision.as_str() {
                    "HEAD" => None,
                    _ => Some(start(&base, &dir, &revision, &trees)?),
                };
                Ok((status, trees, Reader::start(&base, &dir, &revision)?))
            }),
        }
    }

    /// git's answer, and the reader of the revision's files.
    pub fn files(self) -> Result<(BTreeSet<String>, Reader), Diagnostic> {
        let (status, trees, reader) = self
            .started
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let (dir, revision) = (&reader.dir, &reader.revision);
        let mut files: BTreeSet<String> = listed(status, dir, revision, 3)?.into_iter().collect();
        if let Some(trees) = trees {
            files.extend(listed(trees, dir, revision, 0)?);
        }
        Ok((files, reader))
    }
}

/// The `.yaml`, `.yml` and `.json` files under `dir` (relative to `base`, a directory
/// of a git work tree) at `revision`, each named `dir/…` as the work tree's are. A
/// revision without the directory has none.
pub fn at_revision(base: &Path, dir: &Path, revision: &str) -> Result<Texts, Diagnostic> {
    let ls_tree = ["ls-tree", "-r", "-z", "--name-only", revision];
    let names = listed(start(base, dir, revision, &ls_tree)?, dir, revision, 0)?;
    Reader::start(base, dir, revision)?.read(&names, false)
}

/// A `git cat-file --batch`, started, that reads files of a revision by name.
pub struct Reader {
    git: Child,
    dir: PathBuf,
    revision: String,
}

impl Reader {
    fn start(base: &Path, dir: &Path, revision: &str) -> Result<Reader, Diagnostic> {
        let git = Command::new("git")
            .current_dir(base)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed(dir, revision, format!("git: {e}")))?;
        Ok(Reader {
            git,
            dir: dir.to_owned(),
            revision: revision.to_owned(),
        })
    }

    /// The files of `names` (paths in the work tree) at the revision, by name; with
    /// `only_those_it_has`, a name the revision lacks is passed over, else refused.
    pub fn read(mut self, names: &[String], only_those_it_has: bool) -> Result<Texts, Diagnostic> {
        let failed = |what: String| failed(&self.dir, &self.revision, what);
        let mut stdin = self
            .git
            .stdin
            .take()
            .ok_or_else(|| failed("no pipe to git".to_owned()))?;
        let request: String = names
            .iter()
            .map(|n| format!("{}:./{n}\n", self.revision))
            .collect();
        // Written from a thread: git answers as it reads, and a full pipe would stop both.
        let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
        let mut stdout = std::io::BufReader::new(
            self.git
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
            if only_those_it_has && header.trim_end().ends_with(" missing") {
                continue;
            }
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
            let text =
                String::from_utf8(body).map_err(|_| failed(format!("`{name}` is not UTF-8")))?;
            texts.push((name.clone(), text));
        }
        let _ = writer.join();
        Ok(texts)
    }
}

impl Drop for Reader {
    /// Ends git's input (when nothing was read, it was never taken) and waits for it.
    fn drop(&mut self) {
        drop(self.git.stdin.take());
        let _ = self.git.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
    }

    /// Against HEAD, what the work tree and the index change; against an older
    /// revision, what the commits since changed too. Untracked files are none of them.
    #[test]
    fn the_files_that_differ_are_the_work_tree_s_and_the_commits_since() {
        let repo = tempfile::tempdir().unwrap();
        let base = repo.path();
        let write = |name: &str, text: &str| {
            std::fs::write(base.join("crds").join(name), text).unwrap();
        };
        std::fs::create_dir_all(base.join("crds")).unwrap();
        for name in ["committed.yaml", "staged.yaml", "edited.yaml", "same.yaml"] {
            write(name, "a: 1\n");
        }
        git(base, &["init", "-q"]);
        git(base, &["add", "-A"]);
        git(base, &["commit", "-qm", "first"]);
        write("committed.yaml", "a: 2\n");
        git(base, &["commit", "-qam", "second"]);
        write("staged.yaml", "a: 2\n");
        git(base, &["add", "crds/staged.yaml"]);
        write("edited.yaml", "a: 2\n");
        write("untracked.yaml", "a: 2\n");
        let files = |revision: &str| -> Vec<String> {
            let (files, _reader) = Changed::ask(base, Path::new("crds"), revision)
                .files()
                .unwrap();
            files.into_iter().collect()
        };
        assert_eq!(files("HEAD"), ["crds/edited.yaml", "crds/staged.yaml"]);
        assert_eq!(
            files("HEAD~1"),
            [
                "crds/committed.yaml",
                "crds/edited.yaml",
                "crds/staged.yaml"
            ]
        );
    }
}
