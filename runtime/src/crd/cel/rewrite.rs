//! A rule's syntax tree adjusted, once at parse, so that the `cel` interpreter evaluates
//! it as cel-go does where the two differ in their cores rather than in a function:
//!
//! - `==`, `!=` and `+` whose left operand is a set or map list of the object call
//!   [`super::lists`]' versions, which compare and concatenate by the list type;
//! - `==`, `!=`, `&&`, `||` and `string()` call [`super::library`]'s versions: CEL's
//!   equality (optionals, numbers of different types, lists and maps element by
//!   element), its commutative logic, where `false && error` is `false` in either order,
//!   and its conversions to string;
//! - the `all` and `exists` macros' loops are calls of one function each, in which an
//!   element that decides wins over an error in another, as in cel-go;
//! - a qualified type name (`google.protobuf.Timestamp`, `net.IP`) is one identifier,
//!   bound to the type [`super::library`] gives `type()`'s results;
//! - in an `optionalOldSelf` rule, a field of `oldSelf` (an optional) is selected as
//!   `?.` selects it: an optional of the field, none where it is absent, as cel-go
//!   selects on an optional.

use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue,
};

use crdgen_apimachinery::cel::decl::ListType;

use super::{library, lists};

/// Rewrites `expr` and everything below it; `optional_old_self`: `oldSelf` is an
/// optional; `typing`: what the checker found of the types (the `==`, `!=` and `+` of a
/// set or map list of the object, the `sum()` of a list of other numbers than ints).
pub(super) fn rewrite(expr: &mut IdedExpr, optional_old_self: bool, typing: &Typing<'_>) {
    if let Some(name) = qualified_type(&expr.expr) {
        expr.expr = Expr::Ident(name.to_owned());
        return;
    }
    if optional_old_self && selects_from_old_self(&expr.expr) {
        let Expr::Select(select) = std::mem::take(&mut expr.expr) else {
            return;
        };
        let mut operand = *select.operand;
        rewrite(&mut operand, optional_old_self, typing);
        let field = IdedExpr {
            id: expr.id,
            expr: Expr::Literal(LiteralValue::String(select.field.into())),
        };
        expr.expr = Expr::Call(CallExpr {
            func_name: library::OPTIONAL_SELECT.to_owned(),
            target: None,
            args: vec![operand, field],
        });
        return;
    }
    let id = expr.id;
    let rewrite = |e: &mut IdedExpr| rewrite(e, optional_old_self, typing);
    match &mut expr.expr {
        Expr::Call(call) => {
            let list_op = typing.list_ops.iter().find(|(op, _)| *op == id);
            // An empty list sums to its numbers' zero, which only the checker knows.
            if let Some((_, zero)) = typing.typed_sums.iter().find(|(call, _)| *call == id) {
                call.args.push(IdedExpr {
                    id,
                    expr: Expr::Literal(LiteralValue::String((*zero).to_owned().into())),
                });
            }
            match (list_op, lists::list_operator(&call.func_name)) {
                (Some((_, list_type)), Some(ours)) => {
                    call.func_name = ours.to_owned();
                    call.args.push(lists::list_type_argument(id, list_type));
                }
                _ => {
                    if let Some(ours) = library::operator(&call.func_name) {
                        call.func_name = ours.to_owned();
                    }
                }
            }
            if let Some(target) = &mut call.target {
                rewrite(target);
            }
            call.args.iter_mut().for_each(rewrite);
        }
        Expr::Comprehension(c) if quantifier(c).is_some() => {
            let name = quantifier(c).unwrap_or_default();
            let Expr::Call(step) = std::mem::take(&mut c.loop_step.expr) else {
                return;
            };
            let mut predicate = step.args.into_iter().nth(1).unwrap_or_default();
            rewrite(&mut predicate);
            let mut range = std::mem::take(&mut c.iter_range);
            rewrite(&mut range);
            let var = IdedExpr {
                id: expr.id,
                expr: Expr::Ident(std::mem::take(&mut c.iter_var)),
            };
            expr.expr = Expr::Call(CallExpr {
                func_name: name.to_owned(),
                target: Some(Box::new(range)),
                args: vec![var, predicate],
            });
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

/// What the checker found of a rule's types that its evaluation needs.
pub(super) struct Typing<'a> {
    pub list_ops: &'a [(u64, ListType)],
    pub typed_sums: &'a [(u64, &'static str)],
}

/// Whether `expr` selects a field (not `has()`) of `oldSelf`, or of such a selection.
fn selects_from_old_self(expr: &Expr) -> bool {
    match expr {
        Expr::Select(select) if !select.test => match &select.operand.expr {
            Expr::Ident(name) => name == "oldSelf",
            operand => selects_from_old_self(operand),
        },
        _ => false,
    }
}

/// The function an `all` or `exists` macro's expansion is evaluated by: its loop
/// `@result && p` (`||`) stops at the first error in the interpreter, where cel-go lets
/// an element that decides win over it.
fn quantifier(c: &ComprehensionExpr) -> Option<&'static str> {
    let Expr::Call(step) = &c.loop_step.expr else {
        return None;
    };
    let accumulates =
        matches!(&step.args.first().map(|a| &a.expr), Some(Expr::Ident(a)) if *a == c.accu_var);
    if c.iter_var2.is_some() || step.args.len() != 2 || !accumulates || c.accu_var != "@result" {
        return None;
    }
    match step.func_name.as_str() {
        "_&&_" => Some(library::ALL),
        "_||_" => Some(library::EXISTS),
        _ => None,
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
    crdgen_apimachinery::cel::QUALIFIED_TYPES
        .iter()
        .copied()
        .find(|known| *known == name)
}
