//! A rule's runtime cost, counted as kube-apiserver counts it while it evaluates: cel-go's
//! cost tracker (`interpreter/runtimecost.go` of cel-go v0.26, the one of Kubernetes
//! 1.36) over the program cel-go plans with `OptOptimize` (a conversion of a constant and
//! a list or map of constants folded into constants, which cost nothing), with
//! Kubernetes' library costs (apiserver's `pkg/cel/library/cost.go`) and `ext.Lists`'
//! trackers.
//!
//! The `cel` interpreter counts nothing, so this is an evaluation of its own over a
//! rule's tree: the control flow (`&&`, `||`, `?:`, comprehensions and the macros crdgen
//! evaluates as functions) is walked here and every step charged as cel-go's tracker
//! charges it, while each operation is the interpreter's own, applied to the values found
//! (bound in a scope of their own). It is slower than the interpreter alone: the
//! validator takes it only where the estimated costs say a limit could be reached.

use std::sync::Arc;

use crdgen_apimachinery::cel::{LIST, MAP, REGEX, TRAVERSAL};
use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, MapEntryExpr, MapExpr,
    SelectExpr, operators,
};
use kube_cel::cel::objects::OptionalValue;
use kube_cel::cel::{Context, ExecutionError, Value};

use super::bindings::Bindings;
use super::equality::optional;
use super::{format, library, lists};

/// Why an evaluation stopped.
#[derive(Debug)]
pub(super) enum Stop {
    /// It failed, as the interpreter fails.
    Failed(ExecutionError),
    /// It went over its cost limit (cel-go: `operation cancelled: actual cost limit
    /// exceeded`).
    OverLimit,
}

impl From<ExecutionError> for Stop {
    fn from(error: ExecutionError) -> Stop {
        Stop::Failed(error)
    }
}

type Eval = Result<Value, Stop>;

/// One evaluation's cost so far, and its limit.
pub(super) struct Tracker {
    spent: u64,
    limit: u64,
    /// Whether the program is planned with `OptOptimize`, as Kubernetes plans it
    /// (constants folded, lists of constants looked up as sets).
    optimized: bool,
}

impl Tracker {
    pub fn new(limit: u64) -> Tracker {
        Tracker {
            spent: 0,
            limit,
            optimized: true,
        }
    }

    /// A tracker of a program planned without `OptOptimize`, as cel-go's own and
    /// apiserver's library tests plan theirs.
    #[cfg(test)]
    pub fn unoptimized(limit: u64) -> Tracker {
        Tracker {
            optimized: false,
            ..Tracker::new(limit)
        }
    }

    /// What the evaluation has cost.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    fn is_constant(&self, e: &IdedExpr, scope: &Context<'_>) -> bool {
        constant(e, scope, self.optimized)
    }

    fn charge(&mut self, cost: u64) -> Result<(), Stop> {
        self.spent = self.spent.saturating_add(cost);
        match self.spent > self.limit {
            true => Err(Stop::OverLimit),
            false => Ok(()),
        }
    }

    /// Evaluates `e` in `scope`, charging each step.
    pub fn eval(&mut self, e: &IdedExpr, scope: &Context<'_>) -> Eval {
        if self.is_constant(e, scope) {
            return Ok(scope.resolve(e)?);
        }
        match &e.expr {
            Expr::Ident(_) => {
                self.charge(1)?;
                Ok(scope.resolve(e)?)
            }
            Expr::Select(select) => self.select(e.id, select, scope),
            Expr::Call(call) => self.call(e.id, call, scope),
            Expr::List(list) => self.list(e.id, list, scope),
            Expr::Map(map) => self.map(e.id, map, scope),
            Expr::Comprehension(c) => self.comprehension(c, scope),
            _ => Ok(scope.resolve(e)?),
        }
    }

    /// Evaluates `e`, keeping a failure as a value (`&&`, `||` and the quantifiers
    /// decide over one); only going over the limit stops.
    fn attempt(&mut self, e: &IdedExpr, scope: &Context<'_>) -> Result<Outcome, Stop> {
        match self.eval(e, scope) {
            Err(Stop::Failed(error)) => Ok(Err(error)),
            Err(Stop::OverLimit) => Err(Stop::OverLimit),
            Ok(value) => Ok(Ok(value)),
        }
    }

    /// `x.f` (an attribute's qualifier: one) and `has(x.f)` (a presence test costs
    /// nothing of its own, as Kubernetes configures cel-go).
    fn select(&mut self, id: u64, select: &SelectExpr, scope: &Context<'_>) -> Eval {
        let operand = self.eval(&select.operand, scope)?;
        if !select.test {
            self.charge(1 + relative(&select.operand, scope))?;
        }
        let mut bound = Bindings::new();
        let shadow = IdedExpr {
            id,
            expr: Expr::Select(SelectExpr {
                operand: Box::new(bound.bind(operand)),
                field: select.field.clone(),
                test: select.test,
            }),
        };
        Ok(bound.resolve(&shadow, scope)?)
    }

    fn list(&mut self, id: u64, list: &ListExpr, scope: &Context<'_>) -> Eval {
        let mut bound = Bindings::new();
        let mut elements = Vec::with_capacity(list.elements.len());
        for element in &list.elements {
            elements.push(self.operand(element, scope, &mut bound)?);
        }
        self.charge(LIST)?;
        let shadow = IdedExpr {
            id,
            expr: Expr::List(ListExpr {
                elements,
                optional_indices: list.optional_indices.clone(),
            }),
        };
        Ok(bound.resolve(&shadow, scope)?)
    }

    fn map(&mut self, id: u64, map: &MapExpr, scope: &Context<'_>) -> Eval {
        let mut bound = Bindings::new();
        let mut entries = Vec::with_capacity(map.entries.len());
        for entry in &map.entries {
            let EntryExpr::MapEntry(e) = &entry.expr else {
                return Ok(scope.resolve(&IdedExpr {
                    id,
                    expr: Expr::Map(map.clone()),
                })?);
            };
            let key = self.operand(&e.key, scope, &mut bound)?;
            let value = self.operand(&e.value, scope, &mut bound)?;
            entries.push(kube_cel::cel::common::ast::IdedEntryExpr {
                id: entry.id,
                expr: EntryExpr::MapEntry(MapEntryExpr {
                    key,
                    value,
                    optional: e.optional,
                }),
            });
        }
        self.charge(MAP)?;
        let shadow = IdedExpr {
            id,
            expr: Expr::Map(MapExpr { entries }),
        };
        Ok(bound.resolve(&shadow, scope)?)
    }

    /// A constant stays as written; anything else is evaluated and bound.
    fn operand(
        &mut self,
        e: &IdedExpr,
        scope: &Context<'_>,
        bound: &mut Bindings,
    ) -> Result<IdedExpr, Stop> {
        match self.is_constant(e, scope) {
            true => Ok(e.clone()),
            false => Ok(bound.bind(self.eval(e, scope)?)),
        }
    }

    fn call(&mut self, id: u64, call: &CallExpr, scope: &Context<'_>) -> Eval {
        let name = call.func_name.as_str();
        let target = call.target.as_deref();
        match (name, target, &call.args[..]) {
            (operators::LOGICAL_AND | library::AND, None, [l, r]) => self.logic(l, r, scope, false),
            (operators::LOGICAL_OR | library::OR, None, [l, r]) => self.logic(l, r, scope, true),
            (operators::CONDITIONAL, None, [condition, yes, no]) => {
                match self.eval(condition, scope)? {
                    Value::Bool(true) => self.branch(yes, scope),
                    Value::Bool(false) => self.branch(no, scope),
                    _ => Err(ExecutionError::NoSuchOverload.into()),
                }
            }
            ("or" | "orValue", Some(opt), [alternative]) => {
                let value = self.eval(opt, scope)?;
                let Some(optional_value) = optional(&value) else {
                    return Err(ExecutionError::NoSuchOverload.into());
                };
                match (optional_value.value(), name) {
                    (Some(_), "or") => Ok(value),
                    (Some(inner), _) => Ok(inner.clone()),
                    (None, _) => self.eval(alternative, scope),
                }
            }
            (operators::NOT_STRICTLY_FALSE, None, [arg]) => {
                let value = self.attempt(arg, scope)?;
                self.charge(1)?;
                Ok(Value::Bool(!matches!(value, Ok(Value::Bool(false)))))
            }
            (operators::INDEX | operators::OPT_INDEX | library::OPTIONAL_SELECT, None, [op, i]) => {
                self.index(id, name, op, i, scope)
            }
            (library::ALL | library::EXISTS, Some(range), [var, predicate]) => {
                let q = match name {
                    library::ALL => Quantifier::All,
                    _ => Quantifier::Exists,
                };
                self.quantifier(q, range, &[var], predicate, scope)
            }
            ("all" | "exists" | "existsOne" | "exists_one", Some(range), [k, v, predicate]) => {
                let q = match name {
                    "all" => Quantifier::All,
                    "exists" => Quantifier::Exists,
                    _ => Quantifier::ExistsOne,
                };
                self.quantifier(q, range, &[k, v], predicate, scope)
            }
            (
                "transformList" | "transformMap" | "transformMapEntry",
                Some(range),
                [_, _, rest @ ..],
            ) => self.transform(id, call, range, rest, scope),
            ("sortBy", Some(range), [var, key]) => self.sort_by(id, call, range, var, key, scope),
            ("optMap" | "optFlatMap", Some(opt), [var, expr]) => {
                self.opt_map(name == "optFlatMap", opt, var, expr, scope)
            }
            _ => self.function(id, call, scope),
        }
    }

    /// A branch of `?:`: cel-go resolves one that is an attribute without observing
    /// it, so its variable (or the operand it was made an attribute of) costs nothing.
    fn branch(&mut self, e: &IdedExpr, scope: &Context<'_>) -> Eval {
        let value = self.eval(e, scope)?;
        let conditional = matches!(&e.expr, Expr::Call(c) if c.func_name == operators::CONDITIONAL);
        if is_attribute(e, scope) && !conditional {
            self.spent = self.spent.saturating_sub(1);
        }
        Ok(value)
    }

    /// `&&` (`short` false) and `||`: nothing of their own; the right side runs only
    /// when the left does not decide, and a deciding side wins over a failed one.
    fn logic(&mut self, l: &IdedExpr, r: &IdedExpr, scope: &Context<'_>, short: bool) -> Eval {
        let left = self.attempt(l, scope)?;
        if matches!(left, Ok(Value::Bool(b)) if b == short) {
            return Ok(Value::Bool(short));
        }
        let right = self.attempt(r, scope)?;
        Ok(combine(left, right, short)?)
    }

    /// `x[i]`, `x[?i]`, `x.?f`: a qualifier of an attribute, one for a constant and an
    /// attribute's own cost for an attribute, one more for anything else.
    fn index(
        &mut self,
        id: u64,
        name: &str,
        op: &IdedExpr,
        i: &IdedExpr,
        scope: &Context<'_>,
    ) -> Eval {
        let mut bound = Bindings::new();
        let operand = bound.bind(self.eval(op, scope)?);
        self.charge(relative(op, scope))?;
        // A constant qualifier is charged once it has qualified (or failed to), an
        // optional one only when it found a value.
        let constant = self.is_constant(i, scope);
        let index = match constant {
            true => i.clone(),
            false => {
                let value = self.eval(i, scope)?;
                if !is_attribute(i, scope) {
                    self.charge(1)?;
                }
                bound.bind(value)
            }
        };
        let shadow = IdedExpr {
            id,
            expr: Expr::Call(CallExpr {
                func_name: name.to_owned(),
                target: None,
                args: vec![operand, index],
            }),
        };
        let value = bound.resolve(&shadow, scope).map_err(Stop::from);
        let absent = matches!(&value, Ok(v) if optional(v).is_some_and(|o| o.value().is_none()))
            && name != operators::INDEX;
        if constant && !absent {
            self.charge(1)?;
        }
        value
    }

    /// Any other call: its target and arguments, then its own cost by its values.
    fn function(&mut self, id: u64, call: &CallExpr, scope: &Context<'_>) -> Eval {
        // `optional.of(x)`, `math.greatest(..)`: a namespace, not a value.
        let namespaced = matches!(
            call.target.as_deref(),
            Some(IdedExpr { expr: Expr::Ident(name), .. }) if scope.get_variable(name).is_none()
        );
        let operands: Vec<&IdedExpr> = call
            .target
            .as_deref()
            .filter(|_| !namespaced)
            .into_iter()
            .chain(&call.args)
            .collect();
        let mut bound = Bindings::new();
        let mut exprs = Vec::with_capacity(operands.len());
        let mut values = Vec::with_capacity(operands.len());
        let mut failed = None;
        for operand in &operands {
            if self.is_constant(operand, scope) {
                values.push(scope.resolve(operand).unwrap_or(Value::Null));
                exprs.push((*operand).clone());
                continue;
            }
            match self.attempt(operand, scope)? {
                Ok(value) => {
                    exprs.push(bound.bind(value.clone()));
                    values.push(value);
                }
                // cel-go charges a call of one or two operands when one failed (it
                // evaluated both), and not one of more (it stopped at the failure).
                Err(error) if operands.len() > 2 => return Err(error.into()),
                Err(error) => {
                    failed.get_or_insert(error);
                    values.push(Value::Null);
                    exprs.push(IdedExpr::default());
                }
            }
        }
        let qualified;
        let name = match (&call.target, namespaced) {
            (Some(t), true) => {
                let Expr::Ident(namespace) = &t.expr else {
                    unreachable!("a namespace is an identifier");
                };
                qualified = format!("{namespace}.{}", call.func_name);
                qualified.as_str()
            }
            _ => cel_go_name(&call.func_name),
        };
        // `x in [constants]`, which cel-go plans as a lookup in a set of them.
        let set_membership = name == operators::IN
            && call
                .args
                .get(1)
                .is_some_and(|list| self.is_constant(list, scope))
            && matches!(&values[..], [_, Value::List(items)] if items.iter().all(is_primitive));
        if let Some(error) = failed {
            self.charge(call_cost(name, &values, &Value::Null))?;
            return Err(error.into());
        }
        let (target, args) = match (&call.target, namespaced) {
            (Some(t), true) => (Some(t.clone()), exprs),
            (Some(_), false) => {
                let mut exprs = exprs.into_iter();
                (exprs.next().map(Box::new), exprs.collect())
            }
            (None, _) => (None, exprs),
        };
        let shadow = IdedExpr {
            id,
            expr: Expr::Call(CallExpr {
                func_name: call.func_name.clone(),
                target,
                args,
            }),
        };
        let result = bound.resolve(&shadow, scope)?;
        if !set_membership {
            self.charge(call_cost(name, &values, &result))?;
        }
        Ok(result)
    }

    /// A comprehension, as cel-go folds: the range and the accumulator's start, then for
    /// each element the condition (a false one ends the loop) and the step; the result.
    fn comprehension(&mut self, c: &ComprehensionExpr, scope: &Context<'_>) -> Eval {
        let range = self.eval(&c.iter_range, scope)?;
        let mut accu = self.eval(&c.accu_init, scope)?;
        let two = c.iter_var2.is_some();
        for (first, second) in elements(&range, two)? {
            let mut inner = scope.new_inner_scope();
            inner.add_variable_from_value(c.accu_var.as_str(), accu.clone());
            inner.add_variable_from_value(c.iter_var.as_str(), first);
            if let (Some(name), Some(value)) = (&c.iter_var2, second) {
                inner.add_variable_from_value(name.as_str(), value);
            }
            if matches!(self.attempt(&c.loop_cond, &inner)?, Ok(Value::Bool(false))) {
                break;
            }
            accu = self.eval(&c.loop_step, &inner)?;
        }
        let mut inner = scope.new_inner_scope();
        inner.add_variable_from_value(c.accu_var.as_str(), accu);
        self.eval(&c.result, &inner)
    }

    /// `all`, `exists` and `existsOne` (of one variable or two) as cel-go expands them:
    /// per element, the condition `@not_strictly_false(@result)` (`all`: two) or
    /// `@not_strictly_false(!@result)` (`exists`: three), then `@result && p` (one and
    /// the predicate's); `existsOne` has no condition and steps `p ? @result + 1 :
    /// @result` (two, or nothing), its result `@result == 1`.
    fn quantifier(
        &mut self,
        q: Quantifier,
        range: &IdedExpr,
        vars: &[&IdedExpr],
        predicate: &IdedExpr,
        scope: &Context<'_>,
    ) -> Eval {
        let names = identifiers(vars)?;
        let range = self.eval(range, scope)?;
        let mut accu: Outcome = Ok(match q {
            Quantifier::ExistsOne => Value::Int(0),
            _ => Value::Bool(q == Quantifier::All),
        });
        for (first, second) in elements(&range, names.len() == 2)? {
            let decided = match q {
                Quantifier::All => {
                    self.charge(2)?;
                    matches!(accu, Ok(Value::Bool(false)))
                }
                Quantifier::Exists => {
                    self.charge(3)?;
                    matches!(accu, Ok(Value::Bool(true)))
                }
                Quantifier::ExistsOne => false,
            };
            if decided {
                break;
            }
            let inner = bind(scope, &names, first, second);
            let p = self.attempt(predicate, &inner)?;
            accu = match q {
                Quantifier::All => {
                    self.charge(1)?;
                    combine(accu, p, false)
                }
                Quantifier::Exists => {
                    self.charge(1)?;
                    combine(accu, p, true)
                }
                // `@result + 1` when the predicate holds; the other branch, an
                // attribute, costs nothing.
                Quantifier::ExistsOne => match (accu, p) {
                    (Ok(Value::Int(n)), Ok(Value::Bool(true))) => {
                        self.charge(2)?;
                        Ok(Value::Int(n + 1))
                    }
                    (Ok(n), Ok(Value::Bool(false))) => Ok(n),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                    _ => Err(ExecutionError::NoSuchOverload),
                },
            };
        }
        self.charge(1)?;
        match (q, accu?) {
            (Quantifier::ExistsOne, Value::Int(n)) => {
                self.charge(1)?;
                Ok(Value::Bool(n == 1))
            }
            (_, value) => Ok(value),
        }
    }

    /// `transformList`, `transformMap` and `transformMapEntry` as cel-go expands them:
    /// per element the filter, if any, then `@result + [expr]` (twelve and the
    /// expression's), `cel.@mapInsert(@result, k, expr)` (three) or
    /// `cel.@mapInsert(@result, expr)` (two), nothing for an element filtered out (the
    /// other branch, an attribute); the value is the library's.
    fn transform(
        &mut self,
        id: u64,
        call: &CallExpr,
        range: &IdedExpr,
        rest: &[IdedExpr],
        scope: &Context<'_>,
    ) -> Eval {
        let names = identifiers(&[&call.args[0], &call.args[1]])?;
        let (filter, expr) = match rest {
            [expr] => (None, expr),
            [filter, expr] => (Some(filter), expr),
            _ => return Err(ExecutionError::invalid_argument_count(4, call.args.len()).into()),
        };
        let (init, step) = match call.func_name.as_str() {
            "transformList" => (LIST, 2 + LIST),
            "transformMap" => (MAP, 3),
            _ => (MAP, 2),
        };
        let value = self.eval(range, scope)?;
        // The accumulator's start, `[]` or `{}`: a constant when optimized.
        if !self.optimized {
            self.charge(init)?;
        }
        for (first, second) in elements(&value, true)? {
            let inner = bind(scope, &names, first, second);
            let kept = match filter {
                Some(filter) => matches!(self.eval(filter, &inner)?, Value::Bool(true)),
                None => true,
            };
            if kept {
                self.eval(expr, &inner)?;
                self.charge(step)?;
            }
        }
        self.charge(1)?;
        self.with_target(id, call, value, scope)
    }

    /// `sortBy(e, key)` as ext.Lists expands it: `cel.bind(@input, target,
    /// @input.@sortByAssociatedKeys(@input.map(e, key)))`, the sort charged by its keys
    /// (`trackListSortBy`); the value is the library's.
    fn sort_by(
        &mut self,
        id: u64,
        call: &CallExpr,
        range: &IdedExpr,
        var: &IdedExpr,
        key: &IdedExpr,
        scope: &Context<'_>,
    ) -> Eval {
        let names = identifiers(&[var])?;
        let value = self.eval(range, scope)?;
        // `@input` as the map's range; unoptimized, `cel.bind`'s range `[]` and the
        // map's accumulator's start `[]` (constants when optimized).
        self.charge(1 + if self.optimized { 0 } else { 2 * LIST })?;
        let mut keys = Vec::new();
        for (item, _) in elements(&value, false)? {
            let inner = bind(scope, &names, item, None);
            keys.push(self.eval(key, &inner)?);
            self.charge(2 + LIST)?;
        }
        // The map's result, `@input` as the sort's target, the sort.
        self.charge(2)?;
        self.charge(self_compare(&keys))?;
        self.with_target(id, call, value, scope)
    }

    /// `opt.optMap(v, expr)` as cel-go expands it: `opt.hasValue() ?
    /// optional.of(cel.bind(v, opt.value(), expr)) : optional.none()` (`optFlatMap`
    /// without `optional.of`), the target evaluated, and charged, twice.
    fn opt_map(
        &mut self,
        flat: bool,
        opt: &IdedExpr,
        var: &IdedExpr,
        expr: &IdedExpr,
        scope: &Context<'_>,
    ) -> Eval {
        let names = identifiers(&[var])?;
        let before = self.spent;
        let target = self.eval(opt, scope)?;
        let target_cost = self.spent - before;
        self.charge(1)?;
        let Some(optional_value) = optional(&target) else {
            return Err(ExecutionError::NoSuchOverload.into());
        };
        let Some(inner_value) = optional_value.value().cloned() else {
            self.charge(1)?;
            return Ok(target);
        };
        self.charge(target_cost + 1 + u64::from(!flat))?;
        let inner = bind(scope, &names, inner_value, None);
        let result = self.eval(expr, &inner)?;
        match flat {
            true if optional(&result).is_some() => Ok(result),
            true => Err(ExecutionError::NoSuchOverload.into()),
            false => Ok(Value::Opaque(Arc::new(OptionalValue::of(result)))),
        }
    }

    /// The library's value of `call` on the target `value` (already charged).
    fn with_target(&mut self, id: u64, call: &CallExpr, value: Value, scope: &Context<'_>) -> Eval {
        let mut bound = Bindings::new();
        let shadow = IdedExpr {
            id,
            expr: Expr::Call(CallExpr {
                func_name: call.func_name.clone(),
                target: Some(Box::new(bound.bind(value))),
                args: call.args.clone(),
            }),
        };
        Ok(bound.resolve(&shadow, scope)?)
    }
}

type Outcome = Result<Value, ExecutionError>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

/// `left && right` (`short` false) or `||` as cel-go decides them: a side that decides
/// wins over a failure on the other; else the first failure.
fn combine(left: Outcome, right: Outcome, short: bool) -> Outcome {
    match (left, right) {
        (Ok(Value::Bool(l)), _) if l == short => Ok(Value::Bool(short)),
        (_, Ok(Value::Bool(r))) if r == short => Ok(Value::Bool(short)),
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!short)),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// A scope with a comprehension's variables bound to an element.
fn bind<'s>(
    scope: &'s Context<'_>,
    names: &[&str],
    first: Value,
    second: Option<Value>,
) -> Context<'s> {
    let mut inner = scope.new_inner_scope();
    match (names, second) {
        ([one], _) => inner.add_variable_from_value(*one, first),
        ([k, v], Some(second)) => {
            inner.add_variable_from_value(*k, first);
            inner.add_variable_from_value(*v, second);
        }
        _ => {}
    }
    inner
}

fn identifiers<'e>(vars: &[&'e IdedExpr]) -> Result<Vec<&'e str>, Stop> {
    vars.iter()
        .map(|v| match &v.expr {
            Expr::Ident(name) => Ok(name.as_str()),
            _ => Err(ExecutionError::function_error(
                "",
                "variable name must be a simple identifier",
            )
            .into()),
        })
        .collect()
}

/// What a comprehension iterates: a list's items (with their indexes first, for two
/// variables) or a map's keys (with their values).
fn elements(range: &Value, two: bool) -> Result<Vec<(Value, Option<Value>)>, Stop> {
    match range {
        Value::List(items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, item)| match two {
                true => (Value::Int(i as i64), Some(item.clone())),
                false => (item.clone(), None),
            })
            .collect()),
        Value::Map(map) => Ok(map
            .map
            .iter()
            .map(|(k, v)| (Value::from(k.clone()), two.then(|| v.clone())))
            .collect()),
        _ => Err(ExecutionError::NoSuchOverload.into()),
    }
}

/// Whether cel-go plans `e` as a constant, which costs nothing: a literal, a type's name,
/// and (`optimized`, with `OptOptimize`) a type conversion of a constant and a list or
/// map of constants.
fn constant(e: &IdedExpr, scope: &Context<'_>, optimized: bool) -> bool {
    let constant = |e: &IdedExpr| constant(e, scope, optimized);
    match &e.expr {
        Expr::Literal(_) => true,
        Expr::Ident(name) => library::is_type_name(name) && scope.get_variable(name).is_some(),
        _ if !optimized => false,
        Expr::List(list) => list.optional_indices.is_empty() && list.elements.iter().all(constant),
        Expr::Map(map) => map.entries.iter().all(|entry| match &entry.expr {
            EntryExpr::MapEntry(e) => !e.optional && constant(&e.key) && constant(&e.value),
            EntryExpr::StructField(_) => false,
        }),
        Expr::Call(call) => {
            call.target.is_none()
                && matches!(&call.args[..], [arg] if constant(arg))
                && is_conversion(cel_go_name(&call.func_name))
        }
        _ => false,
    }
}

/// cel-go's primitive types but bytes: what a set lookup holds.
fn is_primitive(value: &Value) -> bool {
    matches!(
        value,
        Value::Bool(_) | Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::String(_)
    )
}

/// cel-go's type conversions (`overloads.IsTypeConversionFunction`).
fn is_conversion(name: &str) -> bool {
    matches!(
        name,
        "bool"
            | "bytes"
            | "double"
            | "duration"
            | "dyn"
            | "int"
            | "string"
            | "timestamp"
            | "type"
            | "uint"
    )
}

/// Whether cel-go plans `e` as an attribute: a variable and what selects or indexes
/// into one, or a conditional of them.
fn is_attribute(e: &IdedExpr, scope: &Context<'_>) -> bool {
    match &e.expr {
        // A type's name is a constant, however the program is planned.
        Expr::Ident(_) => !constant(e, scope, false),
        Expr::Select(select) => !select.test,
        Expr::Call(call) => matches!(
            call.func_name.as_str(),
            operators::INDEX
                | operators::OPT_INDEX
                | library::OPTIONAL_SELECT
                | operators::CONDITIONAL
        ),
        _ => false,
    }
}

/// The one cel-go charges for making an attribute of an operand that is not one.
fn relative(operand: &IdedExpr, scope: &Context<'_>) -> u64 {
    u64::from(!is_attribute(operand, scope))
}

/// The cel-go function a name of crdgen's rewritten tree stands for.
fn cel_go_name(name: &str) -> &str {
    library::operator_of(name)
        .or_else(|| lists::operator_of(name))
        .unwrap_or(name)
}

/// cel-go's `actualSize`: a string's code points, the bytes, items or entries of the
/// rest, an optional's value's; one for anything else.
fn size(value: &Value) -> u64 {
    match value {
        Value::String(s) => s.chars().count() as u64,
        Value::Bytes(b) => b.len() as u64,
        Value::List(items) => items.len() as u64,
        Value::Map(map) => map.map.len() as u64,
        _ => match optional(value).and_then(|o| o.value()) {
            Some(inner) => size(inner),
            None => 1,
        },
    }
}

/// `n` times `factor`, rounded up, as cel-go rounds its costs.
fn scaled(n: u64, factor: f64) -> u64 {
    (n as f64 * factor).ceil() as u64
}

/// The apiserver's `traversalCost`: a tenth of a string's bytes (rounded down), the sum
/// of a list's items' and of a map's keys' and values', one for anything else.
fn traversal(value: &Value) -> u64 {
    match value {
        Value::String(s) => (s.len() as f64 * TRAVERSAL) as u64,
        Value::Bytes(b) => (b.len() as f64 * TRAVERSAL) as u64,
        Value::List(items) => items.iter().map(traversal).sum(),
        Value::Map(map) => map
            .map
            .iter()
            .map(|(k, v)| traversal(&Value::from(k.clone())) + traversal(v))
            .sum(),
        _ => 1,
    }
}

/// A regular expression's cost on a text: its characters by a quarter times the text's
/// (and one) by a tenth.
fn regex_cost(text: u64, pattern: u64) -> u64 {
    scaled(1 + text, TRAVERSAL) * scaled(pattern, REGEX)
}

/// ext.Lists' charge for a call that compares a list's items with each other (`sort`,
/// `distinct`, and `sortBy`'s keys): twice the square of its size (a tenth more for
/// strings and bytes), one for the call and a list's creation.
fn self_compare(items: &[Value]) -> u64 {
    let n = items.len() as u64;
    let factor = match items.first() {
        Some(Value::String(_) | Value::Bytes(_)) => 2.0 + TRAVERSAL,
        _ => 2.0,
    };
    allocating((n * n) as f64 * factor)
}

/// ext.Lists' `trackAllocatingListCall`: the work, rounded down, with one for the call
/// and a list's creation.
fn allocating(work: f64) -> u64 {
    work as u64 + 1 + LIST
}

/// A call's own cost by its operands (a member call's target first) and result: the
/// apiserver's library costs, ext.Lists' trackers, else cel-go's defaults.
fn call_cost(name: &str, args: &[Value], result: &Value) -> u64 {
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let s = |i: usize| size(arg(i));
    let is_string = |i: usize| matches!(arg(i), Value::String(_));
    let is_text = |i: usize| matches!(arg(i), Value::String(_) | Value::Bytes(_));
    let opaque = |i: usize| matches!(arg(i), Value::Opaque(_)) && optional(arg(i)).is_none();
    match name {
        // Kubernetes' libraries (apiserver pkg/cel/library/cost.go `CallCost`).
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" if !args.is_empty() => {
            traversal(arg(0))
        }
        "url"
        | "lowerAscii"
        | "upperAscii"
        | "substring"
        | "trim"
        | "jsonpatch.escapeKey"
        | "cidr"
        | "isIP"
        | "isCIDR"
        | "quantity"
        | "isQuantity"
        | "semver"
        | "isSemver"
            if !args.is_empty() =>
        {
            scaled(s(0), TRAVERSAL)
        }
        "ip" if opaque(0) => 1,
        "ip" if !args.is_empty() => scaled(s(0), TRAVERSAL),
        "replace" | "split" | "ip.isCanonical" if !args.is_empty() => scaled(s(0), 2.0 * TRAVERSAL),
        "join" => scaled(size(result), 2.0 * TRAVERSAL),
        "find" | "findAll" if args.len() >= 2 => regex_cost(s(0), s(1)),
        "containsIP" | "containsCIDR" if args.len() >= 2 => {
            let cidr = s(0);
            let mut cost = scaled(cidr + cidr, TRAVERSAL);
            if name == "containsCIDR" {
                cost += scaled(cidr, TRAVERSAL) + 1;
            }
            if is_string(1) {
                cost += scaled(s(1), TRAVERSAL);
            }
            cost
        }
        "validate" if args.len() >= 2 => match format::max_regex_size(arg(0)) {
            Some(pattern) => regex_cost(s(1), pattern),
            None => 1,
        },
        operators::EQUALS if opaque(0) => 1,
        // ext.Lists' trackers.
        "slice" | "lists.range" | "reverse" => allocating(size(result) as f64),
        "flatten" => {
            let depth = match arg(1) {
                Value::Int(d) => *d as f64,
                _ => 1.0,
            };
            allocating(s(0) as f64 * depth)
        }
        // ext.Sets' trackers: the product of the sizes (twice for equivalence), and the
        // call.
        "sets.contains" | "sets.intersects" => 1 + s(0) * s(1),
        "sets.equivalent" => 1 + 2 * s(0) * s(1),
        "distinct" | "sort" => match arg(0) {
            Value::List(items) => self_compare(items),
            _ => 1,
        },
        // cel-go's own (interpreter/runtimecost.go `costCall`).
        "startsWith" | "endsWith" | "strings.quote" | "format" if is_text(0) => {
            scaled(s(0), TRAVERSAL)
        }
        "bytes" if is_string(0) => scaled(s(0), TRAVERSAL),
        "string" if matches!(arg(0), Value::Bytes(_)) => scaled(s(0), TRAVERSAL),
        operators::IN if matches!(arg(1), Value::List(_)) => s(1),
        operators::LESS
        | operators::GREATER
        | operators::LESS_EQUALS
        | operators::GREATER_EQUALS
            if is_text(0) =>
        {
            scaled(s(0).min(s(1)), TRAVERSAL)
        }
        operators::EQUALS | operators::NOT_EQUALS => scaled(s(0).min(s(1)), TRAVERSAL),
        operators::ADD if is_text(0) => scaled(s(0) + s(1), TRAVERSAL),
        "matches" if is_string(0) => regex_cost(s(0), s(1)),
        "contains" if is_string(0) => scaled(s(0), TRAVERSAL) * scaled(s(1), TRAVERSAL),
        _ => 1,
    }
}
