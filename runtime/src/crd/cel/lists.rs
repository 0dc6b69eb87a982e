//! List functions as cel-go's `ext.Lists` and Kubernetes' lists library evaluate them,
//! where kube-cel's differ: `slice` and `flatten` fail in cel-go's words, and `sum`
//! adds durations too, `isSorted`, `max` and `min` order bytes and timestamps too; and `==`, `!=` and `+` on a set or map list of the object, which
//! compare and concatenate by its list type as the apiserver's values of it do
//! (apiserver's `unstructuredSetList` and `unstructuredMapList`).

use std::cmp::Ordering;
use std::sync::Arc;

use kube_cel::cel::common::ast::{Expr, IdedExpr, ListExpr, LiteralValue, operators};
use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::Key;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use crdgen_apimachinery::cel::decl::ListType;

use super::equality::equal;
use super::library::compare;

/// Registers them on `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    ctx.add_function(LIST_EQ, list_eq);
    ctx.add_function(LIST_NE, list_ne);
    ctx.add_function(LIST_ADD, list_add);
    ctx.add_function("slice", slice);
    ctx.add_function("flatten", flatten);
    ctx.add_function("sum", sum);
    ctx.add_function("isSorted", is_sorted);
    ctx.add_function(
        "max",
        |ftx: &FunctionContext, This(list): This<Arc<Vec<Value>>>| {
            extreme(ftx, &list, Ordering::Greater)
        },
    );
    ctx.add_function(
        "min",
        |ftx: &FunctionContext, This(list): This<Arc<Vec<Value>>>| {
            extreme(ftx, &list, Ordering::Less)
        },
    );
}

/// The functions `==`, `!=` and `+` are evaluated by when their left operand is a set or
/// map list of the object (the checker finds them: [`super::rewrite`]), with the list
/// type as a third argument: `'set'`, or a map list's keys.
pub(super) const LIST_EQ: &str = "@listEq";
pub(super) const LIST_NE: &str = "@listNe";
pub(super) const LIST_ADD: &str = "@listAdd";

/// The function for `operator` on a set or map list.
pub(super) fn list_operator(operator: &str) -> Option<&'static str> {
    match operator {
        operators::EQUALS => Some(LIST_EQ),
        operators::NOT_EQUALS => Some(LIST_NE),
        operators::ADD => Some(LIST_ADD),
        _ => None,
    }
}

/// The operator a function of [`list_operator`]'s stands for.
pub(super) fn operator_of(name: &str) -> Option<&'static str> {
    match name {
        LIST_EQ => Some(operators::EQUALS),
        LIST_NE => Some(operators::NOT_EQUALS),
        LIST_ADD => Some(operators::ADD),
        _ => None,
    }
}

/// The argument that tells a list function the list type.
pub(super) fn list_type_argument(id: u64, list_type: &ListType) -> IdedExpr {
    let literal = |text: &str| IdedExpr {
        id,
        expr: Expr::Literal(LiteralValue::String(text.to_owned().into())),
    };
    match list_type {
        ListType::Set => literal("set"),
        ListType::Map(keys) => IdedExpr {
            id,
            expr: Expr::List(ListExpr {
                elements: keys.iter().map(|k| literal(k)).collect(),
                optional_indices: Vec::new(),
            }),
        },
    }
}

/// The two lists and the list type of a list function's call.
fn operands(ftx: &FunctionContext) -> Result<(Value, Value, ListType), ExecutionError> {
    let [a, b, list_type] = ftx.args else {
        return Err(ExecutionError::invalid_argument_count(3, ftx.args.len()));
    };
    let list_type = match &list_type.expr {
        Expr::List(keys) => ListType::Map(
            keys.elements
                .iter()
                .filter_map(|k| match &k.expr {
                    Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_owned()),
                    _ => None,
                })
                .collect(),
        ),
        _ => ListType::Set,
    };
    Ok((ftx.ptx.resolve(a)?, ftx.ptx.resolve(b)?, list_type))
}

fn list_eq(ftx: &FunctionContext) -> ResolveResult {
    let (a, b, list_type) = operands(ftx)?;
    Ok(Value::Bool(typed_equal(&a, &b, &list_type)))
}

fn list_ne(ftx: &FunctionContext) -> ResolveResult {
    let (a, b, list_type) = operands(ftx)?;
    Ok(Value::Bool(!typed_equal(&a, &b, &list_type)))
}

/// A set equals a list of the same items in any order (the set's items all in the
/// other, of the same size); a map list one of the same items by key.
fn typed_equal(a: &Value, b: &Value, list_type: &ListType) -> bool {
    let (Value::List(x), Value::List(y)) = (a, b) else {
        return equal(a, b);
    };
    if x.len() != y.len() {
        return false;
    }
    match list_type {
        ListType::Set => x
            .iter()
            .all(|item| y.iter().any(|other| equal(item, other))),
        ListType::Map(names) => {
            let keys: Vec<String> = x.iter().map(|item| item_key(names, item)).collect();
            y.iter().all(|other| {
                let key = item_key(names, other);
                keys.iter()
                    .position(|k| *k == key)
                    .is_some_and(|i| equal(&x[i], other))
            })
        }
    }
}

/// A set's union with a list (the list's items not already there, in order); a map list
/// with the list's items in place of those of the same keys and the others after.
fn list_add(ftx: &FunctionContext) -> ResolveResult {
    let (Value::List(left), Value::List(right), list_type) = operands(ftx)? else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let mut items = left.as_ref().clone();
    match &list_type {
        ListType::Set => {
            for item in right.iter() {
                if !items.iter().any(|i| equal(i, item)) {
                    items.push(item.clone());
                }
            }
        }
        ListType::Map(names) => {
            let mut keys: Vec<String> = items.iter().map(|i| item_key(names, i)).collect();
            for item in right.iter() {
                let key = item_key(names, item);
                match keys.iter().position(|k| *k == key) {
                    Some(i) => items[i] = item.clone(),
                    None => {
                        items.push(item.clone());
                        keys.push(key);
                    }
                }
            }
        }
    }
    Ok(Value::List(Arc::new(items)))
}

/// A map list item's key: its key fields (by their names in CEL, or as written where no
/// rule can spell them), as JSON text.
fn item_key(names: &[String], item: &Value) -> String {
    let Value::Map(map) = item else {
        return String::new();
    };
    let parts: Vec<String> = names
        .iter()
        .map(|name| {
            let escaped = crdgen_apimachinery::cel::escape(name).unwrap_or(name.into());
            let key = Key::String(Arc::new(escaped.into_owned()));
            map.map.get(&key).map(json_text).unwrap_or_default()
        })
        .collect();
    parts.join("\u{0}")
}

/// A key field's value as JSON writes it.
fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => serde_json::Value::String(s.to_string()).to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => serde_json::json!(f).to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// `list.slice(start, end)`: the items from `start` up to `end`.
fn slice(
    ftx: &FunctionContext,
    This(list): This<Arc<Vec<Value>>>,
    start: i64,
    end: i64,
) -> ResolveResult {
    let length = list.len() as i64;
    let refused = |why: String| Err(ftx.error(format!("cannot slice({start}, {end}), {why}")));
    if start < 0 || end < 0 {
        return refused("negative indexes not supported".to_owned());
    }
    if start > end {
        return refused("start index must be less than or equal to end index".to_owned());
    }
    if length < end {
        return refused(format!("list is length {length}"));
    }
    Ok(Value::List(Arc::new(
        list[start as usize..end as usize].to_vec(),
    )))
}

/// `list.flatten()` (one level) and `list.flatten(depth)`.
fn flatten(ftx: &FunctionContext, This(list): This<Arc<Vec<Value>>>) -> ResolveResult {
    let depth = match ftx.args {
        [] => 1,
        [depth] => match ftx.ptx.resolve(depth)? {
            Value::Int(d) => d,
            _ => return Err(ExecutionError::NoSuchOverload),
        },
        _ => return Err(ExecutionError::invalid_argument_count(1, ftx.args.len())),
    };
    if depth < 0 {
        return Err(ftx.error("level must be non-negative"));
    }
    let mut out = Vec::with_capacity(list.len());
    flatten_into(&list, depth, &mut out);
    Ok(Value::List(Arc::new(out)))
}

fn flatten_into(list: &[Value], depth: i64, out: &mut Vec<Value>) {
    for item in list {
        match item {
            Value::List(inner) if depth > 0 => flatten_into(inner, depth - 1, out),
            other => out.push(other.clone()),
        }
    }
}

/// `list.sum()`: of ints, uints, doubles or durations; 0 for an empty list.
fn sum(ftx: &FunctionContext, This(list): This<Arc<Vec<Value>>>) -> ResolveResult {
    let Some(first) = list.first() else {
        // The checker names the list's number type where it is not int.
        return Ok(
            match ftx.args.first().map(|a| ftx.ptx.resolve(a)).transpose()? {
                Some(Value::String(zero)) if zero.as_str() == "uint" => Value::UInt(0),
                Some(Value::String(zero)) if zero.as_str() == "double" => Value::Float(0.0),
                Some(Value::String(zero)) if zero.as_str() == "duration" => {
                    Value::Duration(chrono::Duration::zero())
                }
                _ => Value::Int(0),
            },
        );
    };
    let overflow = || ftx.error("integer overflow");
    let mut total = first.clone();
    for item in &list[1..] {
        total = match (&total, item) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(*b).ok_or_else(overflow)?),
            (Value::UInt(a), Value::UInt(b)) => Value::UInt(
                a.checked_add(*b)
                    .ok_or_else(|| ftx.error("unsigned integer overflow"))?,
            ),
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (Value::Duration(a), Value::Duration(b)) => Value::Duration(
                a.checked_add(b)
                    .ok_or_else(|| ftx.error("duration overflow"))?,
            ),
            _ => return Err(ExecutionError::NoSuchOverload),
        };
    }
    match total {
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Duration(_) => Ok(total),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// `list.isSorted()`: each item no greater than the next (of one comparable type).
fn is_sorted(This(list): This<Arc<Vec<Value>>>) -> ResolveResult {
    for pair in list.windows(2) {
        match compare(&pair[0], &pair[1]) {
            Some(Ordering::Greater) => return Ok(Value::Bool(false)),
            Some(_) => {}
            None => return Err(ExecutionError::NoSuchOverload),
        }
    }
    Ok(Value::Bool(true))
}

/// `list.max()` (`wanted` greater) and `list.min()`: the first of the extreme items.
fn extreme(ftx: &FunctionContext, list: &[Value], wanted: Ordering) -> ResolveResult {
    let Some(mut best) = list.first() else {
        return Err(ftx.error(format!("{} called on empty list", ftx.name)));
    };
    for item in &list[1..] {
        match compare(item, best) {
            Some(o) if o == wanted => best = item,
            Some(_) => {}
            None => return Err(ExecutionError::NoSuchOverload),
        }
    }
    Ok(best.clone())
}
