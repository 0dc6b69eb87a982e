//! List functions as cel-go's `ext.Lists` and Kubernetes' lists library evaluate them,
//! where kube-cel's differ: `slice` and `flatten` fail in cel-go's words, and `sum`
//! adds durations too.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

/// Registers them on `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("slice", slice);
    ctx.add_function("flatten", flatten);
    ctx.add_function("sum", sum);
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
        return Ok(Value::Int(0));
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
