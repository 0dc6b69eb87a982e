//! `generate-groups --compat`: the CRDs a run would write, checked against those of a
//! git revision (or a directory) before anyone merges them, with each finding placed
//! at the Rust field or marker that makes it.

use std::path::{Path, PathBuf};

use super::{CompatCheck, CompatReport};
use std::collections::BTreeSet;

use crate::compat::{self, Config, Finding, Format, Report, Texts, rules::CONFIG_FILE};
use crate::diag::{Code, Diagnostic, Diagnostics, Sources};
use crate::model::Model;
use crate::options::{Generator, Options};
use crate::pipeline::{Error, Generation};

/// The CRDs checked against, and how the check is configured and written.
pub(super) struct Against {
    old: Old,
    config: Config,
    format: Format,
    /// The run's CRD directory, relative to the output base.
    crd_dir: PathBuf,
}

/// Where the old CRDs are.
enum Old {
    /// A directory's, read.
    Read(Texts),
    /// A git revision's, read when the check runs, and then only the files git says
    /// differ from the work tree.
    Revision(String),
}

/// The new CRDs: the files on disk, or the ones a generation made (by name).
enum New {
    OnDisk,
    Generated(Texts),
}

impl Against {
    /// Reads the configuration (the check's file, else the output base's
    /// `crdgen-compat.yaml` when there is one), and the old CRDs of a directory.
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
            Old::Read(texts(&dir, &crd_dir, None)?)
        } else {
            Old::Revision(check.against.clone())
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

    /// The check of the CRDs on disk, which a current stamp says the run would write;
    /// `model` is asked for (to place findings in the source) only when there are any.
    pub fn on_disk(
        &self,
        opts: &Options,
        model: impl FnOnce() -> Result<(Model, Sources), Error>,
    ) -> Result<CompatReport, Error> {
        let (findings, diags, texts) = self
            .compare(&opts.output_base, New::OnDisk)
            .map_err(|d| Error::diagnostics(vec![d], &Sources::default()))?;
        if findings.is_empty() && !diags.has_errors() {
            return Ok(self.report(findings, diags, &Sources::default()));
        }
        let (model, sources) = model()?;
        Ok(self.located(findings, diags, texts, &model, sources))
    }

    /// The check of the CRDs `generation` makes.
    pub fn generated(
        &self,
        generation: &Generation,
        opts: &Options,
    ) -> Result<CompatReport, Diagnostic> {
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
        let (findings, diags, texts) = self.compare(&opts.output_base, New::Generated(new))?;
        Ok(self.located(
            findings,
            diags,
            texts,
            &generation.model,
            generation.sources.clone(),
        ))
    }

    /// The report of `findings`, each placed in the source `model` was built from.
    fn located(
        &self,
        mut findings: Vec<Finding>,
        diags: Diagnostics,
        texts: Texts,
        model: &Model,
        mut sources: Sources,
    ) -> CompatReport {
        compat::locate(model, &mut findings);
        for (name, text) in texts {
            if sources.get(&name).is_none() {
                sources.insert(name, text);
            }
        }
        self.report(findings, diags, &sources)
    }

    /// The findings of the new CRDs against the old, and the texts read. Against a
    /// revision, only the files that differ are read: those git says differ from the
    /// work tree, and those a generation makes otherwise than the work tree has them.
    fn compare(
        &self,
        base: &Path,
        new: New,
    ) -> Result<(Vec<Finding>, Diagnostics, Texts), Diagnostic> {
        let disk = base.join(&self.crd_dir);
        let revision = match &self.old {
            Old::Read(old) => {
                let new = match new {
                    New::Generated(texts) => texts,
                    New::OnDisk => texts(&disk, &self.crd_dir, None)?,
                };
                return Ok(self.compare_texts(old, new));
            }
            Old::Revision(revision) => revision,
        };
        let changed = compat::changed(base, &self.crd_dir, revision)?;
        let (partial, all) = match new {
            New::Generated(generated) => {
                let differs = |(name, text): &(String, String)| {
                    changed.contains(name)
                        || std::fs::read_to_string(base.join(name)).ok().as_deref() != Some(text)
                };
                let partial: Texts = generated.iter().filter(|t| differs(t)).cloned().collect();
                (partial, Some(generated))
            }
            New::OnDisk => (texts(&disk, &self.crd_dir, Some(&changed))?, None),
        };
        let mut wanted = changed;
        wanted.extend(partial.iter().map(|(name, _)| name.clone()));
        let old = compat::at_revision(base, &self.crd_dir, revision, Some(&wanted))?;
        let (findings, diags, read) = self.compare_texts(&old, partial);
        // A CRD gone from the files that differ may have moved to one that does not:
        // only the whole of both sides tells.
        if !findings.iter().any(|f| f.change.code == Code::CrdRemoved) {
            return Ok((findings, diags, read));
        }
        let old = compat::at_revision(base, &self.crd_dir, revision, None)?;
        let new = match all {
            Some(generated) => generated,
            None => texts(&disk, &self.crd_dir, None)?,
        };
        Ok(self.compare_texts(&old, new))
    }

    fn compare_texts(&self, old: &Texts, new: Texts) -> (Vec<Finding>, Diagnostics, Texts) {
        let mut diags = Diagnostics::default();
        let findings = compat::compare(old, &new, &mut diags);
        let read = old.iter().cloned().chain(new).collect();
        (findings, diags, read)
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

/// The CRD files under `dir` (on disk), each named `named_as/<its path below dir>`;
/// with `only`, those of its names alone.
fn texts(
    dir: &Path,
    named_as: &Path,
    only: Option<&BTreeSet<String>>,
) -> Result<Texts, Diagnostic> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut diags = Diagnostics::default();
    let mut out = Vec::new();
    for file in crate::import::read::files(dir, &mut diags) {
        let name = shown(&named_as.join(file.strip_prefix(dir).unwrap_or(&file)));
        if only.is_some_and(|only| !only.contains(&name)) {
            continue;
        }
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
