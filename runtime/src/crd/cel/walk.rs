//! The apiserver's walk over an object on a write: at every node with rules, `self` (and
//! `oldSelf` where the old object has a value for the node) bound and each rule run;
//! children reached through properties, map values and list items, old values found for
//! them where they can be told apart (properties, map keys, map-list keys; never by a
//! list index).

use kube_cel::cel::objects::OptionalValue;
use kube_cel::cel::{Context, ExecutionError, Value as Cel};
use serde_json::Value;

use crdgen_apimachinery::cel::decl::ListType;

use super::budget::Budget;
use super::compile::{Node, Program, Rule, Shape};
use super::cost::Stop;
use super::errors;
use super::invalid;
use super::value::to_cel;
use crate::field::{Error, ErrorType, Path};

/// Where the walk is: the path so far, and what ratcheting knows.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub path: &'a Path,
    /// Whether the value here (when the old object has one for it) or at the nearest
    /// node above that has one is unchanged: the apiserver then lets a failing rule that
    /// does not read `oldSelf` pass, as a warning (CRD validation ratcheting).
    pub unchanged: bool,
    /// Whether the server ratchets rules at all (1.30 and later).
    pub ratchets: bool,
    /// Whether this is the object's root, whose `apiVersion` and `kind` are never
    /// ratcheted (old and new are read as the same type).
    pub top: bool,
    /// Whether a failed rule names its node's type in place of its value (`Invalid
    /// value: "object": …`, `"string"`), as before 1.35; from 1.35 an object or list
    /// shows nothing and a scalar its value.
    pub typed_values: bool,
    /// Whether the object passed the schema's type checks: no rule reads data of
    /// another type then, and none is looked for.
    pub typed_data: bool,
}

/// Runs the rules of `node` and below on `value`, adding what fails to `errors`.
pub(super) fn walk(
    ctx: &Context<'_>,
    node: &Node,
    value: &Value,
    old: Option<&Value>,
    at: At<'_>,
    budget: &mut Budget,
    errors: &mut Vec<Error>,
) {
    if !node.has_rules || value.is_null() || budget.is_over() {
        return;
    }
    let at = At {
        unchanged: at.ratchets && old.map_or(at.unchanged, |o| o == value),
        ..at
    };
    if !node.rules.is_empty() {
        run(ctx, node, value, old, at, budget, errors);
    }
    for branch in &node.all_of {
        walk(ctx, branch, value, old, at, budget, errors);
    }
    match (&node.shape, value) {
        (Shape::Object { properties, .. }, Value::Object(fields)) => {
            for (name, property) in properties {
                if let Some(field) = fields.get(name).filter(|_| property.node.has_rules) {
                    let path = at.path.child(name);
                    let mut child = at.to(&path);
                    let old = match at.top && matches!(name.as_str(), "apiVersion" | "kind") {
                        true => {
                            child.unchanged = false;
                            None
                        }
                        false => old.and_then(|o| o.get(name)),
                    };
                    walk(ctx, &property.node, field, old, child, budget, errors);
                }
            }
        }
        (Shape::Map(values), Value::Object(fields)) if values.has_rules => {
            for (key, field) in fields {
                let path = at.path.key(key);
                let old = old.and_then(|o| o.get(key));
                walk(ctx, values, field, old, at.to(&path), budget, errors);
            }
        }
        (Shape::List { items, list_type }, Value::Array(list)) if items.has_rules => {
            for (i, item) in list.iter().enumerate() {
                let path = at.path.index(i);
                let old = match list_type {
                    Some(ListType::Map(keys)) => {
                        old.and_then(|o| old_item(keys, item, o.as_array()?))
                    }
                    _ => None,
                };
                walk(ctx, items, item, old, at.to(&path), budget, errors);
            }
        }
        _ => {}
    }
}

impl<'a> At<'a> {
    fn to<'b>(self, path: &'b Path) -> At<'b> {
        At {
            path,
            top: false,
            ..self
        }
    }
}

/// The old item of a map list with the same keys as `item`.
fn old_item<'v>(keys: &[String], item: &Value, old: &'v [Value]) -> Option<&'v Value> {
    old.iter()
        .find(|candidate| keys.iter().all(|k| candidate.get(k) == item.get(k)))
}

/// The rules of one node.
fn run(
    ctx: &Context<'_>,
    node: &Node,
    value: &Value,
    old: Option<&Value>,
    at: At<'_>,
    budget: &mut Budget,
    errors: &mut Vec<Error>,
) {
    if !budget.has_left() {
        errors.push(invalid_type(node, at, OUT_OF_BUDGET.to_owned()));
        budget.stop();
        return;
    }
    let this = to_cel(node, value);
    let previous = old.filter(|o| !o.is_null()).map(|o| to_cel(node, o));
    let mut scope = ctx.new_inner_scope();
    scope.add_variable_from_value("self", this);
    // `optionalOldSelf` rules see oldSelf as an optional value.
    let mut optional = scope.new_inner_scope();
    optional.add_variable_from_value(
        "oldSelf",
        Cel::Opaque(std::sync::Arc::new(match &previous {
            Some(p) => OptionalValue::of(p.clone()),
            None => OptionalValue::none(),
        })),
    );
    let has_old = previous.is_some();
    let mut plain = scope.new_inner_scope();
    if let Some(p) = previous {
        plain.add_variable_from_value("oldSelf", p);
    }
    for rule in &node.rules {
        // A rule that does not compile is an error on every write, as the apiserver
        // reports it before deciding whether the rule runs.
        if let Err(e) = &rule.program {
            errors.push(invalid_type(node, at, format!("rule compile error: {e}")));
            continue;
        }
        if rule.uses_old_self && !has_old && !rule.optional_old_self {
            continue;
        }
        let scope = match rule.optional_old_self {
            true => &optional,
            false => &plain,
        };
        match check(scope, node, rule, (value, old), at, budget) {
            // Ratcheting: an unchanged value keeps passing rules that do not compare
            // it with its old self (a rule that fails to evaluate is still an error).
            Some(Outcome::Failed(_)) if at.unchanged && !rule.uses_old_self => {}
            Some(Outcome::Failed(error) | Outcome::Errored(error)) => errors.push(error),
            None => {}
        }
        if budget.is_over() {
            return;
        }
    }
}

/// The apiserver's error when a write's rules have spent their runtime budget.
const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// How a rule that does not hold went.
enum Outcome {
    /// It gave false (or its messageExpression ran out of budget, an error ratcheting
    /// lets pass as the apiserver does).
    Failed(Error),
    /// Its evaluation failed, or ran out of budget.
    Errored(Error),
}

/// What stopped an evaluation short of a value.
enum Limit {
    /// Its estimate could take the write past a limit: the walk is done again,
    /// counting.
    Estimated,
    /// It spent the rest of the budget.
    Budget,
    /// It went past the per-call limit.
    PerCall,
}

/// Evaluates `program` within the budget: its value or evaluation error, unless a limit
/// stopped it.
fn evaluate(
    scope: &Context<'_>,
    program: &Program,
    budget: &mut Budget,
) -> Result<Result<Cel, ExecutionError>, Limit> {
    if !budget.counts() {
        return match budget.estimate(program.estimate) {
            true => Ok(with_stack(program, || scope.resolve(&program.expression))),
            false => Err(Limit::Estimated),
        };
    }
    let mut tracker = budget.tracker();
    let result = with_stack(program, || tracker.eval(&program.expression, scope));
    if !budget.spend(tracker.spent()) {
        return Err(Limit::Budget);
    }
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(Stop::Failed(error)) => Ok(Err(error)),
        Err(Stop::OverLimit) => {
            budget.stop();
            Err(Limit::PerCall)
        }
    }
}

/// Runs `evaluate` of `program` on a stack deep enough for its tree.
fn with_stack<R>(program: &Program, evaluate: impl FnOnce() -> R) -> R {
    crdgen_apimachinery::cel::compile::with_stack(program.height, evaluate)
}

/// An error on the node itself, naming its type in place of its value.
fn invalid_type(node: &Node, at: At<'_>, detail: String) -> Error {
    Error {
        kind: ErrorType::Invalid,
        field: at.path.clone(),
        value: Some(Value::String(node.type_name.clone())),
        detail,
    }
}

/// One compiled rule: `None` when it holds (or the walk is to be done again,
/// counting).
fn check(
    scope: &Context<'_>,
    node: &Node,
    rule: &Rule,
    (value, old): (&Value, Option<&Value>),
    at: At<'_>,
    budget: &mut Budget,
) -> Option<Outcome> {
    let errored = |detail: String| Some(Outcome::Errored(invalid_type(node, at, detail)));
    let program = rule.program.as_ref().ok()?;
    if let Some(refusal) = (!at.typed_data)
        .then(|| invalid::first_refused(&program.reads, node, value, old))
        .flatten()
    {
        return errored(format!("{refusal} evaluating rule: {}", rule.name()));
    }
    let evaluated = match evaluate(scope, program, budget) {
        Ok(evaluated) => evaluated,
        Err(Limit::Estimated) => return None,
        Err(Limit::Budget) => return errored(OUT_OF_BUDGET.to_owned()),
        Err(Limit::PerCall) => {
            return errored(format!(
                "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                rule.name()
            ));
        }
    };
    match evaluated {
        Ok(Cel::Bool(true)) => None,
        Ok(Cel::Bool(false)) => {
            let field = match &rule.field_path {
                Some(p) => at.path.child(p),
                None => at.path.clone(),
            };
            let typed = |detail: String| Error {
                kind: ErrorType::Invalid,
                field: field.clone(),
                value: Some(Value::String(node.type_name.clone())),
                detail,
            };
            let detail = match message(scope, rule, budget) {
                Ok(detail) => detail,
                Err((Limit::Estimated, _)) => return None,
                Err((Limit::Budget, _)) => {
                    return Some(Outcome::Failed(typed(
                        "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".to_owned(),
                    )));
                }
                Err((Limit::PerCall, source)) => {
                    return Some(Outcome::Failed(typed(format!(
                        "no further validation rules will be run due to call cost exceeds limit for messageExpression: {source:?}"
                    ))));
                }
            };
            let kind = ErrorType::from_reason(rule.reason.as_deref());
            let value = match node.type_name.as_str() {
                _ if at.typed_values => Some(Value::String(node.type_name.clone())),
                "object" | "array" => None,
                _ => Some(value.clone()),
            };
            Some(Outcome::Failed(Error {
                kind,
                field,
                value,
                detail,
            }))
        }
        Ok(other) => errored(format!(
            "rule did not evaluate to a bool ({}) evaluating rule: {}",
            other.type_of(),
            rule.name()
        )),
        Err(e) => errored(format!(
            "{} evaluating rule: {}",
            errors::text(&e),
            rule.name()
        )),
    }
}

/// The longest message a messageExpression may give (apiextensions-apiserver's
/// `MaxEvaluatedMessageExpressionSizeBytes`); a longer one falls back to the message.
const MAX_MESSAGE_EXPRESSION_LENGTH: usize = 5120;

/// A failed rule's message: its `messageExpression`'s when that gives a non-empty line,
/// else its `message`, else `failed rule: <rule>`; a limit that stopped the
/// messageExpression, with its source.
fn message<'r>(
    scope: &Context<'_>,
    rule: &'r Rule,
    budget: &mut Budget,
) -> Result<String, (Limit, &'r str)> {
    if let Some(expression) = &rule.message_expression
        && let Ok(program) = &expression.program
    {
        match evaluate(scope, program, budget) {
            Ok(Ok(Cel::String(s))) => {
                let trimmed = s.trim();
                if !trimmed.is_empty()
                    && !trimmed.contains(['\n', '\r'])
                    && trimmed.len() <= MAX_MESSAGE_EXPRESSION_LENGTH
                {
                    return Ok(trimmed.to_owned());
                }
            }
            Ok(_) => {}
            Err(limit) => return Err((limit, &expression.source)),
        }
    }
    Ok(match rule.message.as_deref().map(str::trim) {
        Some(m) if !m.is_empty() => m.to_owned(),
        _ => format!("failed rule: {}", rule.name()),
    })
}
