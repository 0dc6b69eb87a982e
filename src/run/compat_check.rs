//! `generate-groups --compat`: the CRDs a run would write, checked against those of a
//! git revision (or a directory) before anyone merges them, with each finding placed
//! at the Rust field or marker that makes it.

use std::path::{Path, PathBuf};

use super::{CompatCheck, CompatReport};
use std::collections::BTreeSet;

use crate::compat::{self, Config, Finding, Format, Report, Texts};
use crate::diag::{Code, Diagnostic, Diagnostics, Sources};
use crate::model::Model;
use crate::options::{Generator, Options};
use crate::pipeline::{Error, Generation, Input};

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
    /// differ from the work tree: git is asked as the check is set up, and answers
    /// while the run goes on.
    Revision {
        revision: String,
        changed: Option<Asked>,
    },
}

/// git's answer to which files differ: asked, or answered (the files, and the reader of
/// the revision's).
enum Asked {
    Pending(compat::Changed),
    Answered(BTreeSet<String>, compat::Reader),
}

impl Asked {
    /// The answer: waited for, or asked now (`base`, `dir`, `revision`) when git was not.
    fn answer(
        asked: Option<Asked>,
        base: &Path,
        dir: &Path,
        revision: &str,
    ) -> Result<(BTreeSet<String>, compat::Reader), Diagnostic> {
        match asked {
            Some(Asked::Answered(files, reader)) => Ok((files, reader)),
            Some(Asked::Pending(asked)) => asked.files(),
            None => compat::Changed::ask(base, dir, revision).files(),
        }
    }
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
        let config = Config::find(check.config.as_deref(), base)?;
        let dir = base.join(&check.against);
        let old = if dir.is_dir() {
            // Named as the run names its own CRDs, so that files alike are passed over.
            Old::Read(texts(&dir, &crd_dir, None)?)
        } else {
            Old::Revision {
                revision: check.against.clone(),
                changed: Some(Asked::Pending(compat::Changed::ask(
                    base,
                    &crd_dir,
                    &check.against,
                ))),
            }
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

    /// The check of the CRDs on disk, which a current stamp says the run would write.
    /// Findings are placed in the source by the model of the API groups they are in,
    /// built only when there are any, from `input`: against a revision, the model of
    /// the groups whose CRD files git says differ is started on the other core while
    /// the CRDs are compared (it is the same model where it has every group a finding is
    /// in; else, or where it fails, the model is built as without it).
    pub fn on_disk(&mut self, opts: &Options, input: Input) -> Result<CompatReport, Error> {
        let no_sources = |d| Error::diagnostics(vec![d], &Sources::default());
        let early = match self.likely_groups(&opts.output_base).map_err(no_sources)? {
            Some(likely) if !likely.is_empty() => Early::start(opts, likely, input),
            _ => Early::Not(input),
        };
        let (findings, diags, texts) = self
            .compare(&opts.output_base, New::OnDisk)
            .map_err(no_sources)?;
        if findings.is_empty() && !diags.has_errors() {
            // A model started early finishes on its own, unread.
            return Ok(self.report(findings, diags, &Sources::default()));
        }
        let groups: BTreeSet<&str> = findings
            .iter()
            .filter_map(|f| f.crd.split_once('.').map(|(_, group)| group))
            .collect();
        let (model, sources) = early.model(opts, &groups)?;
        Ok(self.located(findings, diags, texts, &model, sources))
    }

    /// The API groups of the CRD files git says differ from the revision (by the names
    /// crdgen gives them): the groups a finding is likely in. `None` against a
    /// directory.
    fn likely_groups(&mut self, base: &Path) -> Result<Option<BTreeSet<String>>, Diagnostic> {
        let Old::Revision { revision, changed } = &mut self.old else {
            return Ok(None);
        };
        let (files, reader) = Asked::answer(changed.take(), base, &self.crd_dir, revision)?;
        let groups = files
            .iter()
            .filter_map(|f| crate::naming::crd_file_group(Path::new(f).file_name()?.to_str()?))
            .map(str::to_owned)
            .collect();
        *changed = Some(Asked::Answered(files, reader));
        Ok(Some(groups))
    }

    /// The check of the CRDs `generation` makes.
    pub fn generated(
        &mut self,
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
                    compat::shown(&self.crd_dir.join(name)),
                    generation.header.yaml_file(body),
                )
            })
            .collect();
        let (findings, diags, texts) = self.compare(&opts.output_base, New::Generated(new))?;
        if findings.is_empty() && !diags.has_errors() {
            return Ok(self.report(findings, diags, &Sources::default()));
        }
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
        &mut self,
        base: &Path,
        new: New,
    ) -> Result<(Vec<Finding>, Diagnostics, Texts), Diagnostic> {
        let disk = base.join(&self.crd_dir);
        let (revision, changed) = match &mut self.old {
            Old::Read(old) => {
                let new = match new {
                    New::Generated(texts) => texts,
                    New::OnDisk => texts(&disk, &self.crd_dir, None)?,
                };
                return Ok(compare_texts(old, new));
            }
            Old::Revision { revision, changed } => (revision.clone(), changed.take()),
        };
        let revision = &revision;
        let (changed, reader) = Asked::answer(changed, base, &self.crd_dir, revision)?;
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
        let wanted: Vec<String> = wanted.into_iter().collect();
        let old = reader.read(&wanted, true)?;
        let (findings, diags, read) = compare_texts(&old, partial);
        // A CRD gone from the files that differ may have moved to one that does not:
        // only the whole of both sides tells.
        if !findings.iter().any(|f| f.change.code == Code::CrdRemoved) {
            return Ok((findings, diags, read));
        }
        let old = compat::at_revision(base, &self.crd_dir, revision)?;
        let new = match all {
            Some(generated) => generated,
            None => texts(&disk, &self.crd_dir, None)?,
        };
        Ok(compare_texts(&old, new))
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

/// The model that places findings, started early or not.
enum Early {
    /// Being built on a thread of its own, of these groups.
    Started(BTreeSet<String>, std::thread::JoinHandle<ModelOf>),
    /// Not started: the input to build it from.
    Not(Input),
    /// No thread could be had: the sources went with it, and are read again if needed.
    Lost,
}

type ModelOf = Result<(Model, Sources), Error>;

impl Early {
    /// The model of the `groups`' sources in `input`, started on a thread of its own (a
    /// detached one: when there is nothing to place, the run does not wait for it).
    fn start(opts: &Options, groups: BTreeSet<String>, input: Input) -> Early {
        let names: BTreeSet<String> = groups.clone();
        let opts = opts.clone();
        let build = move || {
            let names = names.iter().map(String::as_str).collect();
            model_of(&opts, input, &names)
        };
        match std::thread::Builder::new()
            .name("crdgen-model".into())
            .stack_size(crate::parallel::STACK_BYTES)
            .spawn(build)
        {
            Ok(thread) => Early::Started(groups, thread),
            Err(_) => Early::Lost,
        }
    }

    /// The model of the `groups`' sources: the one started early where it has all of
    /// them and was built, else one built now.
    fn model(self, opts: &Options, groups: &BTreeSet<&str>) -> ModelOf {
        let input = match self {
            Early::Not(input) => input,
            Early::Lost => crate::pipeline::read(opts)?,
            Early::Started(started, thread) => {
                let built = thread.join().ok().and_then(Result::ok);
                match built {
                    Some(model) if groups.iter().all(|g| started.contains(*g)) => {
                        return Ok(model);
                    }
                    _ => crate::pipeline::read(opts)?,
                }
            }
        };
        crate::pipeline::on_big_stack(|| model_of(opts, input, groups))?
    }
}

/// The model of the `groups`' sources in `input`, and their texts.
fn model_of(opts: &Options, input: Input, groups: &BTreeSet<&str>) -> ModelOf {
    let discovered = input.discovered.narrowed_to(groups);
    crate::pipeline::model_of(
        opts,
        Input {
            discovered,
            ..input
        },
    )
}

/// The findings, and the texts read when there is anything to show them in.
fn compare_texts(old: &Texts, new: Texts) -> (Vec<Finding>, Diagnostics, Texts) {
    let mut diags = Diagnostics::default();
    let findings = compat::compare(old, &new, &mut diags);
    let read = match findings.is_empty() && !diags.has_errors() {
        true => Vec::new(),
        false => old.iter().cloned().chain(new).collect(),
    };
    (findings, diags, read)
}

/// The CRD files under `dir` (on disk, if it is there), each named as below `named_as`.
fn texts(
    dir: &Path,
    named_as: &Path,
    only: Option<&BTreeSet<String>>,
) -> Result<Texts, Diagnostic> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    compat::on_disk(dir, named_as, only)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A CRD moved from a committed file to a new, untracked one is the same CRD: only
    /// its change is found, not its removal.
    #[test]
    fn a_crd_moved_to_an_untracked_file_is_compared_not_removed() {
        let repo = tempfile::tempdir().unwrap();
        let base = repo.path();
        let fixture = |side: &str| {
            std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("testdata/compat/field-removed/{side}.yaml")),
            )
            .unwrap()
        };
        std::fs::create_dir_all(base.join("crds")).unwrap();
        std::fs::write(base.join("crds/a.yaml"), fixture("old")).unwrap();
        git(base, &["init", "-q"]);
        git(base, &["add", "-A"]);
        git(base, &["commit", "-qm", "a"]);
        std::fs::remove_file(base.join("crds/a.yaml")).unwrap();
        std::fs::write(base.join("crds/b.yaml"), fixture("new")).unwrap();
        // Without git asked ahead, as when the check was set up for another run.
        let mut against = Against {
            old: Old::Revision {
                revision: "HEAD".to_owned(),
                changed: None,
            },
            config: Config::default(),
            format: Format::Text,
            crd_dir: PathBuf::from("crds"),
        };
        let (findings, diags, _) = against.compare(base, New::OnDisk).unwrap();
        assert!(!diags.has_errors());
        let codes: Vec<Code> = findings.iter().map(|f| f.change.code).collect();
        assert_eq!(codes, [Code::FieldRemoved]);
        assert_eq!(findings[0].at.0, "crds/b.yaml");
    }
}
