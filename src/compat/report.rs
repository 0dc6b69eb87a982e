//! The findings as a person reads them (diagnostics, as rustc writes them) or as a CI
//! tool does (`--format json`), each at the level the project's configuration gives
//! its rule, the ones accepted set apart.

use serde_json::{Value, json};

use super::Finding;
use super::rules::{self, Config, Level};
use crate::diag::{Diagnostic, Sources};

/// How the report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Diagnostics, as errors and warnings.
    Text,
    /// One JSON object: `findings`, and the counts.
    Json,
}

/// The findings, placed at their levels.
pub struct Report {
    /// Each reported finding with its level (never `Off`), and the reason it was
    /// accepted, if it was.
    entries: Vec<(Finding, Level, Option<String>)>,
}

impl Report {
    /// The findings as `config` weighs them: rules turned off are dropped.
    pub fn new(mut findings: Vec<Finding>, config: &Config) -> Report {
        findings.sort_by(|a, b| {
            (
                &a.crd,
                &a.version,
                &a.change.path,
                a.change.code,
                &a.change.message,
            )
                .cmp(&(
                    &b.crd,
                    &b.version,
                    &b.change.path,
                    b.change.code,
                    &b.change.message,
                ))
        });
        let entries = findings
            .into_iter()
            .filter_map(|f| {
                let level = config.level(f.change.code);
                let path = (!f.change.path.is_empty()).then_some(f.change.path.as_str());
                let accepted = config
                    .accepting(f.change.code, &f.crd, f.version.as_deref(), path)
                    .map(|a| a.reason.clone().unwrap_or_default());
                (level != Level::Off).then_some((f, level, accepted))
            })
            .collect();
        Report { entries }
    }

    /// The findings that fail the check: errors not accepted.
    pub fn errors(&self) -> usize {
        self.count(|level, accepted| level == Level::Error && !accepted)
    }

    fn count(&self, which: impl Fn(Level, bool) -> bool) -> usize {
        self.entries
            .iter()
            .filter(|(_, level, accepted)| which(*level, accepted.is_some()))
            .count()
    }

    /// The report as `format` writes it, the source lines shown from `sources`.
    pub fn render(&self, format: Format, sources: &Sources) -> String {
        match format {
            Format::Text => self.text(sources),
            Format::Json => {
                let mut text = serde_json::to_string_pretty(&self.json()).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }

    fn text(&self, sources: &Sources) -> String {
        let mut out = String::new();
        for (finding, level, accepted) in &self.entries {
            if accepted.is_some() {
                continue;
            }
            out.push_str(&diagnostic(finding, *level).render(sources));
        }
        let accepted = self.count(|_, accepted| accepted);
        let warnings = self.count(|level, accepted| level == Level::Warn && !accepted);
        out.push_str(&format!(
            "crdgen compat: {} breaking, {warnings} to look at, {accepted} accepted\n",
            self.errors()
        ));
        out
    }

    fn json(&self) -> Value {
        let findings: Vec<Value> = self
            .entries
            .iter()
            .map(|(f, level, accepted)| {
                json!({
                    "code": f.change.code.as_str(),
                    "rule": rules::of(f.change.code).name,
                    "severity": match level { Level::Error => "error", _ => "warning" },
                    "crd": f.crd,
                    "version": f.version,
                    "path": (!f.change.path.is_empty()).then_some(&f.change.path),
                    "message": f.change.message,
                    "old": f.change.old,
                    "new": f.change.new,
                    "file": f.at.0,
                    "line": f.at.1.line,
                    "column": f.at.1.col,
                    "accepted": accepted,
                })
            })
            .collect();
        json!({
            "findings": findings,
            "errors": self.errors(),
            "warnings": self.count(|level, accepted| level == Level::Warn && !accepted),
            "accepted": self.count(|_, accepted| accepted),
        })
    }
}

/// A finding as a diagnostic: `error[E0033]: widgets.shop.example.com v1 .spec.size: …`.
fn diagnostic(f: &Finding, level: Level) -> Diagnostic {
    let mut place = f.crd.clone();
    if let Some(version) = &f.version {
        place.push_str(&format!(" {version}"));
    }
    if !f.change.path.is_empty() {
        place.push_str(&format!(" `{}`", f.change.path));
    }
    let name = rules::of(f.change.code).name;
    let hint = match f.change.code {
        crate::diag::Code::RuleAdded => "objects stored before stay writable unchanged (the apiserver ratchets validation, Kubernetes 1.30 on), but every new or changed object must pass the rule".to_owned(),
        _ => format!(
            "if the break is meant, accept it in {}: `- {{rule: {name}, crd: {}{}{}}}` under `accept:`",
            rules::CONFIG_FILE,
            f.crd,
            f.version.as_ref().map_or(String::new(), |v| format!(", version: {v}")),
            if f.change.path.is_empty() {
                String::new()
            } else {
                format!(", path: \"{}\"", f.change.path)
            },
        ),
    };
    let message = format!("{place}: {}", f.change.message);
    let d = match level {
        Level::Error => Diagnostic::error(f.change.code, message),
        _ => Diagnostic::warning(f.change.code, message),
    };
    d.at(&f.at.0, f.at.1).hint(hint)
}
