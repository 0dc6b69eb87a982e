//! One `generate-groups` run, as the command line (and the benchmark) makes it: read
//! the input; stop there when the stamp shows the outputs as this input generates them;
//! otherwise generate, then write what changed or, with `--verify-only`, report it.

use crate::options::Options;
use crate::pipeline::{self, Error};
use crate::sink::{self, Written, stamp};

/// What a run does with the generated files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Write what changed.
    Write,
    /// Write nothing; report the files that differ (`--verify-only`).
    Verify,
}

/// What a run found or did.
#[derive(Debug)]
pub enum Outcome {
    /// The files on disk are what the input generates, `files` of them (a verify, or a
    /// run the stamp showed there was nothing to do for).
    Current {
        /// How many files the input generates.
        files: usize,
    },
    /// The files that differed were written, the stale ones removed.
    Written(Written),
    /// `--verify-only` found files that differ: a unified diff of them, and counts.
    Drift {
        /// The unified diff, of every file that differs.
        diff: String,
        /// How many files differ.
        changed: usize,
        /// How many files the input generates.
        total: usize,
    },
}

/// A run's outcome and its warnings.
#[derive(Debug)]
pub struct Report {
    /// What it found or did.
    pub outcome: Outcome,
    /// Rendered warnings of the generation, if it ran.
    pub warnings: String,
}

/// `crdgen generate-groups` with `opts`: what it found or did, or why it failed,
/// rendered for a person.
pub fn generate_groups(opts: &Options, mode: Mode) -> Result<Report, Error> {
    let input = pipeline::read(opts)?;
    let base = &opts.output_base;
    // The output base stays locked from the stamp check to the last write, so that
    // no other run changes the outputs in between.
    let _lock = sink::lock(base).map_err(|d| Error::diagnostics(vec![d], &input.sources))?;
    let key = stamp::key(&(opts, &input.header, &input.discovered));
    if let Some(files) = key.and_then(|key| stamp::current(base, &opts.owned_dirs(), key)) {
        return Ok(Report {
            outcome: Outcome::Current { files },
            warnings: String::new(),
        });
    }
    let generation = pipeline::on_big_stack(|| pipeline::from_input(opts, input))??;
    let warnings = generation.render_warnings();
    let files = generation.into_files(opts)?;
    let plan = files.plan(base)?;
    let outcome = match mode {
        Mode::Verify if plan.changes.is_empty() => Outcome::Current {
            files: plan.unchanged,
        },
        Mode::Verify => Outcome::Drift {
            diff: sink::diff(&plan),
            changed: plan.changes.len(),
            total: plan.changes.len() + plan.unchanged,
        },
        Mode::Write => {
            let written = files.apply(&plan, base)?;
            // A run with warnings is not stamped: the next one shows them again.
            if let Some(key) = key.filter(|_| warnings.is_empty()) {
                stamp::record(base, key, &files.output);
            }
            Outcome::Written(written)
        }
    };
    Ok(Report { outcome, warnings })
}
