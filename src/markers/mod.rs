//! Markers: `+name`, `+name=value` and `+name:key=value,…` lines in doc comments, in
//! the syntax controller-tools and code-generator use, turned into typed values by
//! the one table in `table`; `schema` applies the schema markers to a JSON schema (the
//! user's fields' and, from their Go source, the known Kubernetes types').

mod lexer;
mod reference;
pub mod schema;
mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::{Code, Diagnostic, Diagnostics, Pos, did_you_mean};
pub use reference::reference;
pub use table::*;

/// The prefix of the list-item forms of validation markers.
pub const ITEMS_PREFIX: &str = "kubebuilder:validation:items:";

/// Where a marker stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `//!` in a version's or group's module file.
    Package,
    /// `///` on a struct or enum.
    Type,
    /// `///` on a field (or an enum variant).
    Field,
}

impl Target {
    fn describe(self) -> &'static str {
        match self {
            Target::Package => "a package (`//!` in mod.rs)",
            Target::Type => "a type",
            Target::Field => "a field",
        }
    }
}

/// A typed marker argument.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Number(f64),
    String(String),
    List(Vec<String>),
    Args(BTreeMap<String, Value>),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// One line of a doc comment, with the position of its first character: what markers
/// are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine {
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Marker {
    /// The table name; `items:` forms keep their `kubebuilder:validation:items:` name.
    pub name: String,
    /// Its definition in the table (for an `items:` form, the marker it is a form of).
    #[serde(skip)]
    pub def: &'static MarkerDef,
    pub value: Value,
    #[serde(skip)]
    pub pos: Pos,
}

impl Marker {
    /// The marker `def` with `value`, as if written at `pos` (kube-derive's attributes,
    /// said as the markers that mean the same).
    pub fn new(def: &'static MarkerDef, value: Value, pos: Pos) -> Self {
        Marker {
            name: def.name.to_owned(),
            def,
            value,
            pos,
        }
    }
}

/// What a block of doc comment lines says: its prose and its markers.
#[derive(Debug, Default)]
pub struct Extracted {
    pub docs: String,
    pub markers: Vec<Marker>,
}

/// Splits doc lines into prose and markers, type-checking every marker against the
/// table. Problems go to `diags`, pointing into `file`.
pub fn extract(
    lines: &[DocLine],
    target: Target,
    file: &str,
    diags: &mut Diagnostics,
) -> Extracted {
    let mut out = Extracted::default();
    let mut prose: Vec<&str> = Vec::new();
    for line in lines {
        let text = line.text.trim();
        if !looks_like_marker(text) {
            prose.push(line.text.strip_prefix(' ').unwrap_or(&line.text).trim_end());
            continue;
        }
        let pos = Pos {
            line: line.pos.line,
            col: line.pos.col + (line.text.len() - line.text.trim_start().len()),
        };
        match parse(&text[1..], target) {
            Ok(Some(marker)) => out.markers.push(Marker { pos, ..marker }),
            Ok(None) => {}
            Err(problem) => diags.push(problem.into_diagnostic(file, pos)),
        }
    }
    while prose.last().is_some_and(|l| l.is_empty()) {
        prose.pop();
    }
    let first = prose
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(prose.len());
    out.docs = crate::prose::from_doc_comment(&prose[first..]);
    out
}

/// Whether a comment line is marker syntax: `+` then a letter.
pub fn looks_like_marker(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next() == Some('+') && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Whether `text` (without its `+`) is a marker crdgen would act on: one in the table,
/// or one in a namespace crdgen owns.
pub fn is_crdgen_marker(text: &str) -> bool {
    lookup(text).is_some() || owned(text)
}

/// A marker that could not be read.
#[derive(Debug, PartialEq)]
pub struct Problem {
    code: Code,
    message: String,
    hint: String,
}

impl Problem {
    fn new(code: Code, message: String, hint: impl Into<String>) -> Self {
        Problem {
            code,
            message,
            hint: hint.into(),
        }
    }

    fn into_diagnostic(self, file: &str, pos: Pos) -> Diagnostic {
        Diagnostic::error(self.code, self.message)
            .at(file, pos)
            .hint(self.hint)
    }
}

/// Parses one marker (the text after `+`). `Ok(None)` for markers of other tools.
pub fn parse(text: &str, target: Target) -> Result<Option<Marker>, Problem> {
    let Some((def, items, name_len)) = lookup(text) else {
        if owned(text) {
            return Err(unknown(text));
        }
        return Ok(None);
    };
    let name = &text[..name_len];
    if !def.targets.contains(&target) {
        let allowed: Vec<&str> = def.targets.iter().map(|t| t.describe()).collect();
        return Err(Problem::new(
            Code::MisplacedMarker,
            format!("`+{name}` does not apply to {}", target.describe()),
            format!("`+{name}` belongs on {}", allowed.join(" or ")),
        ));
    }
    let value = lexer::value(def, &text[name_len..]).map_err(|why| {
        Problem::new(
            Code::BadMarkerArgument,
            format!("bad argument to `+{name}`: {why}"),
            example(def, name),
        )
    })?;
    debug_assert!(!items || def.items_form);
    Ok(Some(Marker {
        name: name.to_owned(),
        def,
        value,
        pos: Pos::default(),
    }))
}

/// The longest table name that `text` starts with, ending where a name can end.
fn lookup(text: &str) -> Option<(&'static MarkerDef, bool, usize)> {
    let head_end = text.find(['=', ' ', '\t']).unwrap_or(text.len());
    let mut candidate = &text[..head_end];
    loop {
        if let Some((def, items)) = table::find(candidate) {
            // Only markers with named arguments continue with `:key=value`; for the
            // others a longer name is a different (unknown) marker.
            let shortened = candidate.len() < head_end;
            let takes_args = matches!(def.arg, Arg::Named(_));
            return (!shortened || takes_args).then_some((def, items, candidate.len()));
        }
        candidate = &candidate[..candidate.rfind(':')?];
    }
}

fn owned(text: &str) -> bool {
    let ns_end = text.find([':', '=', ' ', '\t']).unwrap_or(text.len());
    table::OWNED_NAMESPACES.contains(&&text[..ns_end])
}

fn unknown(text: &str) -> Problem {
    let head = &text[..text.find(['=', ' ', '\t']).unwrap_or(text.len())];
    let names: Vec<String> = table::all_names().collect();
    let hint = match did_you_mean(head, names.iter().map(String::as_str)) {
        Some(best) => format!("did you mean `+{best}`?"),
        None => "see the marker reference (docs/src/reference/markers.md, or `crdgen markers`) for the markers crdgen knows".to_owned(),
    };
    Problem::new(
        Code::UnknownMarker,
        format!("unknown marker `+{head}`"),
        hint,
    )
}

/// How the marker is written, for hints.
fn example(def: &MarkerDef, name: &str) -> String {
    let sample = |arg: Arg| match arg {
        Arg::Flag => "",
        Arg::Bool => "=true",
        Arg::Int => "=3",
        Arg::Number => "=1.5",
        Arg::String => "=value",
        Arg::List => "=a;b;c",
        Arg::Groups => "=\"\";apps",
        Arg::Raw => "=<value>",
        Arg::Named(_) => "",
    };
    match def.arg {
        Arg::Named(args) => {
            let parts: Vec<String> = args
                .iter()
                .filter(|a| a.required)
                .map(|a| {
                    let value = sample(a.arg).trim_start_matches('=');
                    if a.name.is_empty() {
                        value.to_owned()
                    } else {
                        format!("{}={value}", a.name)
                    }
                })
                .collect();
            let sep = if args.first().is_some_and(|a| a.name.is_empty()) {
                "="
            } else {
                ":"
            };
            let optional: Vec<&str> = args
                .iter()
                .filter(|a| !a.required)
                .map(|a| a.name)
                .collect();
            let mut hint = format!("write it as `+{name}{sep}{}`", parts.join(","));
            if !optional.is_empty() {
                hint.push_str(&format!("; optional: {}", optional.join(", ")));
            }
            hint
        }
        arg => format!("write it as `+{name}{}`", sample(arg)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str, target: Target) -> Value {
        parse(text, target).unwrap().unwrap().value
    }

    #[test]
    fn parses_each_argument_shape() {
        assert_eq!(ok("genclient", Target::Type), Value::Bool(true));
        assert_eq!(
            ok("kubebuilder:object:root=true", Target::Type),
            Value::Bool(true)
        );
        assert_eq!(
            ok("groupName=bcrds.example.com", Target::Package),
            Value::String("bcrds.example.com".into())
        );
        assert_eq!(
            ok("kubebuilder:validation:Minimum=-1.5", Target::Field),
            Value::Number(-1.5)
        );
        assert_eq!(
            ok("kubebuilder:validation:MaxLength=63", Target::Field),
            Value::Int(63)
        );
        assert_eq!(
            ok(
                "kubebuilder:validation:Enum=Ready;\"Not Ready\";Unknown",
                Target::Field
            ),
            Value::List(vec!["Ready".into(), "Not Ready".into(), "Unknown".into()])
        );
        assert_eq!(
            ok("genclient:onlyVerbs=create,get", Target::Type),
            Value::List(vec!["create".into(), "get".into()])
        );
        let Value::Args(args) = ok(
            r#"kubebuilder:printcolumn:name="Ready",type=string,JSONPath=".status.conditions[?(@.type==\"Ready\")].status",priority=1"#,
            Target::Type,
        ) else {
            panic!("expected named args")
        };
        assert_eq!(args["name"], Value::String("Ready".into()));
        assert_eq!(
            args["JSONPath"],
            Value::String(r#".status.conditions[?(@.type=="Ready")].status"#.into())
        );
        assert_eq!(args["priority"], Value::Int(1));
        let Value::Args(args) = ok(
            "genclient:method=GetScale,verb=get,subresource=scale",
            Target::Type,
        ) else {
            panic!("expected named args")
        };
        assert_eq!(args[""], Value::String("GetScale".into()));
        assert_eq!(args["verb"], Value::String("get".into()));
        let Value::Args(args) = ok(
            "kubebuilder:resource:path=examples,shortName=ex;exa,scope=Cluster",
            Target::Type,
        ) else {
            panic!("expected named args")
        };
        assert_eq!(
            args["shortName"],
            Value::List(vec!["ex".into(), "exa".into()])
        );
        assert_eq!(
            ok("kubebuilder:default={a: 1}", Target::Field),
            Value::String("{a: 1}".into())
        );
    }

    #[test]
    fn other_tools_markers_are_ignored() {
        assert_eq!(parse("k8s:deepcopy-gen=package", Target::Package), Ok(None));
        assert_eq!(
            parse(
                "operator-sdk:csv:customresourcedefinitions:type=spec",
                Target::Field
            ),
            Ok(None)
        );
    }

    #[test]
    fn reports_unknown_misplaced_and_malformed_markers() {
        let err = parse("kubebuilder:validation:Minimun=1", Target::Field).unwrap_err();
        assert_eq!(err.code, Code::UnknownMarker);
        assert_eq!(err.hint, "did you mean `+kubebuilder:validation:Minimum`?");

        let err = parse("groupName=x.io", Target::Field).unwrap_err();
        assert_eq!(err.code, Code::MisplacedMarker);

        let err = parse("kubebuilder:validation:MaxLength=ten", Target::Field).unwrap_err();
        assert_eq!(err.code, Code::BadMarkerArgument);
        assert!(err.message.contains("integer"), "{}", err.message);

        let err = parse("kubebuilder:printcolumn:name=Age,JSONPath=.x", Target::Type).unwrap_err();
        assert!(err.message.contains("`type`"), "{}", err.message);

        let err = parse("kubebuilder:resource:scpoe=Cluster", Target::Type).unwrap_err();
        assert!(
            err.message.contains("did you mean `scope`"),
            "{}",
            err.message
        );

        let err = parse("genclient=yes", Target::Type).unwrap_err();
        assert_eq!(err.code, Code::BadMarkerArgument);

        let err = parse("genclient:nonNamespacedd", Target::Type).unwrap_err();
        assert_eq!(err.code, Code::UnknownMarker);
        assert_eq!(err.hint, "did you mean `+genclient:nonNamespaced`?");
    }

    #[test]
    fn extract_separates_prose_and_markers() {
        let lines: Vec<DocLine> = [
            " Example is a kind.",
            "",
            " +genclient",
            " +k8s:deepcopy-gen:interfaces=x",
            " More text.",
            "",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| DocLine {
            text: (*t).to_owned(),
            pos: Pos {
                line: i + 1,
                col: 4,
            },
        })
        .collect();
        let mut diags = Diagnostics::default();
        let out = extract(&lines, Target::Type, "f.rs", &mut diags);
        assert!(!diags.has_errors());
        assert_eq!(out.docs, "Example is a kind.\n\nMore text.");
        assert_eq!(out.markers.len(), 1);
        assert_eq!(out.markers[0].pos, Pos { line: 3, col: 5 });
    }
}
