//! `crdgen compat`: the command line of [`crate::compat`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::compat::{self, Config, Format, Report, Texts, rules::CONFIG_FILE};
use crate::diag::{Code, Diagnostic, Diagnostics, Sources};

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
        Err(usage) => {
            eprintln!("error: {usage}");
            return ExitCode::from(super::USAGE_ERROR);
        }
    };
    let (old, new) = match (old, new) {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            let errors = [old.err(), new.err()].into_iter().flatten().collect();
            return failed(errors, &Sources::default());
        }
    };
    let config_file = args
        .config
        .clone()
        .or_else(|| Some(PathBuf::from(CONFIG_FILE)).filter(|p| p.is_file()));
    let config = match Config::load(config_file.as_deref()) {
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

type Side = Result<Texts, Diagnostic>;

/// OLD and NEW as texts, or a usage error.
fn sides(args: &Compat) -> Result<(Side, Side), String> {
    match (&args.since, args.paths.as_slice()) {
        (Some(revision), paths) => {
            let mut old = Vec::new();
            let mut new = Vec::new();
            for path in paths {
                match compat::at_revision(Path::new("."), path, revision, None) {
                    Ok(texts) => old.extend(texts),
                    Err(e) => return Ok((Err(e), Ok(Vec::new()))),
                }
                match on_disk(path) {
                    Ok(texts) => new.extend(texts),
                    Err(e) => return Ok((Ok(old), Err(e))),
                }
            }
            Ok((Ok(old), Ok(new)))
        }
        (None, [old, new]) => Ok((on_disk(old), on_disk(new))),
        (None, _) => Err(
            "give OLD and NEW (two CRD files or directories), or --since REVISION and the paths to compare".to_owned(),
        ),
    }
}

/// The CRD files of `path` (a file, or a directory's YAML and JSON files), each named
/// by its path as given.
fn on_disk(path: &Path) -> Side {
    let mut diags = Diagnostics::default();
    let files = crate::import::read::files(path, &mut diags);
    if let Some(e) = diags.into_sorted().into_iter().next() {
        return Err(e);
    }
    files
        .into_iter()
        .map(|file| {
            let name = file.to_string_lossy().replace('\\', "/");
            crate::source::read_text(&file, crate::import::read::MAX_INPUT_BYTES)
                .map(|text| (name.clone(), text))
                .map_err(|e| {
                    Diagnostic::error(e.code(Code::Io), format!("cannot read `{name}`: {e}"))
                        .at_path(&name)
                        .hint("crdgen compat reads UTF-8 YAML or JSON CRD files")
                })
        })
        .collect()
}
