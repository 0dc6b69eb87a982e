//! CEL rules (`x-kubernetes-validations`) evaluated as kube-apiserver evaluates them on
//! a write, on kube-rs' CEL crate (`kube-cel`, with Kubernetes' extension libraries):
//! at every level of the schema (objects, lists, maps, scalars), `self` bound to the
//! node's value as the apiserver binds it (a resource's metadata as only its `name` and
//! `generateName`); transition rules (`oldSelf`) run only on updates and only where the
//! old object has a value that can be told apart (a property, a map key, a map list's
//! keys), unless `optionalOldSelf`; `message`, `messageExpression`, `reason` and
//! `fieldPath` worded into the error as the apiserver does; and an unchanged value lets
//! a failing rule that does not read `oldSelf` pass (ratcheting, on since 1.30). Errors
//! are worded as kube-apiserver 1.35 words them: a failed rule on an object or a list
//! does not show its value (1.34 and before wrote its type, `Invalid value: "object"`).
//!
//! Rules are compiled as the apiserver compiles a new CRD's: typed against the schema
//! and the functions of the Kubernetes version (crdgen-apimachinery's checker), so a
//! rule it refuses (an unknown field or function, a call no overload takes, a function
//! Kubernetes lacks such as `cel.bind`) is refused here too.
//!
//! Runtime costs are limited as the apiserver limits them (a call's limit, a write's
//! budget: [`budget`]), counted as cel-go counts them ([`cost`]) where the rules'
//! estimates say a limit could be reached.

mod bindings;
mod budget;
mod compile;
mod cost;
mod equality;
mod errors;
mod format;
mod go_errors;
mod invalid;
mod library;
mod lists;
#[cfg(test)]
mod oracle;
mod rewrite;
mod string_format;
mod time;
mod urls;
mod value;
mod walk;

use std::cell::RefCell;

use kube_cel::KubeCelExt as _;
use kube_cel::cel::Context;
use serde_json::Value;

use crate::field::{Error, Path};
use budget::Budget;
pub use budget::CostLimits;
use compile::Node;

/// The rules of one schema, parsed once, and the Kubernetes version they answer as.
#[derive(Debug)]
pub(super) struct Rules {
    root: Node,
    minor: u16,
}

/// The first minor version whose failed rule shows a scalar's value and nothing for an
/// object or list; before it, the error names the node's type (`Invalid value:
/// "object": …`).
const VALUELESS_SINCE_MINOR: u16 = 35;

thread_local! {
    /// The standard library and Kubernetes' extensions, registered once a thread: a
    /// context holds its functions in a registry that is not shared between threads.
    static BASE: RefCell<Option<Context<'static>>> = const { RefCell::new(None) };
}

/// Runs `f` with the thread's context of every function a rule may call.
fn with_base<R>(f: impl FnOnce(&Context<'static>) -> R) -> R {
    BASE.with(|base| {
        let mut base = base.borrow_mut();
        let ctx = base.get_or_insert_with(|| {
            let mut ctx = Context::default().with_all();
            library::register(&mut ctx);
            format::register(&mut ctx);
            lists::register(&mut ctx);
            time::register(&mut ctx);
            urls::register(&mut ctx);
            string_format::register(&mut ctx);
            go_errors::register(&mut ctx);
            ctx
        });
        f(ctx)
    })
}

impl Rules {
    /// The rules of a resource's `openAPIV3Schema` (`resource`), or of a schema below a
    /// resource's root, as Kubernetes 1.`minor` runs them.
    pub fn new(schema: &Value, resource: bool, minor: u16) -> Rules {
        Rules {
            root: Node::new(schema, resource, minor),
            minor,
        }
    }

    /// Whether the schema has any rule.
    pub fn is_empty(&self) -> bool {
        !self.root.has_rules
    }

    /// The errors of every rule that fails on `object` (`old`: its stored version, on
    /// an update) within the cost `limits`; the runtime cost, when it was counted
    /// (`count`, or where the estimates said a limit could be reached), as
    /// [`Budget::spent`] gives it. `typed`: the object passed the schema's type checks
    /// (a write's admission), so no rule can read data of another type, and none is
    /// looked for.
    pub fn check(
        &self,
        object: &Value,
        old: Option<&Value>,
        limits: CostLimits,
        (count, typed): (bool, bool),
        errors: &mut Vec<Error>,
    ) -> Option<u64> {
        if self.is_empty() {
            return Some(0);
        }
        with_base(|ctx| {
            let mut budget = match count {
                true => Budget::counting(limits),
                false => Budget::estimating(limits),
            };
            let mut found = Vec::new();
            self.walk(ctx, (object, old), typed, &mut budget, &mut found);
            if !budget.counts() && budget.is_over() {
                found.clear();
                budget = Budget::counting(limits);
                self.walk(ctx, (object, old), typed, &mut budget, &mut found);
            }
            errors.append(&mut found);
            budget.counts().then(|| budget.spent())
        })
    }

    fn walk(
        &self,
        ctx: &Context<'_>,
        (object, old): (&Value, Option<&Value>),
        typed: bool,
        budget: &mut Budget,
        errors: &mut Vec<Error>,
    ) {
        let root = Path::root();
        let at = walk::At {
            path: &root,
            unchanged: false,
            ratchets: self.minor >= super::RATCHETING_SINCE_MINOR,
            top: true,
            typed_values: self.minor < VALUELESS_SINCE_MINOR,
            typed_data: typed,
        };
        walk::walk(ctx, &self.root, object, old, at, budget, errors);
    }
}
