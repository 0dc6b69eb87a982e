//! Diagnostics: every user mistake is reported with where it is, a stable code and a
//! hint, and a phase reports all of its mistakes at once.

mod explain;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};

/// Stable diagnostic codes. The numbers never change meaning; each has a page in the
/// book (`docs/src/diagnostics/`), which `crdgen explain` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    /// A group or version directory named on the command line does not exist, or a
    /// declared module has no file crdgen reads.
    MissingDirectory,
    /// A file could not be read.
    Io,
    /// A file is not valid Rust.
    MalformedRust,
    /// No `+groupName=` marker for a group.
    MissingGroupName,
    /// A kind has no `metadata: ObjectMeta` field.
    KindWithoutMetadata,
    /// A marker in crdgen's namespaces that crdgen does not know.
    UnknownMarker,
    /// A known marker with a malformed or wrong argument.
    BadMarkerArgument,
    /// A known marker in a place it does not apply to.
    MisplacedMarker,
    /// A marker in a plain `//` comment, which syn (and so crdgen) cannot see.
    MarkerInPlainComment,
    /// Two kinds of one name in one group version.
    DuplicateKind,
    /// A kind without the `TypeMeta` field that carries apiVersion and kind.
    KindWithoutTypeMeta,
    /// A type that generated code must name is not reachable from outside its module.
    UnreachableType,
    /// A name the apiserver or Rust would refuse: a group, kind, plural, singular,
    /// short name or category.
    InvalidName,
    /// Two sources disagree (group names, plurals, scopes, versions).
    Conflict,
    /// A malformed `#[kube(...)]` or `#[serde(...)]` attribute.
    BadAttribute,
    /// The boilerplate header file is unusable.
    BadBoilerplate,
    /// A generated file would overwrite a file that crdgen did not generate.
    WouldOverwrite,
    /// A kind or type shape crdgen cannot generate code for.
    Unsupported,
    /// A file declared nowhere in its version's `mod.rs`.
    UndeclaredModule,
    /// A CRD too large for a client-side `kubectl apply` (a warning).
    LargeCrd,
    /// An input beyond one of crdgen's limits: a file too large, nesting too deep.
    Limit,
    /// A CEL rule the apiserver would refuse: it does not parse, reads what its schema
    /// node does not have, is not a bool, or uses `oldSelf` where it cannot.
    InvalidRule,
    /// A CEL rule, or a CRD version's rules together, over the apiserver's cost budget.
    RuleCost,
    /// An input of `crdgen import` that is no CRD it reads: not YAML, not a v1
    /// CustomResourceDefinition, a version without a schema.
    NotACrd,
    /// A path of an imported CRD that its Rust package does not write back (a warning).
    SchemaNotKept,
    /// `crdgen import --from-cluster` found no cluster, or the cluster no such CRD.
    Cluster,
    /// A CRD of the old set is not in the new one.
    CrdRemoved,
    /// A CRD's scope changed.
    ScopeChanged,
    /// A CRD's kind or listKind changed.
    KindChanged,
    /// A served version removed, or no longer served.
    VersionRemoved,
    /// A version removed that objects are still stored in.
    StoredVersionRemoved,
    /// The storage version changed without a conversion webhook.
    StorageVersionChanged,
    /// A field removed from a version's schema.
    FieldRemoved,
    /// A schema node's type changed.
    TypeChanged,
    /// A field became required, or a required field was added.
    FieldRequired,
    /// A default added, removed or changed.
    DefaultChanged,
    /// A field that could be null no longer can.
    NullableRemoved,
    /// Enum values removed, or an enum where any value was allowed.
    EnumNarrowed,
    /// A minimum, maximum, length, count or multipleOf bound tightened.
    BoundTightened,
    /// A pattern added or changed.
    PatternChanged,
    /// A format added or changed.
    FormatChanged,
    /// A CEL rule added (a warning: the apiserver ratchets).
    RuleAdded,
    /// A CEL rule changed.
    RuleChanged,
    /// A list's or map's merge type or keys changed.
    ListTypeChanged,
    /// Unknown fields no longer preserved.
    PreserveUnknownRemoved,
    /// A schema change no other rule judges (a warning).
    SchemaChanged,
    /// An unusable crdgen-compat.yaml.
    BadCompatConfig,
    /// A sample under config/samples that its kind's schema or rules refuse.
    BadSample,
    /// A generator produced invalid Rust: a bug in crdgen, never the user's fault.
    Bug,
}

impl Code {
    /// The code as diagnostics show it: `E0007`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::MissingDirectory => "E0001",
            Code::Io => "E0002",
            Code::MalformedRust => "E0003",
            Code::MissingGroupName => "E0004",
            Code::KindWithoutMetadata => "E0005",
            Code::UnknownMarker => "E0006",
            Code::BadMarkerArgument => "E0007",
            Code::MisplacedMarker => "E0008",
            Code::MarkerInPlainComment => "E0009",
            Code::DuplicateKind => "E0010",
            Code::KindWithoutTypeMeta => "E0011",
            Code::UnreachableType => "E0012",
            Code::InvalidName => "E0013",
            Code::Conflict => "E0014",
            Code::BadAttribute => "E0015",
            Code::BadBoilerplate => "E0016",
            Code::WouldOverwrite => "E0017",
            Code::Unsupported => "E0018",
            Code::UndeclaredModule => "E0019",
            Code::LargeCrd => "E0020",
            Code::Limit => "E0021",
            Code::InvalidRule => "E0022",
            Code::RuleCost => "E0023",
            Code::NotACrd => "E0024",
            Code::SchemaNotKept => "E0025",
            Code::Cluster => "E0026",
            Code::CrdRemoved => "E0027",
            Code::ScopeChanged => "E0028",
            Code::KindChanged => "E0029",
            Code::VersionRemoved => "E0030",
            Code::StoredVersionRemoved => "E0031",
            Code::StorageVersionChanged => "E0032",
            Code::FieldRemoved => "E0033",
            Code::TypeChanged => "E0034",
            Code::FieldRequired => "E0035",
            Code::DefaultChanged => "E0036",
            Code::NullableRemoved => "E0037",
            Code::EnumNarrowed => "E0038",
            Code::BoundTightened => "E0039",
            Code::PatternChanged => "E0040",
            Code::FormatChanged => "E0041",
            Code::RuleAdded => "E0042",
            Code::RuleChanged => "E0043",
            Code::ListTypeChanged => "E0044",
            Code::PreserveUnknownRemoved => "E0045",
            Code::SchemaChanged => "E0046",
            Code::BadCompatConfig => "E0047",
            Code::BadSample => "E0048",
            Code::Bug => "E0999",
        }
    }
}

/// Whether a diagnostic stops the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The run writes nothing.
    Error,
    /// Reported; the run goes on.
    Warning,
}

/// A position in a source file: 1-based line, 1-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column, in characters, from 1.
    pub col: usize,
}

impl Pos {
    pub(crate) fn of(span: proc_macro2::Span) -> Pos {
        let start = span.start();
        Pos {
            line: start.line,
            col: start.column + 1,
        }
    }
}

/// Where a diagnostic points: a place in a file, or a path with no line (a directory).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Location {
    /// A place in a file.
    File {
        /// The file, as given to crdgen (relative to the output base).
        path: String,
        /// Where in it.
        pos: Pos,
    },
    /// A file or directory as a whole.
    Path(String),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
/// One problem: what is wrong, where, its stable code and how to fix it.
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where it is; `None` for a problem of the run as a whole.
    pub location: Option<Location>,
    /// Its stable code.
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub(crate) fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            location: None,
            code,
            message: message.into(),
            hint: None,
        }
    }

    /// A bug in crdgen itself (E0999), never a mistake in the input.
    pub(crate) fn bug(message: impl Into<String>) -> Self {
        Diagnostic::error(Code::Bug, message)
            .hint("this is a bug in crdgen; please report it with the input that caused it")
    }

    pub(crate) fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    pub(crate) fn at(mut self, path: &str, pos: Pos) -> Self {
        self.location = Some(Location::File {
            path: path.to_owned(),
            pos,
        });
        self
    }

    pub(crate) fn at_path(mut self, path: impl Into<String>) -> Self {
        self.location = Some(Location::Path(path.into()));
        self
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether it stops the run.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic the way rustc does, with the offending source line when
    /// the file is known to `sources`.
    pub(crate) fn render(&self, sources: &Sources) -> String {
        let mut out = String::new();
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "{level}[{}]: {}", self.code.as_str(), self.message);
        match &self.location {
            Some(Location::File { path, pos }) => {
                let line_text = sources.line(path, pos.line);
                let gutter = " ".repeat(pos.line.to_string().len());
                let _ = writeln!(out, "{gutter}--> {path}:{}:{}", pos.line, pos.col);
                if let Some(text) = line_text {
                    let caret_pad: String = text
                        .chars()
                        .take(pos.col.saturating_sub(1))
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    let _ = writeln!(out, "{gutter} |");
                    let _ = writeln!(out, "{} | {}", pos.line, text.trim_end());
                    let _ = writeln!(out, "{gutter} | {caret_pad}^");
                }
                if let Some(hint) = &self.hint {
                    let _ = writeln!(out, "{gutter} = hint: {hint}");
                }
            }
            Some(Location::Path(path)) => {
                let _ = writeln!(out, " --> {path}");
                if let Some(hint) = &self.hint {
                    let _ = writeln!(out, "  = hint: {hint}");
                }
            }
            None => {
                if let Some(hint) = &self.hint {
                    let _ = writeln!(out, "  = hint: {hint}");
                }
            }
        }
        out
    }
}

/// The text of every source file read, keyed by the path diagnostics show.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sources {
    files: BTreeMap<String, String>,
}

impl Sources {
    pub fn insert(&mut self, path: String, text: String) {
        self.files.insert(path, text);
    }

    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    fn line(&self, path: &str, line: usize) -> Option<&str> {
        self.get(path)?.lines().nth(line.checked_sub(1)?)
    }
}

/// A batch of diagnostics, sorted by place so that output never depends on the order
/// in which files or checks ran.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.0.extend(other);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }

    /// Sorted by location, then code and message; identical entries collapse.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.0.sort();
        self.0.dedup();
        self.0
    }

    /// Ends a phase: `Err` with everything found when any of it is an error.
    pub fn check(self) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
        if self.has_errors() {
            Err(self.into_sorted())
        } else {
            Ok(self.into_sorted())
        }
    }
}

/// Renders diagnostics one after another, with a closing count of errors.
pub(crate) fn render_all(diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.render(sources));
        out.push('\n');
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        let _ = writeln!(out, "crdgen: {errors} error{plural}; nothing was written");
    }
    // As rustc closes: where each code is explained.
    let codes: BTreeSet<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    if let Some(first) = codes.first() {
        let listed: Vec<&str> = codes.iter().copied().collect();
        let _ = writeln!(
            out,
            "For more about {}, try `crdgen explain {first}`.",
            listed.join(", ")
        );
    }
    out
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The closest of `candidates` to `word`, when it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| {
            (
                strsim::jaro_winkler(&word.to_lowercase(), &c.to_lowercase()),
                c,
            )
        })
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_source_line_with_caret_and_hint() {
        let mut sources = Sources::default();
        sources.insert("a.rs".into(), "fn x() {}\n    pub struct Y;\n".into());
        let d = Diagnostic::error(Code::MalformedRust, "bad")
            .at("a.rs", Pos { line: 2, col: 5 })
            .hint("fix it");
        assert_eq!(
            d.render(&sources),
            "error[E0003]: bad\n --> a.rs:2:5\n  |\n2 |     pub struct Y;\n  |     ^\n  = hint: fix it\n"
        );
    }

    #[test]
    fn suggestions_pick_the_closest_name() {
        let names = ["genclient", "genclient:nonNamespaced", "groupName"];
        assert_eq!(did_you_mean("genclinet", names), Some("genclient"));
        assert_eq!(
            did_you_mean("genclient:nonNamespace", names),
            Some("genclient:nonNamespaced")
        );
        assert_eq!(did_you_mean("zzzz", names), None);
    }
}
