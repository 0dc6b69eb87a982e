//! One `generate-groups` run, as the command line (and the benchmark) makes it: read
//! the input; stop there when the stamp shows the outputs as this input generates them;
//! otherwise generate, then write what changed or, with `--verify-only`, report it.

use crate::options::Options;

mod compat_check;
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
        /// The crdgen the files that differ name in their header, when it is not this
        /// one (`Some("")`: one from before headers named it): an upgrade to regenerate.
        generated_by: Option<String>,
    },
}

/// A run's outcome and its warnings.
#[derive(Debug)]
pub struct Report {
    /// What it found or did.
    pub outcome: Outcome,
    /// Rendered warnings of the generation, if it ran.
    pub warnings: String,
    /// The compatibility check's report, when the run was asked for one.
    pub compat: Option<CompatReport>,
}

/// What the compatibility check beside a run found: see [`CompatCheck`].
#[derive(Debug)]
pub struct CompatReport {
    /// The findings, rendered as asked.
    pub rendered: String,
    /// How many break users (errors, not accepted): the run fails when any do.
    pub errors: usize,
}

/// A compatibility check beside a run (`--compat`): the CRDs the run writes against
/// those under the same directory at a git revision, or in another directory.
#[derive(Clone, Debug)]
pub struct CompatCheck {
    /// A git revision (`main`, `v1.2.0`), or an existing directory of CRD files.
    pub against: String,
    /// The check's configuration file, if the project has one (`crdgen-compat.yaml`).
    pub config: Option<std::path::PathBuf>,
    /// JSON rather than diagnostics.
    pub json: bool,
}

/// `crdgen generate-groups` with `opts`: what it found or did, or why it failed,
/// rendered for a person.
pub fn generate_groups(opts: &Options, mode: Mode) -> Result<Report, Error> {
    generate_groups_deferred(opts, mode, None, None)
}

/// [`generate_groups`] with a compatibility check of the CRDs it writes.
pub fn generate_groups_checked(
    opts: &Options,
    mode: Mode,
    check: &CompatCheck,
) -> Result<Report, Error> {
    generate_groups_deferred(opts, mode, None, Some(check))
}

/// Settles the Kubernetes version of a run that was not given one (the command line
/// without `--kube-version` asks cargo which k8s-openapi the crate builds): run only
/// when the run has to generate, as `fingerprint`, of what decides the version, stands
/// for it in the stamp's key.
pub(crate) struct Deferred<'a> {
    pub fingerprint: u64,
    pub settle: Settle<'a>,
}

/// Sets the Kubernetes version of the options, or says why it cannot.
pub(crate) type Settle<'a> = Box<dyn FnOnce(&mut Options) -> Result<(), String> + 'a>;

/// [`generate_groups`], with the Kubernetes version settled late when `deferred` says how.
pub(crate) fn generate_groups_deferred(
    opts: &Options,
    mode: Mode,
    deferred: Option<Deferred<'_>>,
    check: Option<&CompatCheck>,
) -> Result<Report, Error> {
    // The check is set up first: the git it asks works while the sources are read.
    let mut against = match check {
        Some(check) => Some(
            compat_check::Against::read(check, opts)
                .map_err(|d| Error::diagnostics(vec![d], &Default::default()))?,
        ),
        None => None,
    };
    let input = pipeline::read(opts)?;
    let base = &opts.output_base;
    // The output base stays locked from the stamp check to the last write, so that
    // no other run changes the outputs in between.
    let _lock = sink::lock(base).map_err(|d| Error::diagnostics(vec![d], &input.sources))?;
    let fingerprint = deferred.as_ref().map(|d| d.fingerprint);
    let key = stamp::key(&(opts, &input.header, &input.discovered, fingerprint));
    if let Some(files) = key.and_then(|key| stamp::current(base, &opts.owned_dirs(), key)) {
        // The CRDs on disk are the ones the run would write: the model of the groups
        // with findings alone places them in the source.
        let compat = match &mut against {
            Some(against) => Some(against.on_disk(opts, input)?),
            None => None,
        };
        return Ok(Report {
            outcome: Outcome::Current { files },
            warnings: String::new(),
            compat,
        });
    }
    let mut settled;
    let opts = match deferred {
        Some(deferred) => {
            settled = opts.clone();
            (deferred.settle)(&mut settled).map_err(Error::Usage)?;
            &settled
        }
        None => opts,
    };
    let generation = pipeline::on_big_stack(|| pipeline::from_input(opts, input))??;
    let warnings = generation.render_warnings();
    let compat = match &mut against {
        Some(against) => Some(
            against
                .generated(&generation, opts)
                .map_err(|d| Error::diagnostics(vec![d], &generation.sources))?,
        ),
        None => None,
    };
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
            generated_by: sink::generated_by(&plan),
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
    Ok(Report {
        outcome,
        warnings,
        compat,
    })
}
