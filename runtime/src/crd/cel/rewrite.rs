//! A rule's syntax tree adjusted, once at parse, so that the `cel` interpreter evaluates
//! it as cel-go does where the two differ in their cores rather than in a function:
//!
//! - `==`, `!=`, `&&` and `||` call [`super::library`]'s versions: CEL's equality
//!   (optionals, numbers of different types, lists and maps element by element) and its
//!   commutative logic, where `false && error` is `false` in either order, as in the
//!   `all` and `exists` macros' loops;
//! - a qualified type name (`google.protobuf.Timestamp`, `net.IP`) is one identifier,
//!   bound to the type [`super::library`] gives `type()`'s results.

use kube_cel::cel::common::ast::{EntryExpr, Expr, IdedExpr};

use super::library;

/// Rewrites `expr` and everything below it.
pub(super) fn rewrite(expr: &mut IdedExpr) {
    if let Some(name) = qualified_type(&expr.expr) {
        expr.expr = Expr::Ident(name.to_owned());
        return;
    }
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(ours) = library::operator(&call.func_name) {
                call.func_name = ours.to_owned();
            }
            if let Some(target) = &mut call.target {
                rewrite(target);
            }
            call.args.iter_mut().for_each(rewrite);
        }
        Expr::Comprehension(c) => {
            for part in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                rewrite(part);
            }
        }
        Expr::List(list) => list.elements.iter_mut().for_each(rewrite),
        Expr::Map(map) => {
            for entry in &mut map.entries {
                if let EntryExpr::MapEntry(e) = &mut entry.expr {
                    rewrite(&mut e.key);
                    rewrite(&mut e.value);
                }
            }
        }
        Expr::Select(select) => rewrite(&mut select.operand),
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                if let EntryExpr::StructField(f) = &mut entry.expr {
                    rewrite(&mut f.value);
                }
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// The qualified type name `expr` spells, if it is one.
fn qualified_type(expr: &Expr) -> Option<&'static str> {
    let Expr::Select(select) = expr else {
        return None;
    };
    if select.test {
        return None;
    }
    let mut parts = vec![select.field.as_str()];
    let mut operand = &select.operand.expr;
    loop {
        match operand {
            Expr::Select(s) if !s.test => {
                parts.push(&s.field);
                operand = &s.operand.expr;
            }
            Expr::Ident(first) => {
                parts.push(first);
                break;
            }
            _ => return None,
        }
    }
    parts.reverse();
    let name = parts.join(".");
    library::QUALIFIED_TYPES
        .iter()
        .copied()
        .find(|known| *known == name)
}
