//! Values bound under names no rule can spell, so that one of the interpreter's
//! operations, or a function of its context, runs on values already computed: the cost
//! tracker's steps, and kube-cel's own functions behind crdgen's.

use kube_cel::cel::common::ast::{CallExpr, Expr, IdedExpr};
use kube_cel::cel::{Context, ResolveResult, Value};

pub(super) struct Bindings(Vec<(String, Value)>);

impl Bindings {
    pub fn new() -> Bindings {
        Bindings(Vec::new())
    }

    /// An identifier that stands for `value`.
    pub fn bind(&mut self, value: Value) -> IdedExpr {
        let name = format!("@{}", self.0.len());
        self.0.push((name.clone(), value));
        ident(&name)
    }

    /// Evaluates `expr` in a scope of `scope` with the bound values.
    pub fn resolve(self, expr: &IdedExpr, scope: &Context<'_>) -> ResolveResult {
        let mut inner = scope.new_inner_scope();
        for (name, value) in self.0 {
            inner.add_variable_from_value(name, value);
        }
        inner.resolve(expr)
    }
}

pub(super) fn ident(name: &str) -> IdedExpr {
    IdedExpr {
        id: 0,
        expr: Expr::Ident(name.to_owned()),
    }
}

/// A call of `function` on `target` (a member call) with `args`.
pub(super) fn call(function: &str, target: Option<IdedExpr>, args: Vec<IdedExpr>) -> IdedExpr {
    IdedExpr {
        id: 0,
        expr: Expr::Call(CallExpr {
            func_name: function.to_owned(),
            target: target.map(Box::new),
            args,
        }),
    }
}
