//! The compatibility rules: each a diagnostic code, a name the project's configuration
//! uses, and how loudly it speaks unless configured otherwise; and that configuration
//! (`crdgen-compat.yaml`): a level per rule, and findings accepted one by one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::diag::{Code, Diagnostic, Pos, did_you_mean};

/// How a rule's findings count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Off,
    /// Reported; the check passes.
    Warn,
    /// Reported; the check fails.
    Error,
}

/// A rule of the check.
pub struct Rule {
    pub code: Code,
    /// Its name in `crdgen-compat.yaml` and in JSON output.
    pub name: &'static str,
    /// Its level unless the configuration says otherwise.
    pub level: Level,
}

const fn rule(code: Code, name: &'static str, level: Level) -> Rule {
    Rule { code, name, level }
}

/// Every rule, in code order.
pub const RULES: [Rule; 20] = [
    rule(Code::CrdRemoved, "crd-removed", Level::Error),
    rule(Code::ScopeChanged, "scope-changed", Level::Error),
    rule(Code::KindChanged, "kind-changed", Level::Error),
    rule(Code::VersionRemoved, "version-removed", Level::Error),
    rule(
        Code::StoredVersionRemoved,
        "stored-version-removed",
        Level::Error,
    ),
    rule(
        Code::StorageVersionChanged,
        "storage-version-changed",
        Level::Error,
    ),
    rule(Code::FieldRemoved, "field-removed", Level::Error),
    rule(Code::TypeChanged, "type-changed", Level::Error),
    rule(Code::FieldRequired, "field-required", Level::Error),
    rule(Code::DefaultChanged, "default-changed", Level::Error),
    rule(Code::NullableRemoved, "nullable-removed", Level::Error),
    rule(Code::EnumNarrowed, "enum-narrowed", Level::Error),
    rule(Code::BoundTightened, "bound-tightened", Level::Error),
    rule(Code::PatternChanged, "pattern-changed", Level::Error),
    rule(Code::FormatChanged, "format-changed", Level::Error),
    // The apiserver ratchets: objects already stored that the new rule refuses may
    // still be written unchanged, so a new rule breaks only new writes.
    rule(Code::RuleAdded, "rule-added", Level::Warn),
    rule(Code::RuleChanged, "rule-changed", Level::Error),
    rule(Code::ListTypeChanged, "list-type-changed", Level::Error),
    rule(
        Code::PreserveUnknownRemoved,
        "preserve-unknown-removed",
        Level::Error,
    ),
    // What no other rule judges (a `oneOf` changed, say) may or may not break anyone.
    rule(Code::SchemaChanged, "schema-changed", Level::Warn),
];

/// The rule of `code`.
pub fn of(code: Code) -> &'static Rule {
    RULES
        .iter()
        .find(|r| r.code == code)
        .expect("every finding's code is a rule's")
}

/// The file a project configures the check in, looked for in the directory the check
/// runs from.
pub const CONFIG_FILE: &str = "crdgen-compat.yaml";

/// A project's configuration of the check.
#[derive(Debug, Default)]
pub struct Config {
    levels: BTreeMap<Code, Level>,
    accepted: Vec<Accept>,
}

/// A finding accepted on purpose: a deliberate break, with why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    pub rule: String,
    pub crd: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    rules: BTreeMap<String, Level>,
    #[serde(default)]
    accept: Vec<Accept>,
}

impl Config {
    /// The configuration in `explicit`, else in `dir`'s `crdgen-compat.yaml` when there
    /// is one, else the defaults.
    pub fn find(explicit: Option<&Path>, dir: &Path) -> Result<Config, Diagnostic> {
        let default = dir.join(CONFIG_FILE);
        Config::load(explicit.or_else(|| Some(default.as_path()).filter(|p| p.is_file())))
    }

    /// The configuration in `path`, or the defaults when `path` is `None`.
    pub fn load(path: Option<&Path>) -> Result<Config, Diagnostic> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let shown = path.display().to_string();
        let text = crate::source::read_text(path, 1 << 20).map_err(|e| {
            Diagnostic::error(e.code(Code::Io), format!("cannot read `{shown}`: {e}"))
                .at_path(&shown)
                .hint(format!(
                    "the check's configuration is a YAML file, {CONFIG_FILE}"
                ))
        })?;
        let file: ConfigFile = crate::yaml::from_str(&text).map_err(|e| {
            let pos = e.at.map_or(Pos { line: 1, col: 1 }, |(line, col)| Pos { line, col });
            Diagnostic::error(Code::BadCompatConfig, e.message)
                .at(&shown, pos)
                .hint("it holds `rules:` (a rule's name: off, warn or error) and `accept:` (entries of rule, crd, version, path, reason)")
        })?;
        let named = |name: &str| RULES.iter().find(|r| r.name == name);
        let unknown = |name: &str| {
            let hint = match did_you_mean(name, RULES.iter().map(|r| r.name)) {
                Some(close) => format!("did you mean `{close}`?"),
                None => "`crdgen explain` lists the rules (E0027 to E0046)".to_owned(),
            };
            Diagnostic::error(Code::BadCompatConfig, format!("no rule is named `{name}`"))
                .at(&shown, line_of(&text, name))
                .hint(hint)
        };
        let mut levels = BTreeMap::new();
        for (name, level) in file.rules {
            let rule = named(&name).ok_or_else(|| unknown(&name))?;
            levels.insert(rule.code, level);
        }
        if let Some(accept) = file.accept.iter().find(|a| named(&a.rule).is_none()) {
            return Err(unknown(&accept.rule));
        }
        Ok(Config {
            levels,
            accepted: file.accept,
        })
    }

    /// The level of `code`'s findings.
    pub fn level(&self, code: Code) -> Level {
        self.levels.get(&code).copied().unwrap_or(of(code).level)
    }

    /// The entry accepting a finding of `code` at `crd`, `version`, `path`, if any.
    pub fn accepting(
        &self,
        code: Code,
        crd: &str,
        version: Option<&str>,
        path: Option<&str>,
    ) -> Option<&Accept> {
        let name = of(code).name;
        self.accepted.iter().find(|a| {
            a.rule == name
                && a.crd == crd
                && a.version.as_deref().is_none_or(|v| Some(v) == version)
                && a.path.as_deref().is_none_or(|p| Some(p) == path)
        })
    }
}

/// Where `word` is first written in `text`, for a diagnostic about it.
fn line_of(text: &str, word: &str) -> Pos {
    text.lines()
        .enumerate()
        .find_map(|(n, line)| {
            line.find(word).map(|col| Pos {
                line: n + 1,
                col: line[..col].chars().count() + 1,
            })
        })
        .unwrap_or(Pos { line: 1, col: 1 })
}
