//! One crdgen run at a time per output base: two runs into one tree would each see the
//! other's half-done work (and its temporary files) as changes to make.

use std::path::Path;

use crate::diag::{Code, Diagnostic};

/// Held while a run plans and writes; released when dropped (or when the process ends,
/// however it ends: the kernel drops the lock with the file descriptor).
#[derive(Debug)]
pub struct Lock {
    _dir: std::fs::File,
}

/// Takes an exclusive advisory lock (`flock`) on the output base directory itself, so
/// no lock file is ever left behind; a second run waits for the first.
pub fn lock(base: &Path) -> Result<Lock, Diagnostic> {
    let fail = |e: std::io::Error| {
        Diagnostic::error(
            Code::Io,
            format!("cannot lock the output base `{}`: {e}", base.display()),
        )
        .at_path(base.display().to_string())
        .hint("--output-base must be an existing directory crdgen can open")
    };
    let dir = std::fs::File::open(base).map_err(fail)?;
    dir.lock().map_err(fail)?;
    Ok(Lock { _dir: dir })
}
