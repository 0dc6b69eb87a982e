//! What kube-apiserver fixes about CRD validation rules (`x-kubernetes-validations`),
//! shared by crdgen, which checks rules when it writes a CRD, and crdgen-runtime, which
//! evaluates them: how a property's name is spelled in CEL, the cost limits, and (the
//! `check` feature) the compiler's reading of a rule against its schema: its types and
//! estimated cost.

#[cfg(feature = "check")]
pub mod check;
#[cfg(feature = "check")]
pub mod compile;
#[cfg(feature = "check")]
mod cost;
#[cfg(feature = "check")]
pub mod decl;
#[cfg(feature = "check")]
pub mod field_path;
#[cfg(feature = "check")]
pub mod functions;
#[cfg(feature = "check")]
mod literals;
#[cfg(feature = "check")]
mod position;
#[cfg(feature = "check")]
pub mod tree;
#[cfg(feature = "check")]
mod types;

use std::borrow::Cow;

/// cel-go's cost factors, which runtime costs are counted by as estimates are.
#[cfg(feature = "check")]
pub use cost::{LIST, MAP, REGEX, TRAVERSAL};

/// The largest request the apiserver takes (3 MiB): what it sizes unbounded lists, maps
/// and strings from when it estimates a rule's cost.
pub const MAX_REQUEST_SIZE_BYTES: u64 = 3 * 1024 * 1024;

/// The most one rule may cost, as estimated when the CRD is written.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;

/// The most all the rules of one CRD version's schema may cost together, as estimated.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// The longest object name (a DNS subdomain's 253 characters): from Kubernetes 1.37 the
/// apiserver sizes a resource's `metadata.name` by it when it estimates a rule's cost,
/// and its `generateName` one shorter, as the generated suffix takes at least one.
pub const NAME_MAX_LENGTH: u64 = 253;

/// The first Kubernetes minor version to size names so, rather than as a whole request.
pub const NAMES_BOUNDED_SINCE_MINOR: u16 = 37;

/// The most one evaluation of a rule may cost, as the apiserver counts it while running.
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// The most the rules of one object's write may cost together, counted while running.
pub const RUNTIME_COST_BUDGET: u64 = 10_000_000;

/// The types a rule names with a dot (`type(x) == net.IP`).
pub const QUALIFIED_TYPES: &[&str] = &[
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "net.IP",
    "net.CIDR",
    "kubernetes.Quantity",
    "kubernetes.URL",
    "kubernetes.Semver",
    "kubernetes.NamedFormat",
];

/// Names CEL reserves: a property so named is `__name__` in a rule.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Whether `name` is a CEL reserved word (`if`, `namespace`), escaped as `__name__`.
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// A property's name as a rule spells it (the apiserver's `Escape`): reserved words as
/// `__word__`, and `__`, `.`, `-`, `/` as `__underscores__`, `__dot__`, `__dash__`,
/// `__slash__`. `None` for a name no rule can reach (empty, a leading digit, any other
/// character); the apiserver leaves such a property out of `self`.
pub fn escape(name: &str) -> Option<Cow<'_, str>> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if is_reserved(name) {
        return Some(Cow::Owned(format!("__{name}__")));
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if !name
        .chars()
        .all(|c| plain(c) || matches!(c, '-' | '.' | '/'))
    {
        return None;
    }
    if name.chars().all(plain) && !name.contains("__") {
        return Some(Cow::Borrowed(name));
    }
    let mut out = String::with_capacity(name.len() + 8);
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            other => out.push(other),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn names_are_escaped_as_the_apiserver_escapes_them() {
        let cases = [
            ("replicas", Some("replicas")),
            ("my_field", Some("my_field")),
            ("namespace", Some("__namespace__")),
            ("foo-bar", Some("foo__dash__bar")),
            ("a.b", Some("a__dot__b")),
            ("x/y", Some("x__slash__y")),
            ("a__b", Some("a__underscores__b")),
            ("a___b", Some("a__underscores___b")),
            ("example.com/owner", Some("example__dot__com__slash__owner")),
            ("1st", None),
            ("", None),
            ("a b", None),
            ("ü", None),
        ];
        for (name, want) in cases {
            assert_eq!(escape(name).as_deref(), want, "{name}");
        }
    }
}
