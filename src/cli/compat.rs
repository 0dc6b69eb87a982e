//! `crdgen compat`: the command line of [`crate::compat`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::compat::{self, Config, Format, Report, Texts};
use crate::diag::{Diagnostic, Diagnostics, Sources};

/// Compare CRDs as released with CRDs as they are now, and report every change that
/// would break a user (crdify's check, with crdgen's rules).
#[derive(Args)]
#[command(
    after_help = "Examples:\n  crdgen compat old/ config/crd/bases/\n  crdgen compat --since main config/crd/bases\n  crdgen generate-groups all pkg/client pkg/apis shop:v1 --verify-only --compat main\n\nExit status: 0 when nothing breaks (warnings allowed), 1 when something does or an input is unusable, 2 on a usage error. `crdgen explain E0033` says what a rule checks."
)]
pub struct Compat {
    /// OLD and NEW, CRD files or directories of them; with --since, the files or
    /// directories to compare with themselves at that revision.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,

    /// Compare PATHs as they are with PATHs as this git revision (a branch, a tag, a
    /// commit) holds them.
    #[arg(long, value_name = "REVISION")]
    since: Option<String>,

    /// How to write the findings.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,

    /// Compare the CRDs of PATHs with the ones of the same names on the cluster kubectl
    /// would talk to (theirs are OLD, with their `status.storedVersions`).
    #[arg(long, conflicts_with = "since")]
    from_cluster: bool,

    /// The kubeconfig context --from-cluster reads through [default: the current one].
    #[arg(long, value_name = "CONTEXT", requires = "from_cluster")]
    context: Option<String>,

    /// The rules' levels and the accepted findings [default: ./crdgen-compat.yaml, when
    /// there is one].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

pub fn run(args: &Compat) -> ExitCode {
    let failed = |errors: Vec<Diagnostic>, sources: &Sources| {
        for e in errors {
            eprint!("{}", e.render(sources));
        }
        ExitCode::FAILURE
    };
    let (old, new) = match sides(args) {
        Ok(sides) => sides,
        Err(Failure::Usage(usage)) => {
            eprintln!("error: {usage}");
            return ExitCode::from(super::USAGE_ERROR);
        }
        Err(Failure::Input(errors)) => return failed(errors, &Sources::default()),
    };
    let config = match Config::find(args.config.as_deref(), Path::new("")) {
        Ok(config) => config,
        Err(e) => return failed(vec![e], &Sources::default()),
    };
    let mut sources = Sources::default();
    for (name, text) in old.iter().chain(&new) {
        sources.insert(name.clone(), text.clone());
    }
    let mut diags = Diagnostics::default();
    let findings = compat::compare(&old, &new, &mut diags);
    if diags.has_errors() {
        return failed(diags.into_sorted(), &sources);
    }
    let report = Report::new(findings, &config);
    let rendered = report.render(args.format, &sources);
    match args.format {
        Format::Json => print!("{rendered}"),
        Format::Text => eprint!("{rendered}"),
    }
    if report.errors() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Why the two sides are not there to compare.
enum Failure {
    Usage(String),
    Input(Vec<Diagnostic>),
}

impl From<Diagnostic> for Failure {
    fn from(d: Diagnostic) -> Self {
        Failure::Input(vec![d])
    }
}

/// OLD and NEW as texts.
fn sides(args: &Compat) -> Result<(Texts, Texts), Failure> {
    let all = |paths: &[PathBuf]| -> Result<Texts, Failure> {
        let mut texts = Vec::new();
        for path in paths {
            texts.extend(on_disk(path)?);
        }
        Ok(texts)
    };
    match (&args.since, args.paths.as_slice()) {
        (Some(revision), paths) => {
            let mut old = Vec::new();
            for path in paths {
                old.extend(compat::at_revision(Path::new("."), path, revision)?);
            }
            Ok((old, all(paths)?))
        }
        (None, paths) if args.from_cluster => {
            let new = all(paths)?;
            let old = super::import::from_cluster_present(&crd_names(&new), args.context.as_deref())
                .map_err(Failure::Input)?;
            Ok((old, new))
        }
        (None, [old, new]) => Ok((on_disk(old)?, on_disk(new)?)),
        (None, _) => Err(Failure::Usage(
            "give OLD and NEW (two CRD files or directories), --since REVISION and the paths to compare, or --from-cluster and the paths".to_owned(),
        )),
    }
}

/// The names of the CRDs of `texts`, as the cluster names them.
fn crd_names(texts: &Texts) -> Vec<String> {
    let mut found = Vec::new();
    let mut ignored = Diagnostics::default();
    for (name, text) in texts {
        crate::import::read::documents(name, text, &mut found, &mut ignored);
    }
    found
        .iter()
        .map(crate::import::read::Found::crd_name)
        .collect()
}

/// The CRD files of `path`, each named by its path as given.
fn on_disk(path: &Path) -> Result<Texts, Diagnostic> {
    compat::on_disk(path, path, None)
}
