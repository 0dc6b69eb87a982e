//! `generate-groups --compat`: the CRDs a run would write, checked against those of a
//! git revision (or a directory) before anyone merges them, with each finding placed
//! at the Rust field or marker that makes it.

use std::path::{Path, PathBuf};

use super::{CompatCheck, CompatReport};
use crate::compat::{self, Config, Format, Report, Texts, rules::CONFIG_FILE};
use crate::diag::{Diagnostic, Diagnostics, Sources};
use crate::options::{Generator, Options};
use crate::pipeline::Generation;

/// The CRDs checked against, and how the check is configured and written.
pub(super) struct Against {
    old: Texts,
    config: Config,
    format: Format,
    /// The run's CRD directory, relative to the output base.
    crd_dir: PathBuf,
}

impl Against {
    /// Reads the old CRDs and the configuration: the check's file, else the output
    /// base's `crdgen-compat.yaml` when there is one.
    pub fn read(check: &CompatCheck, opts: &Options) -> Result<Against, Diagnostic> {
        let base = &opts.output_base;
        let crd_dir = opts
            .manifest_dir(Generator::Crd)
            .unwrap_or_else(|| Generator::Crd.default_dir().into());
        let config_file = check
            .config
            .clone()
            .or_else(|| Some(base.join(CONFIG_FILE)).filter(|p| p.is_file()));
        let config = Config::load(config_file.as_deref())?;
        let dir = base.join(&check.against);
        let old = if dir.is_dir() {
            // Named as the run names its own CRDs, so that files alike are passed over.
            texts(&dir, &crd_dir)?
        } else {
            compat::at_revision(base, &crd_dir, &check.against)?
        };
        Ok(Against {
            old,
            config,
            format: if check.json {
                Format::Json
            } else {
                Format::Text
            },
            crd_dir,
        })
    }

    /// The check of the CRDs on disk, which a current stamp says the run would write:
    /// `None` when it finds anything, which then needs the generation's model to say
    /// where in the source each finding comes from.
    pub fn on_disk(&self, opts: &Options) -> Result<Option<CompatReport>, Diagnostic> {
        let new = texts(&opts.output_base.join(&self.crd_dir), &self.crd_dir)?;
        let mut diags = Diagnostics::default();
        let findings = compat::compare(&self.old, &new, &mut diags);
        if !findings.is_empty() || diags.has_errors() {
            return Ok(None);
        }
        Ok(Some(self.report(findings, diags, &Sources::default())))
    }

    /// The check of the CRDs `generation` makes.
    pub fn generated(&self, generation: &Generation) -> CompatReport {
        let new: Texts = generation
            .manifests
            .get(&Generator::Crd)
            .into_iter()
            .flatten()
            .map(|(name, body)| {
                (
                    shown(&self.crd_dir.join(name)),
                    generation.header.yaml_file(body),
                )
            })
            .collect();
        let mut diags = Diagnostics::default();
        let mut findings = compat::compare(&self.old, &new, &mut diags);
        compat::locate(&generation.model, &mut findings);
        let mut sources = generation.sources.clone();
        for (name, text) in self.old.iter().chain(&new) {
            if sources.get(name).is_none() {
                sources.insert(name.clone(), text.clone());
            }
        }
        self.report(findings, diags, &sources)
    }

    /// The findings at their levels; CRDs that did not read (`diags`) ahead of them.
    fn report(
        &self,
        findings: Vec<compat::Finding>,
        diags: Diagnostics,
        sources: &Sources,
    ) -> CompatReport {
        let report = Report::new(findings, &self.config);
        let unread = diags.error_count();
        let mut rendered: String = diags
            .into_sorted()
            .iter()
            .map(|d| d.render(sources))
            .collect();
        rendered.push_str(&report.render(self.format, sources));
        CompatReport {
            rendered,
            errors: report.errors() + unread,
        }
    }
}

/// The CRD files under `dir` (on disk), each named `named_as/<its path below dir>`.
fn texts(dir: &Path, named_as: &Path) -> Result<Texts, Diagnostic> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut diags = Diagnostics::default();
    let mut out = Vec::new();
    for file in crate::import::read::files(dir, &mut diags) {
        let name = shown(&named_as.join(file.strip_prefix(dir).unwrap_or(&file)));
        let text =
            crate::source::read_text(&file, crate::import::read::MAX_INPUT_BYTES).map_err(|e| {
                Diagnostic::error(
                    e.code(crate::diag::Code::Io),
                    format!("cannot read `{name}`: {e}"),
                )
                .at_path(&name)
            })?;
        out.push((name, text));
    }
    Ok(out)
}

/// A path as git and diagnostics write it, with `/`.
fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}
