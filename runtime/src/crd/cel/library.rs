//! What crdgen adds to kube-cel's environment so that rules evaluate as kube-apiserver's
//! CEL environment evaluates them: `type()` and the type names, `dyn()`, the
//! two-variable comprehensions (`all`, `exists`, `existsOne`, `transformList`,
//! `transformMap`, `transformMapEntry`), `sortBy`, `cel.bind`, `optMap` and
//! `optFlatMap`, `string()` of every standard type in cel-go's form, and the operators
//! [`super::rewrite`] points at: CEL's equality (optionals included) and its
//! commutative `&&` and `||`.
//!
//! Each is written against the `cel` crate's public function interface, ready to move
//! upstream, rather than in a fork of it.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::extractors::{Identifier, This};
use kube_cel::cel::objects::{Key, Map, Opaque, OptionalValue};
use kube_cel::cel::common::ast::Expr;
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

/// Type names bound as variables; those with a dot are made one identifier by
/// [`super::rewrite`].
const TYPES: &[&str] = &[
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
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "net.IP",
    "net.CIDR",
    "kubernetes.Quantity",
    "kubernetes.URL",
    "kubernetes.Semver",
    "kubernetes.Format",
];

/// The qualified names among [`TYPES`].
pub(super) const QUALIFIED_TYPES: &[&str] = &[
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "net.IP",
    "net.CIDR",
    "kubernetes.Quantity",
    "kubernetes.URL",
    "kubernetes.Semver",
    "kubernetes.Format",
];

const EQ: &str = "@eq";
const NE: &str = "@ne";
const AND: &str = "@and";
const OR: &str = "@or";

/// The function an operator is evaluated by instead of the interpreter's own.
pub(super) fn operator(name: &str) -> Option<&'static str> {
    match name {
        "_==_" => Some(EQ),
        "_!=_" => Some(NE),
        "_&&_" => Some(AND),
        "_||_" => Some(OR),
        _ => None,
    }
}

/// Adds everything above to `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    for name in TYPES {
        ctx.add_variable_from_value(*name, Value::Opaque(Arc::new(Type(name))));
    }
    ctx.add_function("type", type_of);
    ctx.add_function("dyn", dyn_value);
    ctx.add_function(EQ, |a: Value, b: Value| equal(&a, &b));
    ctx.add_function(NE, |a: Value, b: Value| !equal(&a, &b));
    ctx.add_function(AND, |ftx: &FunctionContext| logic(ftx, false));
    ctx.add_function(OR, |ftx: &FunctionContext| logic(ftx, true));
    ctx.add_function("all", |ftx: &FunctionContext| quantifier(ftx, Quantifier::All));
    ctx.add_function("exists", |ftx: &FunctionContext| {
        quantifier(ftx, Quantifier::Exists)
    });
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
    ctx.add_function("sortBy", sort_by);
    ctx.add_function("cel.bind", bind);
    ctx.add_function("optMap", |ftx: &FunctionContext| opt_map(ftx, false));
    ctx.add_function("optFlatMap", |ftx: &FunctionContext| opt_map(ftx, true));
}

/// `dyn(x)`: `x`, its static type forgotten (which evaluation never knew).
fn dyn_value(This(value): This<Value>) -> ResolveResult {
    Ok(value)
}

/// `type(x)`.
fn type_of(ftx: &FunctionContext, value: Value) -> ResolveResult {
    if ftx.this.is_some() {
        return Err(ftx.error("no such overload"));
    }
    Ok(Value::Opaque(Arc::new(Type(type_name(&value)))))
}

fn type_name(value: &Value) -> &'static str {
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
            TYPES.iter().copied().find(|t| *t == name).unwrap_or("dyn")
        }
    }
}

/// CEL's equality: numbers by value across int, uint and double; lists and maps element
/// by element; optionals by their values; nothing equal to a value of another type.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| equal(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.map.len() == y.map.len()
                && x.map
                    .iter()
                    .all(|(k, v)| y.map.get(k).is_some_and(|w| equal(v, w)))
        }
        (Value::Opaque(x), Value::Opaque(y)) => match (optional(a), optional(b)) {
            (Some(x), Some(y)) => match (x.value(), y.value()) {
                (Some(x), Some(y)) => equal(x, y),
                (None, None) => true,
                _ => false,
            },
            (None, None) => x.opaque_eq(y.as_ref()),
            _ => false,
        },
        _ => a == b,
    }
}

fn optional(value: &Value) -> Option<&OptionalValue> {
    <&OptionalValue>::try_from(value).ok()
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

/// The two variables' names, and the expressions after them.
fn two_vars<'a>(
    ftx: &'a FunctionContext,
) -> Result<(String, String, &'a [Expression]), ExecutionError> {
    let name = |i: usize| match ftx.args.get(i).map(|a| &a.expr) {
        Some(Expr::Ident(n)) => Ok(n.clone()),
        _ => Err(ftx.error(format!("{}() variable name must be a simple identifier", ftx.name))),
    };
    if ftx.args.len() < 3 {
        return Err(ExecutionError::invalid_argument_count(3, ftx.args.len()));
    }
    Ok((name(0)?, name(1)?, &ftx.args[2..]))
}

/// Evaluates `expr` with the two variables bound.
fn with_pair(
    ftx: &FunctionContext,
    names: (&str, &str),
    pair: &(Value, Value),
    expr: &Expression,
) -> ResolveResult {
    let mut scope = ftx.ptx.new_inner_scope();
    scope.add_variable_from_value(names.0, pair.0.clone());
    scope.add_variable_from_value(names.1, pair.1.clone());
    scope.resolve(expr)
}

#[derive(Clone, Copy)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

/// `all`, `exists` and `existsOne` of two variables; `all` and `exists` decide over an
/// error in another element as cel-go's macros do.
fn quantifier(ftx: &FunctionContext, q: Quantifier) -> ResolveResult {
    let (i, v, rest) = two_vars(ftx)?;
    let [predicate] = rest else {
        return Err(ExecutionError::invalid_argument_count(3, ftx.args.len()));
    };
    let mut error = None;
    let mut count = 0;
    for pair in pairs(ftx.this.as_ref())? {
        match (with_pair(ftx, (&i, &v), &pair, predicate), q) {
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
) -> Result<
    (
        Option<&'a Expression>,
        &'a Expression,
    ),
    ExecutionError,
> {
    match rest {
        [transform] => Ok((None, transform)),
        [filter, transform] => Ok((Some(filter), transform)),
        _ => Err(ExecutionError::invalid_argument_count(4, ftx.args.len())),
    }
}

fn kept(
    ftx: &FunctionContext,
    names: (&str, &str),
    pair: &(Value, Value),
    filter: Option<&Expression>,
) -> Result<bool, ExecutionError> {
    match filter.map(|f| with_pair(ftx, names, pair, f)).transpose()? {
        None | Some(Value::Bool(true)) => Ok(true),
        Some(Value::Bool(false)) => Ok(false),
        Some(_) => Err(ExecutionError::NoSuchOverload),
    }
}

/// `transformList(i, v, [filter,] expr)`.
fn transform_list(ftx: &FunctionContext) -> ResolveResult {
    let (i, v, rest) = two_vars(ftx)?;
    let (filter, transform) = filter_and_transform(ftx, rest)?;
    let mut out = Vec::new();
    for pair in pairs(ftx.this.as_ref())? {
        if kept(ftx, (&i, &v), &pair, filter)? {
            out.push(with_pair(ftx, (&i, &v), &pair, transform)?);
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// `transformMap(k, v, [filter,] expr)`, and `transformMapEntry` (`entries`), whose
/// expression gives a map of entries to add.
fn transform_map(ftx: &FunctionContext, entries: bool) -> ResolveResult {
    let (k, v, rest) = two_vars(ftx)?;
    let (filter, transform) = filter_and_transform(ftx, rest)?;
    let mut out: HashMap<Key, Value> = HashMap::new();
    for pair in pairs(ftx.this.as_ref())? {
        if !kept(ftx, (&k, &v), &pair, filter)? {
            continue;
        }
        let value = with_pair(ftx, (&k, &v), &pair, transform)?;
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
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
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
fn sort_by(ftx: &FunctionContext, This(list): This<Arc<Vec<Value>>>, e: Identifier) -> ResolveResult {
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
    Ok(Value::List(Arc::new(keyed.into_iter().map(|(_, v)| v).collect())))
}

/// `cel.bind(name, init, expr)`.
fn bind(ftx: &FunctionContext, name: Identifier) -> ResolveResult {
    let [_, init, expr] = ftx.args else {
        return Err(ExecutionError::invalid_argument_count(3, ftx.args.len()));
    };
    let value = ftx.ptx.resolve(init)?;
    let mut scope = ftx.ptx.new_inner_scope();
    scope.add_variable_from_value(name.0.as_str(), value);
    scope.resolve(expr)
}

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
        return Err(ftx.error(format!("{}() variable name must be a simple identifier", ftx.name)));
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
