//! Walks of a parsed rule's tree: how deep it nests as cel-go's parser counts it, and
//! how deep a walk of it recurses.

use kube_cel::cel::common::ast::{EntryExpr, Expr, operators};
use kube_cel::cel::parser::Expression;

/// The nesting of `e` as cel-go's parser counts it (binary operators but `&&` and `||`,
/// conditionals, field selections, member calls and indexes; a comprehension is a
/// macro's member call): at most 250 in an expression that parses.
pub fn nesting(e: &Expression) -> usize {
    let own = match &e.expr {
        Expr::Call(call) => match call.func_name.as_str() {
            operators::LOGICAL_AND
            | operators::LOGICAL_OR
            | operators::LOGICAL_NOT
            | operators::NEGATE => 0,
            name => {
                usize::from(call.target.is_some() || name.starts_with('_') || name == operators::IN)
            }
        },
        Expr::Select(_) | Expr::Comprehension(_) => 1,
        _ => 0,
    };
    own + children(e).into_iter().map(nesting).max().unwrap_or(0)
}

/// The height of `e`'s tree: how deep a walk of it, the interpreter's, recurses.
pub fn height(e: &Expression) -> usize {
    1 + children(e).into_iter().map(height).max().unwrap_or(0)
}

/// The expressions directly below `e`.
pub(super) fn children(e: &Expression) -> Vec<&Expression> {
    match &e.expr {
        Expr::Call(call) => call
            .target
            .as_deref()
            .into_iter()
            .chain(&call.args)
            .collect(),
        Expr::Select(select) => vec![&select.operand],
        Expr::List(list) => list.elements.iter().collect(),
        Expr::Map(map) => map
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
                EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter()
            .filter_map(|entry| match &entry.expr {
                EntryExpr::StructField(f) => Some(&f.value),
                EntryExpr::MapEntry(_) => None,
            })
            .collect(),
        Expr::Comprehension(c) => vec![&c.iter_range, &c.accu_init, &c.loop_step, &c.result],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

/// The expressions directly below `e`, to change: [`children`], and a comprehension's
/// loop condition.
pub(super) fn children_mut(e: &mut Expression) -> Vec<&mut Expression> {
    match &mut e.expr {
        Expr::Call(call) => call
            .target
            .as_deref_mut()
            .into_iter()
            .chain(&mut call.args)
            .collect(),
        Expr::Select(select) => vec![&mut select.operand],
        Expr::List(list) => list.elements.iter_mut().collect(),
        Expr::Map(map) => map
            .entries
            .iter_mut()
            .flat_map(|entry| match &mut entry.expr {
                EntryExpr::MapEntry(e) => vec![&mut e.key, &mut e.value],
                EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter_mut()
            .filter_map(|entry| match &mut entry.expr {
                EntryExpr::StructField(f) => Some(&mut f.value),
                EntryExpr::MapEntry(_) => None,
            })
            .collect(),
        Expr::Comprehension(c) => {
            let c = c.as_mut();
            vec![
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ]
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}
