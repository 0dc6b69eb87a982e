//! The functions a CRD validation rule may call, with their overloads, as kube-apiserver's
//! CEL environment declares them (cel-go's standard library, its `ext.Strings`,
//! `ext.Sets`, `ext.Lists` and optional types, and Kubernetes' own libraries), each
//! with the Kubernetes version whose rules may first use it.
//!
//! Facts from kubernetes/apiserver v0.36.3 `pkg/cel/environment/base.go` (which library
//! each version adds) and `pkg/cel/library/*.go`, and cel-go v0.26.0's
//! `common/stdlib/standard.go` and `ext/*.go` (the overloads). A new CRD's rules are
//! compiled with the environment of the version before the server's (the apiserver's
//! compatibility version), so a library that came with 1.30 is for CRDs written to 1.31.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use super::QUALIFIED_TYPES;
use super::types::{Mapping, Ty};

/// Kubernetes' libraries, as its base environment adds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Library {
    /// cel-go's standard library, and Kubernetes' lists, regex and URL libraries.
    Base,
    /// `ext.Strings` at version 0.
    Strings,
    /// Comparisons of numbers of different types (`1 < 1.5`).
    CrossTypeNumeric,
    Optional,
    Quantity,
    /// `ext.Strings` at version 2: `format`, `strings.quote`, `join`.
    Strings2,
    Sets,
    Ip,
    Cidr,
    Format,
    /// Two-variable `all`, `exists`, `existsOne`, `transformList`, `transformMap`,
    /// `transformMapEntry`.
    TwoVariable,
    Semver,
    /// `ext.Lists` at version 3: `slice`, `flatten`, `sort`, `sortBy`, `lists.range`,
    /// `reverse`, `distinct`.
    Lists3,
}

impl Library {
    /// The first Kubernetes minor version whose environment has it
    /// (`IntroducedVersion`).
    fn introduced(self) -> u16 {
        match self {
            Library::Base | Library::Strings => 0,
            Library::CrossTypeNumeric | Library::Optional | Library::Quantity => 28,
            Library::Strings2 | Library::Sets => 29,
            Library::Ip | Library::Cidr => 30,
            Library::Format => 31,
            Library::TwoVariable => 32,
            Library::Semver => 33,
            Library::Lists3 => 34,
        }
    }
}

/// What a rule written for a Kubernetes version may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Env {
    /// The minor version of the environment rules are compiled in.
    minor: u16,
}

impl Env {
    /// The environment a new CRD's rules are compiled in on a server of Kubernetes
    /// 1.`minor`: that of the version before.
    pub fn for_new_rules(minor: u16) -> Env {
        Env {
            minor: minor.saturating_sub(1),
        }
    }

    /// Every library there is.
    #[cfg(test)]
    pub(crate) fn newest() -> Env {
        Env { minor: u16::MAX }
    }

    /// Whether a reserved word names a field as written (`self.if` for `__if__`), as
    /// environments of 1.31 and later let it (`RecognizeKeywordAsFieldName`).
    pub fn keywords_as_field_names(self) -> bool {
        self.minor >= 31
    }

    fn has(self, library: Library) -> bool {
        library.introduced() <= self.minor
    }

    /// Whether two-variable comprehensions are expanded.
    pub fn two_variable_comprehensions(self) -> bool {
        self.has(Library::TwoVariable)
    }

    /// Whether `sortBy` is expanded.
    pub fn sort_by(self) -> bool {
        self.has(Library::Lists3)
    }

    /// Whether literal durations, timestamps and patterns are checked when a rule is
    /// compiled (cel-go's AST validators, from 1.29).
    pub fn literal_checks(self) -> bool {
        self.minor >= 29
    }

    /// Whether the optional types (and `optMap`, `optFlatMap`, `?.`) are there.
    pub fn optionals(self) -> bool {
        self.has(Library::Optional)
    }
}

/// One overload: the receiver's type for a member function, then the arguments'.
#[derive(Debug)]
pub(crate) struct Overload {
    member: bool,
    params: Vec<Sig>,
    result: Sig,
    library: Library,
}

/// A type in a declaration, its parameters by letter.
#[derive(Clone, Debug)]
enum Sig {
    /// A type of no parameters, by name (`int`, `net.IP`).
    Named(&'static str),
    Param(char),
    List(Box<Sig>),
    Map(Box<Sig>, Box<Sig>),
    Optional(Box<Sig>),
    Type(Box<Sig>),
}

impl Sig {
    fn instantiate<'d>(
        &self,
        params: &mut Vec<(char, Ty<'d>)>,
        mapping: &mut Mapping<'d>,
    ) -> Ty<'d> {
        match self {
            Sig::Named(name) => named(name),
            Sig::Param(letter) => match params.iter().find(|(l, _)| l == letter) {
                Some((_, ty)) => ty.clone(),
                None => {
                    let fresh = mapping.fresh();
                    params.push((*letter, fresh.clone()));
                    fresh
                }
            },
            Sig::List(item) => Ty::list(item.instantiate(params, mapping)),
            Sig::Map(k, v) => Ty::Map(
                Rc::new(k.instantiate(params, mapping)),
                Rc::new(v.instantiate(params, mapping)),
            ),
            Sig::Optional(inner) => Ty::optional(inner.instantiate(params, mapping)),
            Sig::Type(inner) => Ty::Type(Rc::new(inner.instantiate(params, mapping))),
        }
    }
}

/// The declarations: a function's name, its library, and its overloads, `|` between
/// them: `(int, int) int` for a global function, `string.(string) bool` for a member
/// of `string`; `A`, `B`, `K`, `V` are type parameters.
const DECLARATIONS: &[(&str, Library, &str)] = {
    use Library::*;
    &[
        ("_?_:_", Base, "(bool, A, A) A"),
        ("_&&_", Base, "(bool, bool) bool"),
        ("_||_", Base, "(bool, bool) bool"),
        ("!_", Base, "(bool) bool"),
        ("@not_strictly_false", Base, "(bool) bool"),
        ("_==_", Base, "(A, A) bool"),
        ("_!=_", Base, "(A, A) bool"),
        (
            "_+_",
            Base,
            "(bytes, bytes) bytes | (double, double) double | (duration, duration) duration | (duration, timestamp) timestamp | (timestamp, duration) timestamp | (int, int) int | (list(A), list(A)) list(A) | (string, string) string | (uint, uint) uint",
        ),
        (
            "_/_",
            Base,
            "(double, double) double | (int, int) int | (uint, uint) uint",
        ),
        ("_%_", Base, "(int, int) int | (uint, uint) uint"),
        (
            "_*_",
            Base,
            "(double, double) double | (int, int) int | (uint, uint) uint",
        ),
        ("-_", Base, "(double) double | (int) int"),
        (
            "_-_",
            Base,
            "(double, double) double | (duration, duration) duration | (int, int) int | (timestamp, duration) timestamp | (timestamp, timestamp) duration | (uint, uint) uint",
        ),
        ("_<_", Base, ORDERED),
        ("_<=_", Base, ORDERED),
        ("_>_", Base, ORDERED),
        ("_>=_", Base, ORDERED),
        ("_<_", CrossTypeNumeric, MIXED_NUMBERS),
        ("_<=_", CrossTypeNumeric, MIXED_NUMBERS),
        ("_>_", CrossTypeNumeric, MIXED_NUMBERS),
        ("_>=_", CrossTypeNumeric, MIXED_NUMBERS),
        ("_[_]", Base, "(list(A), int) A | (map(A, B), A) B"),
        (
            "_[_]",
            Optional,
            "(optional(list(A)), int) optional(A) | (optional(map(K, V)), K) optional(V)",
        ),
        (
            "_[?_]",
            Optional,
            "(list(A), int) optional(A) | (optional(list(A)), int) optional(A) | (map(K, V), K) optional(V) | (optional(map(K, V)), K) optional(V)",
        ),
        ("@in", Base, "(A, list(A)) bool | (A, map(A, B)) bool"),
        (
            "size",
            Base,
            "(bytes) int | bytes.() int | (list(A)) int | list(A).() int | (map(A, B)) int | map(A, B).() int | (string) int | string.() int",
        ),
        ("type", Base, "(A) type(A)"),
        ("bool", Base, "(bool) bool | (string) bool"),
        ("bytes", Base, "(bytes) bytes | (string) bytes"),
        (
            "double",
            Base,
            "(double) double | (int) double | (string) double | (uint) double",
        ),
        (
            "duration",
            Base,
            "(duration) duration | (int) duration | (string) duration",
        ),
        ("dyn", Base, "(A) dyn"),
        (
            "int",
            Base,
            "(int) int | (double) int | (duration) int | (string) int | (timestamp) int | (uint) int",
        ),
        (
            "string",
            Base,
            "(string) string | (bool) string | (bytes) string | (double) string | (duration) string | (int) string | (timestamp) string | (uint) string",
        ),
        (
            "timestamp",
            Base,
            "(timestamp) timestamp | (int) timestamp | (string) timestamp",
        ),
        (
            "uint",
            Base,
            "(uint) uint | (double) uint | (int) uint | (string) uint",
        ),
        ("contains", Base, "string.(string) bool"),
        ("endsWith", Base, "string.(string) bool"),
        ("startsWith", Base, "string.(string) bool"),
        (
            "matches",
            Base,
            "(string, string) bool | string.(string) bool",
        ),
        ("getFullYear", Base, TIME_PART),
        ("getMonth", Base, TIME_PART),
        ("getDayOfYear", Base, TIME_PART),
        ("getDayOfMonth", Base, TIME_PART),
        ("getDate", Base, TIME_PART),
        ("getDayOfWeek", Base, TIME_PART),
        ("getHours", Base, CLOCK_PART),
        ("getMinutes", Base, CLOCK_PART),
        ("getSeconds", Base, CLOCK_PART),
        ("getMilliseconds", Base, CLOCK_PART),
        // ext.Strings
        ("charAt", Strings, "string.(int) string"),
        (
            "indexOf",
            Strings,
            "string.(string) int | string.(string, int) int",
        ),
        (
            "lastIndexOf",
            Strings,
            "string.(string) int | string.(string, int) int",
        ),
        ("lowerAscii", Strings, "string.() string"),
        ("upperAscii", Strings, "string.() string"),
        (
            "replace",
            Strings,
            "string.(string, string) string | string.(string, string, int) string",
        ),
        (
            "split",
            Strings,
            "string.(string) list(string) | string.(string, int) list(string)",
        ),
        (
            "substring",
            Strings,
            "string.(int) string | string.(int, int) string",
        ),
        ("trim", Strings, "string.() string"),
        ("format", Strings2, "string.(list(dyn)) string"),
        ("strings.quote", Strings2, "(string) string"),
        (
            "join",
            Strings2,
            "list(string).() string | list(string).(string) string",
        ),
        // Kubernetes' lists library
        (
            "isSorted",
            Base,
            "list(int).() bool | list(uint).() bool | list(double).() bool | list(bool).() bool | list(duration).() bool | list(timestamp).() bool | list(string).() bool | list(bytes).() bool",
        ),
        (
            "sum",
            Base,
            "list(int).() int | list(uint).() uint | list(double).() double | list(duration).() duration",
        ),
        ("max", Base, COMPARABLE_EXTREME),
        ("min", Base, COMPARABLE_EXTREME),
        ("indexOf", Base, "list(A).(A) int"),
        ("lastIndexOf", Base, "list(A).(A) int"),
        // Kubernetes' regex and URL libraries
        ("find", Base, "string.(string) string"),
        (
            "findAll",
            Base,
            "string.(string) list(string) | string.(string, int) list(string)",
        ),
        ("url", Base, "(string) kubernetes.URL"),
        ("isURL", Base, "(string) bool"),
        ("getScheme", Base, "kubernetes.URL.() string"),
        ("getHost", Base, "kubernetes.URL.() string"),
        ("getHostname", Base, "kubernetes.URL.() string"),
        ("getPort", Base, "kubernetes.URL.() string"),
        ("getEscapedPath", Base, "kubernetes.URL.() string"),
        (
            "getQuery",
            Base,
            "kubernetes.URL.() map(string, list(string))",
        ),
        // Optional types
        ("optional.of", Optional, "(A) optional(A)"),
        ("optional.ofNonZeroValue", Optional, "(A) optional(A)"),
        ("optional.none", Optional, "() optional(A)"),
        ("optional.unwrap", Optional, "(list(optional(A))) list(A)"),
        ("unwrapOpt", Optional, "list(optional(A)).() list(A)"),
        ("value", Optional, "optional(A).() A"),
        ("hasValue", Optional, "optional(A).() bool"),
        ("or", Optional, "optional(A).(optional(A)) optional(A)"),
        ("orValue", Optional, "optional(A).(A) A"),
        ("first", Optional, "list(A).() optional(A)"),
        ("last", Optional, "list(A).() optional(A)"),
        // Kubernetes' quantity library
        ("quantity", Quantity, "(string) kubernetes.Quantity"),
        ("isQuantity", Quantity, "(string) bool"),
        ("sign", Quantity, "(kubernetes.Quantity) int"),
        (
            "isGreaterThan",
            Quantity,
            "kubernetes.Quantity.(kubernetes.Quantity) bool",
        ),
        (
            "isLessThan",
            Quantity,
            "kubernetes.Quantity.(kubernetes.Quantity) bool",
        ),
        (
            "compareTo",
            Quantity,
            "kubernetes.Quantity.(kubernetes.Quantity) int",
        ),
        (
            "asApproximateFloat",
            Quantity,
            "kubernetes.Quantity.() double",
        ),
        ("asInteger", Quantity, "kubernetes.Quantity.() int"),
        ("isInteger", Quantity, "kubernetes.Quantity.() bool"),
        (
            "add",
            Quantity,
            "kubernetes.Quantity.(kubernetes.Quantity) kubernetes.Quantity | kubernetes.Quantity.(int) kubernetes.Quantity",
        ),
        (
            "sub",
            Quantity,
            "kubernetes.Quantity.(kubernetes.Quantity) kubernetes.Quantity | kubernetes.Quantity.(int) kubernetes.Quantity",
        ),
        // ext.Sets
        ("sets.contains", Sets, "(list(A), list(A)) bool"),
        ("sets.equivalent", Sets, "(list(A), list(A)) bool"),
        ("sets.intersects", Sets, "(list(A), list(A)) bool"),
        // Kubernetes' IP and CIDR libraries
        ("ip", Ip, "(string) net.IP"),
        ("isIP", Ip, "(string) bool"),
        ("ip.isCanonical", Ip, "(string) bool"),
        ("family", Ip, "net.IP.() int"),
        ("isUnspecified", Ip, "net.IP.() bool"),
        ("isLoopback", Ip, "net.IP.() bool"),
        ("isLinkLocalMulticast", Ip, "net.IP.() bool"),
        ("isLinkLocalUnicast", Ip, "net.IP.() bool"),
        ("isGlobalUnicast", Ip, "net.IP.() bool"),
        ("string", Ip, "(net.IP) string"),
        ("cidr", Cidr, "(string) net.CIDR"),
        ("isCIDR", Cidr, "(string) bool"),
        (
            "containsIP",
            Cidr,
            "net.CIDR.(string) bool | net.CIDR.(net.IP) bool",
        ),
        (
            "containsCIDR",
            Cidr,
            "net.CIDR.(string) bool | net.CIDR.(net.CIDR) bool",
        ),
        ("ip", Cidr, "net.CIDR.() net.IP"),
        ("prefixLength", Cidr, "net.CIDR.() int"),
        ("masked", Cidr, "net.CIDR.() net.CIDR"),
        ("string", Cidr, "(net.CIDR) string"),
        // Kubernetes' format library
        ("format.dns1123Label", Format, NAMED_FORMAT),
        ("format.dns1123Subdomain", Format, NAMED_FORMAT),
        ("format.dns1035Label", Format, NAMED_FORMAT),
        ("format.qualifiedName", Format, NAMED_FORMAT),
        ("format.dns1123LabelPrefix", Format, NAMED_FORMAT),
        ("format.dns1123SubdomainPrefix", Format, NAMED_FORMAT),
        ("format.dns1035LabelPrefix", Format, NAMED_FORMAT),
        ("format.labelValue", Format, NAMED_FORMAT),
        ("format.uri", Format, NAMED_FORMAT),
        ("format.uuid", Format, NAMED_FORMAT),
        ("format.byte", Format, NAMED_FORMAT),
        ("format.date", Format, NAMED_FORMAT),
        ("format.datetime", Format, NAMED_FORMAT),
        (
            "format.named",
            Format,
            "(string) optional(kubernetes.NamedFormat)",
        ),
        (
            "validate",
            Format,
            "kubernetes.NamedFormat.(string) optional(list(string))",
        ),
        // Kubernetes' semver library
        (
            "semver",
            Semver,
            "(string) kubernetes.Semver | (string, bool) kubernetes.Semver",
        ),
        ("isSemver", Semver, "(string) bool | (string, bool) bool"),
        (
            "isGreaterThan",
            Semver,
            "kubernetes.Semver.(kubernetes.Semver) bool",
        ),
        (
            "isLessThan",
            Semver,
            "kubernetes.Semver.(kubernetes.Semver) bool",
        ),
        (
            "compareTo",
            Semver,
            "kubernetes.Semver.(kubernetes.Semver) int",
        ),
        ("major", Semver, "kubernetes.Semver.() int"),
        ("minor", Semver, "kubernetes.Semver.() int"),
        ("patch", Semver, "kubernetes.Semver.() int"),
        // ext.Lists
        ("slice", Lists3, "list(A).(int, int) list(A)"),
        (
            "flatten",
            Lists3,
            "list(list(A)).() list(A) | list(dyn).(int) list(dyn)",
        ),
        (
            "sort",
            Lists3,
            "list(int).() list(int) | list(uint).() list(uint) | list(double).() list(double) | list(bool).() list(bool) | list(duration).() list(duration) | list(timestamp).() list(timestamp) | list(string).() list(string) | list(bytes).() list(bytes)",
        ),
        ("lists.range", Lists3, "(int) list(int)"),
        ("reverse", Lists3, "list(A).() list(A)"),
        ("distinct", Lists3, "list(A).() list(A)"),
    ]
};

const ORDERED: &str = "(bool, bool) bool | (int, int) bool | (uint, uint) bool | (double, double) bool | (string, string) bool | (bytes, bytes) bool | (timestamp, timestamp) bool | (duration, duration) bool";
const MIXED_NUMBERS: &str = "(int, double) bool | (int, uint) bool | (uint, double) bool | (uint, int) bool | (double, int) bool | (double, uint) bool";
const TIME_PART: &str = "timestamp.() int | timestamp.(string) int";
const CLOCK_PART: &str = "timestamp.() int | timestamp.(string) int | duration.() int";
const COMPARABLE_EXTREME: &str = "list(int).() int | list(uint).() uint | list(double).() double | list(bool).() bool | list(duration).() duration | list(timestamp).() timestamp | list(string).() string | list(bytes).() bytes";
const NAMED_FORMAT: &str = "() kubernetes.NamedFormat";

/// Every function's overloads, by name.
fn table() -> &'static HashMap<&'static str, Vec<Overload>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Overload>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<&'static str, Vec<Overload>> = HashMap::new();
        for (name, library, overloads) in DECLARATIONS {
            for text in overloads.split('|') {
                let overload = parse_overload(text.trim(), *library)
                    .unwrap_or_else(|| panic!("a malformed declaration of {name}: {text}"));
                table.entry(name).or_default().push(overload);
            }
        }
        table
    })
}

fn parse_overload(text: &str, library: Library) -> Option<Overload> {
    let (receiver, rest) = match text.strip_prefix('(') {
        Some(rest) => (None, rest),
        None => {
            let (receiver, rest) = text.split_once(".(")?;
            (Some(receiver), rest)
        }
    };
    let close = matching_close(rest)?;
    let mut params: Vec<Sig> = receiver
        .map(parse_type)
        .into_iter()
        .collect::<Option<_>>()?;
    for arg in split_top(&rest[..close]) {
        params.push(parse_type(arg)?);
    }
    Some(Overload {
        member: receiver.is_some(),
        params,
        result: parse_type(rest[close + 1..].trim())?,
        library,
    })
}

/// Where the parenthesis open before `text` closes.
fn matching_close(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A comma-separated list, split where no parenthesis is open.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim());
    }
    parts
}

fn parse_type(text: &str) -> Option<Sig> {
    if let Some((head, rest)) = text.split_once('(') {
        let inner = split_top(rest.strip_suffix(')')?);
        let one = |i: usize| parse_type(inner.get(i)?).map(Box::new);
        return match head {
            "list" => Some(Sig::List(one(0)?)),
            "map" => Some(Sig::Map(one(0)?, one(1)?)),
            "optional" => Some(Sig::Optional(one(0)?)),
            "type" => Some(Sig::Type(one(0)?)),
            _ => None,
        };
    }
    match text {
        "A" | "B" | "K" | "V" => text.chars().next().map(Sig::Param),
        name => {
            let name = SCALARS
                .iter()
                .chain(QUALIFIED_TYPES)
                .find(|t| **t == name)?;
            Some(Sig::Named(name))
        }
    }
}

const SCALARS: &[&str] = &[
    "dyn",
    "bool",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "duration",
    "timestamp",
];

/// The type a declaration names.
fn named<'d>(name: &'static str) -> Ty<'d> {
    match name {
        "dyn" => Ty::Dyn,
        "bool" => Ty::Bool,
        "int" => Ty::Int,
        "uint" => Ty::Uint,
        "double" => Ty::Double,
        "string" => Ty::String,
        "bytes" => Ty::Bytes,
        "duration" => Ty::Duration,
        "timestamp" => Ty::Timestamp,
        library => Ty::Opaque(library),
    }
}

/// How a call was resolved.
pub(crate) enum Resolution<'d> {
    /// Its result's type.
    Typed(Ty<'d>),
    /// No function of that name in the environment.
    Undeclared,
    /// The function is there, but no overload takes these types.
    NoOverload,
}

/// The first Kubernetes minor version whose new CRDs' rules may call `name`, when it is
/// a function of some version.
pub fn first_minor_for_new_rules(name: &str) -> Option<u16> {
    let introduced = table()
        .get(name)?
        .iter()
        .map(|o| o.library.introduced())
        .min()?;
    Some(introduced + 1)
}

/// Whether `name` is a function of `env` (whatever its overloads).
pub(crate) fn declared(env: Env, name: &str) -> bool {
    table()
        .get(name)
        .is_some_and(|overloads| overloads.iter().any(|o| env.has(o.library)))
}

/// Resolves a call of `name` on `args` (the receiver first for a member call), as
/// cel-go's checker does: every overload that takes the types counts, and the result
/// is theirs when they agree, else `dyn`.
pub(crate) fn resolve<'d>(
    env: Env,
    name: &str,
    member: bool,
    args: &[Ty<'d>],
    mapping: &mut Mapping<'d>,
) -> Resolution<'d> {
    let Some(overloads) = table().get(name) else {
        return Resolution::Undeclared;
    };
    let mut available = overloads.iter().filter(|o| env.has(o.library)).peekable();
    if available.peek().is_none() {
        return Resolution::Undeclared;
    }
    let mut result: Option<Ty<'d>> = None;
    for overload in available.filter(|o| o.member == member) {
        let mut letters = Vec::new();
        let mut trial = mapping.clone();
        let params: Vec<Ty<'d>> = overload
            .params
            .iter()
            .map(|p| p.instantiate(&mut letters, &mut trial))
            .collect();
        let declared_result = overload.result.instantiate(&mut letters, &mut trial);
        if !trial.bind_all(&params, args) {
            continue;
        }
        *mapping = trial;
        let ty = mapping.substitute(&declared_result, false);
        result = Some(match result {
            None => ty,
            Some(Ty::Dyn) => Ty::Dyn,
            Some(previous) if previous.exact(&ty) => previous,
            Some(_) => Ty::Dyn,
        });
    }
    match result {
        Some(ty) => Resolution::Typed(ty),
        None => Resolution::NoOverload,
    }
}

/// The signature a "no matching overload" error prints: `(int, string)`, or for a
/// member call `string.(int)`.
pub(crate) fn signature(args: &[Ty<'_>], member: bool, mapping: &Mapping<'_>) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|a| mapping.substitute(a, true).to_string())
        .collect();
    match (member, shown.split_first()) {
        (true, Some((receiver, rest))) => format!("{receiver}.({})", rest.join(", ")),
        _ => format!("({})", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(env: Env, name: &str, member: bool, args: &[Ty<'static>]) -> String {
        let mut mapping = Mapping::default();
        match resolve(env, name, member, args, &mut mapping) {
            Resolution::Typed(ty) => ty.to_string(),
            Resolution::Undeclared => "undeclared".into(),
            Resolution::NoOverload => {
                format!("no overload for {}", signature(args, member, &mapping))
            }
        }
    }

    #[test]
    fn every_declaration_parses() {
        assert!(table().values().map(Vec::len).sum::<usize>() > 200);
    }

    #[test]
    fn calls_resolve_as_cel_gos_checker_resolves_them() {
        let env = Env::newest();
        assert_eq!(call(env, "_+_", false, &[Ty::Int, Ty::Int]), "int");
        assert_eq!(
            call(env, "_+_", false, &[Ty::Int, Ty::String]),
            "no overload for (int, string)"
        );
        assert_eq!(call(env, "_+_", false, &[Ty::Dyn, Ty::String]), "string");
        assert_eq!(
            call(env, "_==_", false, &[Ty::String, Ty::Null]),
            "no overload for (string, null)"
        );
        assert_eq!(
            call(env, "contains", true, &[Ty::String, Ty::String]),
            "bool"
        );
        assert_eq!(
            call(env, "contains", false, &[Ty::String, Ty::String]),
            "no overload for (string, string)"
        );
        assert_eq!(
            call(env, "sum", true, &[Ty::list(Ty::String)]),
            "no overload for list(string).()"
        );
        assert_eq!(
            call(env, "_[_]", false, &[Ty::list(Ty::Int), Ty::Int]),
            "int"
        );
        assert_eq!(call(env, "nope", false, &[]), "undeclared");
    }

    #[test]
    fn a_library_is_for_the_crds_of_the_version_after_it_came() {
        // ip() came with Kubernetes 1.30: a 1.30 server's new CRDs may not use it yet.
        assert_eq!(
            call(Env::for_new_rules(30), "ip", false, &[Ty::String]),
            "undeclared"
        );
        assert_eq!(
            call(Env::for_new_rules(31), "ip", false, &[Ty::String]),
            "net.IP"
        );
        assert_eq!(
            call(Env::for_new_rules(28), "_<_", false, &[Ty::Int, Ty::Double]),
            "no overload for (int, double)"
        );
        assert_eq!(
            call(Env::for_new_rules(29), "_<_", false, &[Ty::Int, Ty::Double]),
            "bool"
        );
        assert_eq!(first_minor_for_new_rules("ip"), Some(31));
        assert_eq!(first_minor_for_new_rules("size"), Some(1));
        assert_eq!(first_minor_for_new_rules("nope"), None);
    }
}
