//! What crdgen adds to kube-cel's environment so that rules evaluate as kube-apiserver's
//! CEL environment evaluates them: `type()` and the type names, `dyn()`, the
//! two-variable comprehensions (`all`, `exists`, `existsOne`, `transformList`,
//! `transformMap`, `transformMapEntry`), `sortBy`, `optMap` and
//! `optFlatMap`, `string()` of every standard type in cel-go's form, and the operators
//! [`super::rewrite`] points at: CEL's equality (optionals included), its commutative
//! `&&` and `||`, and optional field selection (`x.?field`).
//!
//! Each is written against the `cel` crate's public function interface, ready to move
//! upstream, rather than in a fork of it.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::common::ast::Expr;
use kube_cel::cel::extractors::{Identifier, This};
use kube_cel::cel::objects::{Key, Map, Opaque, OptionalValue};

use super::bindings::{Bindings, call};
use super::equality::{equal, optional};
use kube_cel::cel::parser::Expression;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

/// A CEL type, the value of `type(x)` and of a type's name (`int`, `net.IP`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Type(pub &'static str);

impl Opaque for Type {
    fn runtime_type_name(&self) -> &str {
        "type"
    }
}

/// Type names bound as variables (with the qualified ones, which [`super::rewrite`]
/// makes one identifier each).
const SIMPLE_TYPES: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "optional_type",
];

/// Every type name: the simple ones and the qualified ones (`net.IP`).
fn type_names() -> impl Iterator<Item = &'static str> {
    SIMPLE_TYPES
        .iter()
        .chain(crdgen_apimachinery::cel::QUALIFIED_TYPES)
        .copied()
}

const EQ: &str = "@eq";
const NE: &str = "@ne";
pub(super) const AND: &str = "@and";
pub(super) const OR: &str = "@or";
const STRING: &str = "@string";
/// `x.?field`, and a field of an optional `oldSelf`.
pub(super) const OPTIONAL_SELECT: &str = "@optSelect";
/// The one-variable `all` and `exists` macros, rewritten to calls.
pub(super) const ALL: &str = "@all";
pub(super) const EXISTS: &str = "@exists";

/// The function an operator is evaluated by instead of the interpreter's own.
pub(super) fn operator(name: &str) -> Option<&'static str> {
    match name {
        "_==_" => Some(EQ),
        "_!=_" => Some(NE),
        "_&&_" => Some(AND),
        "_||_" => Some(OR),
        "string" => Some(STRING),
        "_?._" => Some(OPTIONAL_SELECT),
        _ => None,
    }
}

/// The operator a function of [`operator`]'s stands for.
pub(super) fn operator_of(name: &str) -> Option<&'static str> {
    match name {
        EQ => Some("_==_"),
        NE => Some("_!=_"),
        AND => Some("_&&_"),
        OR => Some("_||_"),
        STRING => Some("string"),
        OPTIONAL_SELECT => Some("_?._"),
        _ => None,
    }
}

/// Whether `name` is a type's (`int`, `net.IP`).
pub(super) fn is_type_name(name: &str) -> bool {
    type_names().any(|t| t == name)
}

/// Adds everything above to `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    for name in type_names() {
        ctx.add_variable_from_value(name, Value::Opaque(Arc::new(Type(name))));
    }
    ctx.add_function("type", type_of);
    ctx.add_function("size", size);
    ctx.add_function(STRING, string);
    ctx.add_function("dyn", dyn_value);
    ctx.add_function(EQ, |a: Value, b: Value| equal(&a, &b));
    ctx.add_function(NE, |a: Value, b: Value| !equal(&a, &b));
    ctx.add_function(AND, |ftx: &FunctionContext| logic(ftx, false));
    ctx.add_function(OR, |ftx: &FunctionContext| logic(ftx, true));
    for name in ["all", ALL] {
        ctx.add_function(name, |ftx: &FunctionContext| {
            quantifier(ftx, Quantifier::All)
        });
    }
    for name in ["exists", EXISTS] {
        ctx.add_function(name, |ftx: &FunctionContext| {
            quantifier(ftx, Quantifier::Exists)
        });
    }
    ctx.add_function("existsOne", |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::ExistsOne)
    });
    ctx.add_function("exists_one", |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::ExistsOne)
    });
    ctx.add_function("transformList", transform_list);
    ctx.add_function("transformMap", |ftx: &FunctionContext| {
        transform_map(ftx, false)
    });
    ctx.add_function("transformMapEntry", |ftx: &FunctionContext| {
        transform_map(ftx, true)
    });
    ctx.add_function(OPTIONAL_SELECT, optional_select);
    ctx.add_function("sortBy", sort_by);
    ctx.add_function("optMap", |ftx: &FunctionContext| opt_map(ftx, false));
    ctx.add_function("optional.ofNonZeroValue", of_non_zero_value);
    ctx.add_function("optFlatMap", |ftx: &FunctionContext| opt_map(ftx, true));
}

/// `dyn(x)`: `x`, its static type forgotten (which evaluation never knew).
fn dyn_value(This(value): This<Value>) -> ResolveResult {
    Ok(value)
}

/// `size(x)`, `x.size()`: a string's length in code points, as CEL counts it.
fn size(ftx: &FunctionContext, This(this): This<Value>) -> ResolveResult {
    let n = match &this {
        Value::String(s) => s.chars().count(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.map.len(),
        Value::Bytes(b) => b.len(),
        _ => return Err(ftx.error("no such overload")),
    };
    Ok(Value::Int(n as i64))
}

/// `string(x)` as cel-go converts: booleans, Go's durations in seconds (`3723.004s`),
/// timestamps in RFC 3339 with as many fraction digits as they need, bytes that are
/// UTF-8; IPs, CIDRs and the rest by their own `string` (kube-cel's).
fn string(ftx: &FunctionContext, This(this): This<Value>) -> ResolveResult {
    if let Value::String(_) = this {
        return Ok(this);
    }
    match standard_string(&this) {
        Some(Ok(text)) => Ok(Value::String(Arc::new(text))),
        Some(Err(message)) => Err(ftx.error(message)),
        None => kube_cel_string(ftx, this),
    }
}

/// `string(x)` of a standard type as cel-go converts it; `None` for the others (IPs,
/// CIDRs: kube-cel's).
pub(super) fn standard_string(value: &Value) -> Option<Result<String, String>> {
    Some(Ok(match value {
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => go_g(*f),
        Value::Bytes(b) => match String::from_utf8(b.to_vec()) {
            Ok(text) => text,
            Err(_) => {
                return Some(Err(
                    "invalid UTF-8 in bytes, cannot convert to string".to_owned()
                ));
            }
        },
        Value::Duration(d) => seconds(d),
        Value::Timestamp(t) => rfc3339_nano(t),
        _ => return None,
    }))
}
/// A timestamp as Go's `time.RFC3339Nano` writes it: in its own offset (`Z` for UTC),
/// with the fraction of a second it has and no trailing zeros (`19:03:37.01+01:00`).
fn rfc3339_nano(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
    use chrono::Timelike as _;
    let mut text = t.format("%Y-%m-%dT%H:%M:%S").to_string();
    let nanos = t.nanosecond() % 1_000_000_000;
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    match t.offset().local_minus_utc() {
        0 => text.push('Z'),
        _ => text.push_str(&t.format("%:z").to_string()),
    }
    text
}

/// kube-cel's `string(value)`, for the types it knows (IPs, CIDRs).
fn kube_cel_string(ftx: &FunctionContext, value: Value) -> ResolveResult {
    let mut bound = Bindings::new();
    let arg = bound.bind(value);
    bound.resolve(&call("string", None, vec![arg]), ftx.ptx)
}

/// A duration as cel-go writes it: seconds, with the fraction it has.
fn seconds(d: &chrono::Duration) -> String {
    let nanos = d.num_nanoseconds().unwrap_or(i64::MAX);
    let whole = nanos / 1_000_000_000;
    let fraction = (nanos % 1_000_000_000).unsigned_abs();
    let sign = if nanos < 0 && whole == 0 { "-" } else { "" };
    match fraction {
        0 => format!("{sign}{whole}s"),
        f => {
            let digits = format!("{f:09}");
            format!("{sign}{whole}.{}s", digits.trim_end_matches('0'))
        }
    }
}

/// Go's `%g` of a double, as cel-go converts one to a string.
pub(super) fn go_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let exponent = if f == 0.0 {
        0
    } else {
        f.abs().log10().floor() as i32
    };
    if (-4..21).contains(&exponent) {
        return f.to_string();
    }
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// `type(x)`.
fn type_of(ftx: &FunctionContext, value: Value) -> ResolveResult {
    if ftx.this.is_some() {
        return Err(ftx.error("no such overload"));
    }
    Ok(Value::Opaque(Arc::new(Type(type_name(&value)))))
}

pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Function(..) => "function",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::Null => "null_type",
        Value::Opaque(o) => {
            let name = o.runtime_type_name();
            type_names().find(|t| *t == name).unwrap_or("dyn")
        }
    }
}

/// `&&` (`short` false) and `||` (`short` true): the value that decides wins over an
/// error on either side; otherwise the first error.
fn logic(ftx: &FunctionContext, short: bool) -> ResolveResult {
    let side = |i: usize| -> Result<bool, ExecutionError> {
        match ftx.ptx.resolve(&ftx.args[i])? {
            Value::Bool(b) => Ok(b),
            _ => Err(ExecutionError::NoSuchOverload),
        }
    };
    let left = side(0);
    if matches!(left, Ok(b) if b == short) {
        return Ok(Value::Bool(short));
    }
    let right = side(1);
    match (left, right) {
        (_, Ok(b)) if b == short => Ok(Value::Bool(short)),
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(_), Ok(_)) => Ok(Value::Bool(!short)),
    }
}

/// A list's items by index, or a map's entries by key: the pairs a two-variable
/// comprehension binds.
fn pairs(target: Option<&Value>) -> Result<Vec<(Value, Value)>, ExecutionError> {
    match target {
        Some(Value::List(items)) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| (Value::Int(i as i64), v.clone()))
            .collect()),
        Some(Value::Map(map)) => {
            let mut entries: Vec<(Value, Value)> = map
                .map
                .iter()
                .map(|(k, v)| (Value::from(k.clone()), v.clone()))
                .collect();
            entries.sort_by(|(a, _), (b, _)| compare(a, b).unwrap_or(Ordering::Equal));
            Ok(entries)
        }
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// The variables a comprehension binds: one (a list's items, a map's keys) or two (an
/// index or key, and the value), named by its first arguments.
struct Vars<'a> {
    names: Vec<&'a str>,
    rest: &'a [Expression],
}

impl<'a> Vars<'a> {
    /// `count` names first, then the expressions.
    fn of(ftx: &'a FunctionContext, count: usize) -> Result<Vars<'a>, ExecutionError> {
        if ftx.args.len() <= count {
            return Err(ExecutionError::invalid_argument_count(
                count + 1,
                ftx.args.len(),
            ));
        }
        let names = ftx.args[..count]
            .iter()
            .map(|a| match &a.expr {
                Expr::Ident(n) => Ok(n.as_str()),
                _ => Err(ftx.error(format!(
                    "{}() variable name must be a simple identifier",
                    ftx.name
                ))),
            })
            .collect::<Result<_, _>>()?;
        Ok(Vars {
            names,
            rest: &ftx.args[count..],
        })
    }

    /// Evaluates `expr` with the variables bound to `pair`.
    fn eval(
        &self,
        ftx: &FunctionContext,
        pair: &(Value, Value),
        expr: &Expression,
    ) -> ResolveResult {
        let mut scope = ftx.ptx.new_inner_scope();
        match self.names[..] {
            [one] => {
                let value = match ftx.this {
                    Some(Value::Map(_)) => &pair.0,
                    _ => &pair.1,
                };
                scope.add_variable_from_value(one, value.clone());
            }
            [first, second, ..] => {
                scope.add_variable_from_value(first, pair.0.clone());
                scope.add_variable_from_value(second, pair.1.clone());
            }
            [] => {}
        }
        scope.resolve(expr)
    }
}

#[derive(Clone, Copy)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

/// `all`, `exists` and `existsOne`, of one variable (the macros, as [`super::rewrite`]
/// points them here) or two; `all` and `exists` decide over an error in another element,
/// as cel-go's do.
fn quantifier(ftx: &FunctionContext, q: Quantifier) -> ResolveResult {
    let vars = Vars::of(ftx, ftx.args.len().saturating_sub(1))?;
    let [predicate] = vars.rest else {
        return Err(ExecutionError::invalid_argument_count(3, ftx.args.len()));
    };
    let mut error = None;
    let mut count = 0;
    for pair in pairs(ftx.this.as_ref())? {
        match (vars.eval(ftx, &pair, predicate), q) {
            (Ok(Value::Bool(false)), Quantifier::All) => return Ok(Value::Bool(false)),
            (Ok(Value::Bool(true)), Quantifier::Exists) => return Ok(Value::Bool(true)),
            (Ok(Value::Bool(true)), Quantifier::ExistsOne) => count += 1,
            (Ok(Value::Bool(_)), _) => {}
            (Ok(_), _) => return Err(ExecutionError::NoSuchOverload),
            (Err(e), Quantifier::ExistsOne) => return Err(e),
            (Err(e), _) => {
                error.get_or_insert(e);
            }
        }
    }
    match (error, q) {
        (Some(e), _) => Err(e),
        (None, Quantifier::All) => Ok(Value::Bool(true)),
        (None, Quantifier::Exists) => Ok(Value::Bool(false)),
        (None, Quantifier::ExistsOne) => Ok(Value::Bool(count == 1)),
    }
}

/// The filter (when there are two expressions) and the transform.
fn filter_and_transform<'a>(
    ftx: &FunctionContext,
    rest: &'a [Expression],
) -> Result<(Option<&'a Expression>, &'a Expression), ExecutionError> {
    match rest {
        [transform] => Ok((None, transform)),
        [filter, transform] => Ok((Some(filter), transform)),
        _ => Err(ExecutionError::invalid_argument_count(4, ftx.args.len())),
    }
}

fn kept(
    ftx: &FunctionContext,
    vars: &Vars<'_>,
    pair: &(Value, Value),
    filter: Option<&Expression>,
) -> Result<bool, ExecutionError> {
    match filter.map(|f| vars.eval(ftx, pair, f)).transpose()? {
        None | Some(Value::Bool(true)) => Ok(true),
        Some(Value::Bool(false)) => Ok(false),
        Some(_) => Err(ExecutionError::NoSuchOverload),
    }
}

/// `transformList(i, v, [filter,] expr)`.
fn transform_list(ftx: &FunctionContext) -> ResolveResult {
    let vars = Vars::of(ftx, 2)?;
    let (filter, transform) = filter_and_transform(ftx, vars.rest)?;
    let mut out = Vec::new();
    for pair in pairs(ftx.this.as_ref())? {
        if kept(ftx, &vars, &pair, filter)? {
            out.push(vars.eval(ftx, &pair, transform)?);
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// `transformMap(k, v, [filter,] expr)`, and `transformMapEntry` (`entries`), whose
/// expression gives a map of entries to add.
fn transform_map(ftx: &FunctionContext, entries: bool) -> ResolveResult {
    let vars = Vars::of(ftx, 2)?;
    let (filter, transform) = filter_and_transform(ftx, vars.rest)?;
    let mut out: HashMap<Key, Value> = HashMap::new();
    for pair in pairs(ftx.this.as_ref())? {
        if !kept(ftx, &vars, &pair, filter)? {
            continue;
        }
        let value = vars.eval(ftx, &pair, transform)?;
        if !entries {
            out.insert(key(&pair.0)?, value);
            continue;
        }
        let Value::Map(added) = value else {
            return Err(ExecutionError::NoSuchOverload);
        };
        for (key, value) in added.map.iter() {
            if out.insert(key.clone(), value.clone()).is_some() {
                return Err(ftx.error(format!(
                    "insert failed: key {} already exists",
                    key_text(key)
                )));
            }
        }
    }
    Ok(Value::Map(Map { map: Arc::new(out) }))
}

fn key(value: &Value) -> Result<Key, ExecutionError> {
    match value {
        Value::Int(i) => Ok(Key::Int(*i)),
        Value::UInt(u) => Ok(Key::Uint(*u)),
        Value::Bool(b) => Ok(Key::Bool(*b)),
        Value::String(s) => Ok(Key::String(s.clone())),
        other => Err(ExecutionError::UnsupportedKeyType(other.clone())),
    }
}

/// The order of two values of one comparable type.
pub(super) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::UInt(x), Value::UInt(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// `list.sortBy(e, key)`: the items in the order of their keys, stable.
fn sort_by(
    ftx: &FunctionContext,
    This(list): This<Arc<Vec<Value>>>,
    e: Identifier,
) -> ResolveResult {
    let [_, key_expr] = ftx.args else {
        return Err(ExecutionError::invalid_argument_count(2, ftx.args.len()));
    };
    let mut keyed = Vec::with_capacity(list.len());
    for item in list.iter() {
        let mut scope = ftx.ptx.new_inner_scope();
        scope.add_variable_from_value(e.0.as_str(), item.clone());
        keyed.push((scope.resolve(key_expr)?, item.clone()));
    }
    if let Some(((a, _), _)) = keyed
        .iter()
        .zip(keyed.iter().skip(1))
        .find(|((a, _), (b, _))| compare(a, b).is_none())
    {
        return Err(ftx.error(format!(
            "sortBy keys must be of one comparable type, not {}",
            type_name(a)
        )));
    }
    keyed.sort_by(|(a, _), (b, _)| compare(a, b).unwrap_or(Ordering::Equal));
    Ok(Value::List(Arc::new(
        keyed.into_iter().map(|(_, v)| v).collect(),
    )))
}

/// `x.?field`: the field's value as an optional, none where `x` has no such field or
/// is itself none (the interpreter fails on a missing field).
fn optional_select(ftx: &FunctionContext) -> ResolveResult {
    let [operand, field] = ftx.args else {
        return Err(ExecutionError::invalid_argument_count(2, ftx.args.len()));
    };
    let operand = ftx.ptx.resolve(operand)?;
    let Value::String(field) = ftx.ptx.resolve(field)? else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let target = match optional(&operand) {
        Some(opt) => match opt.value() {
            Some(value) => value.clone(),
            None => return Ok(operand.clone()),
        },
        None => operand,
    };
    let Value::Map(map) = target else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let found = map.map.get(&Key::String(field)).cloned();
    Ok(Value::Opaque(Arc::new(match found {
        Some(value) => OptionalValue::of(value),
        None => OptionalValue::none(),
    })))
}

/// `optional.ofNonZeroValue(x)`: none for a type's zero value, a timestamp's too (Go's
/// zero time, `0001-01-01T00:00:00Z`, which the interpreter does not count as one).
fn of_non_zero_value(value: Value) -> ResolveResult {
    let zero_time = matches!(&value, Value::Timestamp(t) if t.timestamp() == GO_ZERO_TIME && t.timestamp_subsec_nanos() == 0);
    Ok(Value::Opaque(Arc::new(
        match value.is_zero() || zero_time {
            true => OptionalValue::none(),
            false => OptionalValue::of(value),
        },
    )))
}

/// Go's zero `time.Time`, `0001-01-01T00:00:00Z`, in seconds since the Unix epoch.
const GO_ZERO_TIME: i64 = -62_135_596_800;

/// `opt.optMap(v, expr)` (`flat`: `optFlatMap`, whose expression gives an optional).
fn opt_map(ftx: &FunctionContext, flat: bool) -> ResolveResult {
    let (Some(this), [name, expr]) = (ftx.this.as_ref(), ftx.args) else {
        return Err(ExecutionError::invalid_argument_count(2, ftx.args.len()));
    };
    let Some(opt) = optional(this) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let Some(value) = opt.value() else {
        return Ok(this.clone());
    };
    let Expr::Ident(name) = &name.expr else {
        return Err(ftx.error(format!(
            "{}() variable name must be a simple identifier",
            ftx.name
        )));
    };
    let mut scope = ftx.ptx.new_inner_scope();
    scope.add_variable_from_value(name.as_str(), value.clone());
    let result = scope.resolve(expr)?;
    match flat {
        true if optional(&result).is_some() => Ok(result),
        true => Err(ExecutionError::NoSuchOverload),
        false => Ok(Value::Opaque(Arc::new(OptionalValue::of(result)))),
    }
}

/// A map key as an error names it.
fn key_text(key: &Key) -> String {
    match key {
        Key::String(s) => s.to_string(),
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => u.to_string(),
        Key::Bool(b) => b.to_string(),
    }
}
