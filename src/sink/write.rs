//! Applies a plan so that a failed run changes nothing. New files are written in place;
//! every update is first written beside its target, and only when all of them are on
//! disk are they renamed into place. A step that fails undoes what went before, from the
//! old texts the plan holds. New files take the umask's mode; a rewritten file keeps
//! its own.

use std::collections::HashSet;
use std::fs::Permissions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{Change, Plan, Written};
use crate::diag::{Code, Diagnostic};
use crate::source::display_path;

/// What a write changed, to undo it when a later step fails (`crdgen create api`
/// undoes its scaffolding when the generation after it fails).
#[derive(Debug)]
pub struct Journal {
    base: PathBuf,
    undo: Vec<Undo>,
}

#[derive(Debug)]
enum Undo {
    /// A file the run created.
    Remove(PathBuf),
    /// A file the run replaced or removed, with its old text and mode.
    Restore {
        path: PathBuf,
        text: String,
        permissions: Permissions,
    },
    /// A directory the run created.
    RemoveDir(PathBuf),
}

/// An update's new text written beside its target, not yet in place.
struct Staged<'a> {
    rel: &'a Path,
    temp: tempfile::NamedTempFile,
    /// The replaced file's text and mode.
    old: (&'a str, Permissions),
}

/// Applies `plan` under `base`. On an error nothing has changed, and the diagnostic
/// names the file and why.
pub fn write(
    plan: &Plan,
    base: &Path,
    owned_dirs: &[PathBuf],
) -> Result<(Written, Journal), Diagnostic> {
    let mut journal = Journal {
        base: base.to_owned(),
        undo: Vec::new(),
    };
    let mut out = Written {
        unchanged: plan.unchanged,
        ..Written::default()
    };
    // New files are written in place: nothing was there to keep, and undoing removes
    // them (one file system operation instead of two, on a first run). Their
    // directories are made first, in order; then the files, on every core.
    let creates: Vec<(&Path, &str)> = plan
        .changes
        .iter()
        .filter_map(|(rel, change)| match change {
            Change::Create { new } => Some((rel.as_path(), new.as_ref())),
            _ => None,
        })
        .collect();
    let mut made_dirs = HashSet::new();
    for (rel, _) in &creates {
        if let Err(e) = create_dirs(base, rel, &mut made_dirs, &mut journal) {
            return Err(journal.fail(rel, e));
        }
    }
    let created = crate::parallel::map_light(&creates, |(rel, new)| create(&base.join(rel), new));
    let mut failed = None;
    for ((rel, _), (opened, result)) in creates.iter().zip(created) {
        if opened {
            journal.undo.push(Undo::Remove(base.join(rel)));
        }
        match result {
            Ok(()) => out.written += 1,
            Err(e) => {
                failed.get_or_insert((*rel, e));
            }
        }
    }
    if let Some((rel, e)) = failed {
        return Err(journal.fail(rel, e));
    }
    let mut staged = Vec::new();
    for (rel, change) in &plan.changes {
        let Change::Update { old, new } = change else {
            continue;
        };
        match stage(base, rel, new, old) {
            Ok(s) => staged.push(s),
            Err(e) => return Err(journal.fail(rel, e)),
        }
    }
    for Staged { rel, temp, old } in staged {
        let full = base.join(rel);
        if let Err(e) = temp.persist(&full) {
            return Err(journal.fail(rel, e.error));
        }
        let (text, permissions) = old;
        journal.undo.push(Undo::Restore {
            path: full,
            text: text.to_owned(),
            permissions,
        });
        out.written += 1;
    }
    for (rel, change) in &plan.changes {
        let Change::Remove { old } = change else {
            continue;
        };
        let full = base.join(rel);
        let removed = std::fs::metadata(&full)
            .and_then(|meta| std::fs::remove_file(&full).map(|()| meta.permissions()));
        match removed {
            Ok(permissions) => journal.undo.push(Undo::Restore {
                path: full.clone(),
                text: old.clone(),
                permissions,
            }),
            Err(e) => return Err(journal.fail(rel, e)),
        }
        out.removed += 1;
        remove_empty_dirs(&full, base, owned_dirs);
    }
    Ok((out, journal))
}

/// Creates (and journals) the directories missing on the way to `rel`; `made` holds
/// those already seen to exist, so that each is looked at once.
fn create_dirs(
    base: &Path,
    rel: &Path,
    made: &mut HashSet<PathBuf>,
    journal: &mut Journal,
) -> std::io::Result<()> {
    let full = base.join(rel);
    let dir = full.parent().unwrap_or(base);
    if made.contains(dir) {
        return Ok(());
    }
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
    for d in missing.into_iter().rev() {
        std::fs::create_dir(d)?;
        journal.undo.push(Undo::RemoveDir(d.to_owned()));
    }
    made.insert(dir.to_owned());
    Ok(())
}

/// Writes a new file at `full`, with the mode a new file gets (0666 less the umask).
/// Says whether the file was made: then it must be removed on undo, even when writing
/// its text failed half-way.
fn create(full: &Path, new: &str) -> (bool, std::io::Result<()>) {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
    match options.open(full) {
        Ok(mut file) => (true, file.write_all(new.as_bytes())),
        Err(e) => (false, Err(e)),
    }
}

/// Writes an update's `new` text beside `rel`'s target, with the target's mode.
fn stage<'a>(base: &Path, rel: &'a Path, new: &str, old: &'a str) -> std::io::Result<Staged<'a>> {
    let full = base.join(rel);
    let permissions = std::fs::metadata(&full)?.permissions();
    let temp = beside(&full, new, permissions.clone())?;
    Ok(Staged {
        rel,
        temp,
        old: (old, permissions),
    })
}

/// A temporary file beside the target, created with the mode a new file gets (0666
/// less the umask) rather than tempfile's private 0600.
pub(super) fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".crdgen-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Removes the directories a pruned file leaves empty, up to its output directory.
fn remove_empty_dirs(file: &Path, base: &Path, owned_dirs: &[PathBuf]) {
    let Some(owned) = owned_dirs
        .iter()
        .map(|d| base.join(d))
        .find(|d| file.starts_with(d))
    else {
        return;
    };
    for dir in file
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(&owned) && *d != owned)
    {
        // Fails, harmlessly, on the first directory that still holds files.
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

impl Journal {
    /// Puts back everything the write changed, newest first.
    pub fn undo(self) -> Result<(), Diagnostic> {
        let base = self.base.clone();
        let mut first_error = None;
        for step in self.undo.into_iter().rev() {
            let (path, result) = match step {
                Undo::Remove(path) => {
                    let r = std::fs::remove_file(&path);
                    (path, r)
                }
                Undo::RemoveDir(path) => {
                    let r = std::fs::remove_dir(&path);
                    (path, r)
                }
                Undo::Restore {
                    path,
                    text,
                    permissions,
                } => {
                    let r = restore(&path, &text, permissions);
                    (path, r)
                }
            };
            if let Err(e) = result {
                first_error.get_or_insert((path, e));
            }
        }
        match first_error {
            None => Ok(()),
            Some((path, e)) => {
                let shown = display_path(&base, &path);
                Err(Diagnostic::error(Code::Io, format!("cannot restore `{shown}`: {e}"))
                    .at_path(shown)
                    .hint("crdgen could not undo part of a failed run; `git status` shows what changed"))
            }
        }
    }

    /// Undoes the run after `rel` failed with `e`, and says so.
    fn fail(self, rel: &Path, e: std::io::Error) -> Diagnostic {
        let shown = display_path(&self.base, &self.base.join(rel));
        let message = format!("cannot write `{shown}`: {e}");
        match self.undo() {
            Ok(()) => Diagnostic::error(Code::Io, message)
                .at_path(shown)
                .hint("nothing was changed; check the permissions and attributes of the file and its directory (an immutable file cannot be replaced)"),
            Err(undo) => Diagnostic::error(Code::Io, format!("{message}; and {}", undo.message))
                .at_path(shown)
                .hint("part of the run could not be undone; `git status` shows what changed"),
        }
    }
}

fn restore(path: &Path, text: &str, permissions: Permissions) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    beside(path, text, permissions)?
        .persist(path)
        .map_err(|e| e.error)?;
    Ok(())
}

/// `text` in a temporary file beside `path`, with `permissions`, ready to be renamed
/// over it.
fn beside(
    path: &Path,
    text: &str,
    permissions: Permissions,
) -> std::io::Result<tempfile::NamedTempFile> {
    let mut temp = temp_in(path.parent().unwrap_or(Path::new(".")))?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().set_permissions(permissions)?;
    Ok(temp)
}
