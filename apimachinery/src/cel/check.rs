//! One rule read as kube-apiserver's compiler reads it: each expression typed against
//! the schema (so that a field the schema does not have, a variable that does not exist
//! and a result that is not a bool are found), and its cost estimated as cel-go's
//! checker estimates it, with Kubernetes' library costs and the schema's size bounds.

use std::rc::Rc;

use kube_cel::cel::common::ast::{ComprehensionExpr, Expr, LiteralValue, operators};
use kube_cel::cel::parser::Expression;

use super::cost::{self, Range};
use super::decl::{Decl, Kind};
use super::{QUALIFIED_TYPES, is_reserved};

/// A CEL type, as far as the checks need one.
#[derive(Clone, Debug)]
pub(crate) enum Ty<'d> {
    Dyn,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    Null,
    List(Rc<Ty<'d>>),
    Map(Rc<Ty<'d>>),
    Object(&'d Decl),
    Optional(Rc<Ty<'d>>),
    /// Types, quantities, semvers, IPs, URLs: values the checks do not look into.
    Other,
}

impl<'d> Ty<'d> {
    fn of(decl: &'d Decl) -> Ty<'d> {
        match &decl.kind {
            Kind::Object { .. } => Ty::Object(decl),
            Kind::Map(values) => Ty::Map(Rc::new(Ty::of(values))),
            Kind::List(items) => Ty::List(Rc::new(Ty::of(items))),
            Kind::String => Ty::String,
            Kind::Bytes => Ty::Bytes,
            Kind::Duration => Ty::Duration,
            Kind::Timestamp => Ty::Timestamp,
            Kind::Int => Ty::Int,
            Kind::Double => Ty::Double,
            Kind::Bool => Ty::Bool,
            Kind::Dyn => Ty::Dyn,
        }
    }

    /// The name an error gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Ty::Dyn | Ty::Other => "dyn",
            Ty::Bool => "bool",
            Ty::Int => "int",
            Ty::Uint => "uint",
            Ty::Double => "double",
            Ty::String => "string",
            Ty::Bytes => "bytes",
            Ty::Duration => "duration",
            Ty::Timestamp => "timestamp",
            Ty::Null => "null_type",
            Ty::List(_) => "list",
            Ty::Map(_) | Ty::Object(_) => "map",
            Ty::Optional(_) => "optional",
        }
    }

    fn scalar(&self) -> bool {
        match self {
            Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint => true,
            Ty::Optional(inner) => inner.scalar(),
            _ => false,
        }
    }

    fn textual(&self) -> bool {
        matches!(self, Ty::String | Ty::Bytes)
    }
}

/// Sizes of the entries of a list or map literal (or of a comprehension's result).
#[derive(Clone, Copy, Debug)]
struct Entries {
    list: bool,
    key: Range,
    value: Range,
}

impl Entries {
    /// Either's entries (of a conditional's branches, a concatenation's operands).
    fn union(a: Option<Entries>, b: Option<Entries>) -> Option<Entries> {
        let (a, b) = (a?, b?);
        Some(Entries {
            list: a.list,
            key: a.key.union(b.key),
            value: a.value.union(b.value),
        })
    }
}

/// What is known of one expression.
#[derive(Clone, Debug)]
struct Node<'d> {
    ty: Ty<'d>,
    cost: Range,
    size: Option<Range>,
    /// Its place in the schema: `self`, then fields, `@items`, `@values`, `@keys`.
    path: Option<Rc<Vec<String>>>,
    entries: Option<Entries>,
}

/// A variable in scope: a comprehension's iteration variable or accumulator.
struct Local<'d> {
    name: String,
    ty: Ty<'d>,
    path: Option<Rc<Vec<String>>>,
    size: Option<Range>,
    entries: Option<Entries>,
}

/// What a rule was found to be.
#[derive(Debug)]
pub struct Analysis {
    /// Its estimated cost, as cel-go's `EstimateCost(..).Max`.
    pub cost: u64,
    /// What the apiserver's compiler would refuse, in its words.
    pub errors: Vec<String>,
    /// Whether it reads `oldSelf`.
    pub uses_old_self: bool,
    /// Its result type.
    pub result: &'static str,
    /// The unbounded lists, maps and strings its size estimates came from, as schema
    /// paths below the rule's node (`[*]` an item, `[*]` of a map a value), with the
    /// marker that would bound each.
    pub unbounded: Vec<(String, &'static str)>,
}

/// Namespaces of Kubernetes' and cel-go's extension functions (`math.ceil(x)`).
const NAMESPACES: &[&str] = &[
    "math",
    "sets",
    "lists",
    "strings",
    "base64",
    "optional",
    "format",
    "jsonpatch",
    "cel",
    "ip",
];

/// Macros the apiserver has and the cel crate does not expand (two-variable
/// comprehensions, `sortBy`, `cel.bind`): calls whose leading identifiers are variables
/// they declare.
const BINDING: &[&str] = &[
    "all",
    "exists",
    "exists_one",
    "existsOne",
    "map",
    "filter",
    "transformList",
    "transformMap",
    "transformMapEntry",
    "sortBy",
    "cel.bind",
    "optMap",
    "optFlatMap",
];

/// Type names a rule may write as values (`type(x) == int`).
const TYPE_NAMES: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "type",
    "null_type",
    "duration",
    "timestamp",
    "dyn",
];

/// Reads `rule` at a schema node of type `root`. `optional_old_self`: `oldSelf` is an
/// optional value.
pub fn analyze(rule: &Expression, root: &Decl, optional_old_self: bool) -> Analysis {
    let mut checker = Checker {
        root,
        optional_old_self,
        locals: Vec::new(),
        errors: Vec::new(),
        uses_old_self: false,
        unbounded: Vec::new(),
    };
    let node = checker.expr(rule);
    Analysis {
        cost: node.cost.max,
        errors: checker.errors,
        uses_old_self: checker.uses_old_self,
        result: node.ty.name(),
        unbounded: checker.unbounded,
    }
}

struct Checker<'d> {
    root: &'d Decl,
    optional_old_self: bool,
    locals: Vec<Local<'d>>,
    errors: Vec<String>,
    uses_old_self: bool,
    unbounded: Vec<(String, &'static str)>,
}

fn literal_size(literal: &LiteralValue) -> u64 {
    match literal {
        LiteralValue::String(s) => s.inner().chars().count() as u64,
        LiteralValue::Bytes(b) => b.inner().len() as u64,
        _ => 1,
    }
}

fn extend(path: &Option<Rc<Vec<String>>>, step: &str) -> Option<Rc<Vec<String>>> {
    path.as_ref().map(|p| {
        let mut next = p.as_ref().clone();
        next.push(step.to_owned());
        Rc::new(next)
    })
}

impl<'d> Checker<'d> {
    fn local(&self, name: &str) -> Option<&Local<'d>> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    /// The schema type at `path` (which starts at `self` or `oldSelf`).
    fn decl_at(&self, path: &[String]) -> Option<&'d Decl> {
        let (first, rest) = path.split_first()?;
        if first != "self" && first != "oldSelf" {
            return None;
        }
        rest.iter()
            .try_fold(self.root, |decl, step| decl.step(step))
    }

    /// cel-go's `computeSize` for an expression of no size of its own: the schema's
    /// bound at its path, else 1 for a scalar, else its variable's.
    fn size_of(
        &mut self,
        ty: &Ty<'d>,
        path: &Option<Rc<Vec<String>>>,
        local: Option<&str>,
    ) -> Option<Range> {
        if let Some(p) = path
            && let Some(decl) = self.decl_at(p)
        {
            if !decl.bounded && decl.max_elements > 0 {
                self.note_unbounded(p, decl);
            }
            return Some(Range {
                min: 0,
                max: decl.max_elements,
            });
        }
        if ty.scalar() {
            return Some(Range::fixed(1));
        }
        local.and_then(|name| self.local(name)).and_then(|l| l.size)
    }

    fn note_unbounded(&mut self, path: &[String], decl: &Decl) {
        let marker = match decl.kind {
            Kind::List(_) => "MaxItems",
            Kind::Map(_) => "MaxProperties",
            _ => "MaxLength",
        };
        let mut at = String::from("self");
        for step in &path[1..] {
            match step.as_str() {
                "@items" | "@values" => at.push_str("[*]"),
                "@keys" => at.push_str("[key]"),
                field => {
                    at.push('.');
                    at.push_str(field);
                }
            }
        }
        if !self.unbounded.iter().any(|(p, _)| *p == at) {
            self.unbounded.push((at, marker));
        }
    }

    fn node(&mut self, ty: Ty<'d>, cost: Range, path: Option<Rc<Vec<String>>>) -> Node<'d> {
        let size = self.size_of(&ty, &path, None);
        Node {
            ty,
            cost,
            size,
            path,
            entries: None,
        }
    }

    fn expr(&mut self, e: &Expression) -> Node<'d> {
        match &e.expr {
            Expr::Literal(literal) => Node {
                ty: match literal {
                    LiteralValue::Boolean(_) => Ty::Bool,
                    LiteralValue::Bytes(_) => Ty::Bytes,
                    LiteralValue::Double(_) => Ty::Double,
                    LiteralValue::Int(_) => Ty::Int,
                    LiteralValue::Null => Ty::Null,
                    LiteralValue::String(_) => Ty::String,
                    LiteralValue::UInt(_) => Ty::Uint,
                },
                cost: Range::fixed(0),
                size: Some(Range::fixed(literal_size(literal))),
                path: None,
                entries: None,
            },
            Expr::Ident(name) => self.ident(name),
            Expr::Select(_) if self.qualified_type(e) => {
                self.node(Ty::Other, Range::fixed(1), None)
            }
            Expr::Select(select) => {
                let operand = self.expr(&select.operand);
                let ty = self.field(&operand.ty, &select.field);
                if select.test {
                    // `has()`: free in Kubernetes' environment, but for its operand.
                    return Node {
                        ty: Ty::Bool,
                        cost: operand.cost,
                        size: Some(Range::fixed(1)),
                        path: None,
                        entries: None,
                    };
                }
                let lookup = match operand.ty {
                    Ty::Map(_) | Ty::Object(_) => Range::fixed(1),
                    _ => Range::fixed(0),
                };
                let path = extend(&operand.path, &select.field);
                self.node(ty, operand.cost.add(lookup), path)
            }
            Expr::Call(call) => self.call(&call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => {
                let mut cost = Range::fixed(cost::LIST);
                let mut item = Range {
                    min: if list.elements.is_empty() {
                        0
                    } else {
                        u64::MAX
                    },
                    max: 0,
                };
                let mut ty = None;
                for element in &list.elements {
                    let node = self.expr(element);
                    cost = cost.add(node.cost);
                    item = item.union(node.size.unwrap_or(Range::UNKNOWN));
                    ty.get_or_insert(node.ty);
                }
                Node {
                    ty: Ty::List(Rc::new(ty.unwrap_or(Ty::Dyn))),
                    cost,
                    size: Some(Range::fixed(list.elements.len() as u64)),
                    path: None,
                    entries: Some(Entries {
                        list: true,
                        key: Range::fixed(1),
                        value: item,
                    }),
                }
            }
            Expr::Map(map) => {
                let mut cost = Range::fixed(cost::MAP);
                let start = |empty: bool| Range {
                    min: if empty { 0 } else { u64::MAX },
                    max: 0,
                };
                let (mut key, mut value) =
                    (start(map.entries.is_empty()), start(map.entries.is_empty()));
                for entry in &map.entries {
                    if let kube_cel::cel::common::ast::EntryExpr::MapEntry(e) = &entry.expr {
                        let (k, v) = (self.expr(&e.key), self.expr(&e.value));
                        cost = cost.add(k.cost).add(v.cost);
                        key = key.union(k.size.unwrap_or(Range::UNKNOWN));
                        value = value.union(v.size.unwrap_or(Range::UNKNOWN));
                    }
                }
                Node {
                    ty: Ty::Map(Rc::new(Ty::Dyn)),
                    cost,
                    size: Some(Range::fixed(map.entries.len() as u64)),
                    path: None,
                    entries: Some(Entries {
                        list: false,
                        key,
                        value,
                    }),
                }
            }
            Expr::Struct(s) => {
                let mut cost = Range::fixed(cost::STRUCT);
                for entry in &s.entries {
                    if let kube_cel::cel::common::ast::EntryExpr::StructField(f) = &entry.expr {
                        cost = cost.add(self.expr(&f.value).cost);
                    }
                }
                self.node(Ty::Other, cost, None)
            }
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Unspecified => self.node(Ty::Dyn, Range::fixed(0), None),
        }
    }

    /// Whether `e` spells a qualified type name (`net.IP`) whose first part is no
    /// variable.
    fn qualified_type(&self, e: &Expression) -> bool {
        let mut parts = Vec::new();
        let mut at = e;
        loop {
            match &at.expr {
                Expr::Select(s) if !s.test => {
                    parts.push(s.field.as_str());
                    at = &s.operand;
                }
                Expr::Ident(first) if self.local(first).is_none() => {
                    parts.push(first);
                    break;
                }
                _ => return false,
            }
        }
        parts.reverse();
        QUALIFIED_TYPES.contains(&parts.join(".").as_str())
    }

    fn ident(&mut self, name: &str) -> Node<'d> {
        let cost = Range::fixed(1);
        if let Some(local) = self.local(name) {
            let (ty, path, size, entries) = (
                local.ty.clone(),
                local.path.clone(),
                local.size,
                local.entries,
            );
            let size = self.size_of(&ty, &path, Some(name)).or(size);
            return Node {
                ty,
                cost,
                size,
                path,
                entries,
            };
        }
        let ty = match name {
            "self" => Ty::of(self.root),
            "oldSelf" => {
                self.uses_old_self = true;
                match self.optional_old_self {
                    true => Ty::Optional(Rc::new(Ty::of(self.root))),
                    false => Ty::of(self.root),
                }
            }
            _ if TYPE_NAMES.contains(&name) => Ty::Other,
            _ => {
                self.errors
                    .push(format!("undeclared reference to '{name}'"));
                Ty::Dyn
            }
        };
        let path = matches!(name, "self" | "oldSelf").then(|| Rc::new(vec![name.to_owned()]));
        self.node(ty, cost, path)
    }

    /// The type of `field` of a value of type `ty`, noting a field that cannot be.
    fn field(&mut self, ty: &Ty<'d>, field: &str) -> Ty<'d> {
        match ty {
            Ty::Object(decl) => match &decl.kind {
                // Since Kubernetes 1.31 a reserved word is also reachable as written.
                Kind::Object { fields, open } => match fields.get(field).or_else(|| {
                    is_reserved(field)
                        .then(|| fields.get(&format!("__{field}__")))
                        .flatten()
                }) {
                    Some(f) => Ty::of(f),
                    None if *open => Ty::Dyn,
                    None => {
                        self.errors.push(format!("undefined field '{field}'"));
                        Ty::Dyn
                    }
                },
                _ => Ty::Dyn,
            },
            Ty::Map(values) => values.as_ref().clone(),
            Ty::Dyn | Ty::Other | Ty::Optional(_) => Ty::Dyn,
            scalar => {
                self.errors.push(format!(
                    "type '{}' does not support field selection",
                    scalar.name()
                ));
                Ty::Dyn
            }
        }
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Node<'d> {
        let range = self.expr(&c.iter_range);
        let init = self.expr(&c.accu_init);
        let mut cost = range.cost.add(init.cost);
        let list = range
            .entries
            .map_or(matches!(range.ty, Ty::List(_)), |e| e.list);
        let (item_ty, key_ty) = match &range.ty {
            Ty::List(items) => (items.as_ref().clone(), Ty::Int),
            Ty::Map(values) => (values.as_ref().clone(), Ty::String),
            Ty::Object(_) => (Ty::Dyn, Ty::String),
            _ => (Ty::Dyn, Ty::Dyn),
        };
        self.locals.push(Local {
            name: c.accu_var.clone(),
            ty: init.ty.clone(),
            path: None,
            size: init.size,
            entries: init.entries,
        });
        let entry_key = range.entries.map(|e| e.key);
        let entry_value = range.entries.map(|e| e.value);
        let pushed = match &c.iter_var2 {
            Some(second) => {
                let (key_step, value_step) = match list {
                    true => ("@indices", "@items"),
                    false => ("@keys", "@values"),
                };
                self.locals.push(Local {
                    name: c.iter_var.clone(),
                    ty: key_ty,
                    path: extend(&range.path, key_step),
                    size: entry_key,
                    entries: None,
                });
                self.locals.push(Local {
                    name: second.clone(),
                    ty: item_ty,
                    path: extend(&range.path, value_step),
                    size: entry_value,
                    entries: None,
                });
                2
            }
            None => {
                let (ty, step, size) = match list {
                    true => (item_ty, "@items", entry_value),
                    false => (key_ty, "@keys", entry_key),
                };
                self.locals.push(Local {
                    name: c.iter_var.clone(),
                    ty,
                    path: extend(&range.path, step),
                    size,
                    entries: None,
                });
                1
            }
        };
        let condition = self.expr(&c.loop_cond);
        let step = self.expr(&c.loop_step);
        for _ in 0..pushed {
            self.locals.pop();
        }
        let result = self.expr(&c.result);
        self.locals.pop();
        cost = cost.add(result.cost);
        let count = range.size.unwrap_or(Range::UNKNOWN);
        cost = cost.add(count.mul(step.cost.add(condition.cost)));
        let (size, entries, ty) = match &c.accu_init.expr {
            Expr::List(_) | Expr::Map(_) => (Some(count), step.entries, step.ty.clone()),
            Expr::Literal(_) => (init.size, None, result.ty.clone()),
            _ => (None, None, result.ty.clone()),
        };
        Node {
            ty,
            cost,
            size,
            path: None,
            entries,
        }
    }

    fn call(&mut self, name: &str, target: Option<&Expression>, args: &[Expression]) -> Node<'d> {
        // `math.ceil(x)` is parsed as a call of `ceil` on the identifier `math`.
        let (qualified, target) = match target.map(|t| &t.expr) {
            Some(Expr::Ident(ns))
                if NAMESPACES.contains(&ns.as_str()) && self.local(ns).is_none() =>
            {
                (format!("{ns}.{name}"), None)
            }
            _ => (name.to_owned(), target),
        };
        let name = qualified.as_str();
        let target = target.map(|t| self.expr(t));
        if BINDING.contains(&name) {
            return self.binding(target, args);
        }
        let args: Vec<Node<'d>> = args.iter().map(|a| self.expr(a)).collect();
        let target_cost = target.as_ref().map_or(Range::fixed(0), |t| t.cost);
        let (fn_cost, mut size, entries) = self.function(name, target.as_ref(), &args);
        let ty = result_type(name, target.as_ref(), &args);
        let mut path = None;
        if matches!(name, operators::INDEX | operators::OPT_INDEX)
            && let Some(container) = args.first()
        {
            let step = match container.ty {
                Ty::Map(_) | Ty::Object(_) => "@values",
                _ => "@items",
            };
            size = container.entries.map(|e| e.value);
            path = extend(&container.path, step);
        }
        let cost = target_cost.add(fn_cost);
        let size = match size {
            Some(s) => Some(s),
            None => self.size_of(&ty, &path, None),
        };
        Node {
            ty,
            cost,
            size,
            path,
            entries,
        }
    }

    /// A macro the parser left a call: its leading identifiers are bound (as `dyn`)
    /// while the rest is read, and it costs as a comprehension over its target would,
    /// the rest once per element.
    fn binding(&mut self, target: Option<Node<'d>>, args: &[Expression]) -> Node<'d> {
        let declared: Vec<&str> = args
            .iter()
            .take(args.len().saturating_sub(1))
            .map_while(|a| match &a.expr {
                Expr::Ident(name) => Some(name.as_str()),
                _ => None,
            })
            .collect();
        for name in &declared {
            self.locals.push(Local {
                name: (*name).to_owned(),
                ty: Ty::Dyn,
                path: None,
                size: None,
                entries: None,
            });
        }
        let body = args[declared.len()..]
            .iter()
            .fold(Range::fixed(0), |sum, a| sum.add(self.expr(a).cost));
        self.locals.truncate(self.locals.len() - declared.len());
        let cost = match &target {
            Some(t) => t.cost.add(
                t.size
                    .unwrap_or(Range::UNKNOWN)
                    .mul(body.add(Range::fixed(2))),
            ),
            None => body.add(Range::fixed(1)),
        };
        self.node(Ty::Dyn, cost, None)
    }

    /// A call's own cost (with its arguments', not its target's), its result's size
    /// when known, and its entries: Kubernetes' library estimates first, then cel-go's.
    fn function(
        &mut self,
        name: &str,
        target: Option<&Node<'d>>,
        args: &[Node<'d>],
    ) -> (Range, Option<Range>, Option<Entries>) {
        let arg_sum = args.iter().fold(Range::fixed(0), |s, a| s.add(a.cost));
        let size = |n: &Node<'d>| n.size.unwrap_or(Range::UNKNOWN);
        let with_args = |cost: Range| (cost.add(arg_sum), None, None);
        if let Some((cost, result)) = self.kubernetes(name, target, args) {
            return (cost.add(arg_sum), result, None);
        }
        match (name, target, args) {
            ("format", Some(t), _) => with_args(size(t).factor(cost::TRAVERSAL)),
            ("bytes", None, [a]) if matches!(a.ty, Ty::String) => {
                let s = size(a);
                let result = Range {
                    min: s.min,
                    max: s.max.saturating_mul(4),
                };
                (s.factor(cost::TRAVERSAL).add(arg_sum), Some(result), None)
            }
            ("string", None, [a]) if matches!(a.ty, Ty::Bytes) => {
                let s = size(a);
                let result = Range {
                    min: s.min / 4,
                    max: s.max,
                };
                (s.factor(cost::TRAVERSAL).add(arg_sum), Some(result), None)
            }
            ("strings.quote", None, [a]) => {
                let s = size(a);
                let result = Range {
                    min: s.min.saturating_add(2),
                    max: s.max.saturating_mul(2).saturating_add(2),
                };
                (s.factor(cost::TRAVERSAL).add(arg_sum), Some(result), None)
            }
            ("startsWith" | "endsWith", Some(_), [a]) => with_args(size(a).factor(cost::TRAVERSAL)),
            (operators::IN, None, [_, container]) if matches!(container.ty, Ty::List(_)) => {
                with_args(size(container))
            }
            ("matches", Some(t), [re]) => {
                let text = size(t).add(Range::fixed(1)).factor(cost::TRAVERSAL);
                with_args(text.mul(size(re).factor(cost::REGEX)))
            }
            ("contains", Some(t), [sub]) if matches!(t.ty, Ty::String | Ty::Dyn) => {
                let text = size(t).factor(cost::TRAVERSAL);
                with_args(text.mul(size(sub).factor(cost::TRAVERSAL)))
            }
            (operators::LOGICAL_AND | operators::LOGICAL_OR, None, [lhs, rhs]) => (
                Range {
                    min: lhs.cost.min,
                    max: lhs.cost.add(rhs.cost).max,
                },
                None,
                None,
            ),
            (operators::CONDITIONAL, None, [condition, yes, no]) => {
                let result = size(yes).union(size(no));
                let entries = Entries::union(yes.entries, no.entries);
                (
                    condition.cost.add(yes.cost.union(no.cost)),
                    Some(result),
                    entries,
                )
            }
            (operators::ADD, None, [lhs, rhs])
                if lhs.ty.textual() || matches!(lhs.ty, Ty::List(_)) =>
            {
                let result = size(lhs).add(size(rhs));
                let entries = Entries::union(lhs.entries, rhs.entries);
                let own = match lhs.ty {
                    Ty::List(_) => Range::fixed(1),
                    _ => result.factor(cost::TRAVERSAL),
                };
                (own.add(arg_sum), Some(result), entries)
            }
            (
                operators::LESS
                | operators::GREATER
                | operators::LESS_EQUALS
                | operators::GREATER_EQUALS,
                None,
                [lhs, rhs],
            ) if lhs.ty.textual() || rhs.ty.textual() => with_args(compare(size(lhs), size(rhs))),
            (operators::EQUALS | operators::NOT_EQUALS, None, [lhs, rhs]) => {
                with_args(compare(size(lhs), size(rhs)))
            }
            ("dyn", None, [a]) => (Range::fixed(1).add(a.cost), a.size, a.entries),
            _ => with_args(Range::fixed(1)),
        }
    }

    /// Kubernetes' library estimates (apiserver's `library.CostEstimator`): the call's
    /// cost without its arguments', and its result's size.
    fn kubernetes(
        &mut self,
        name: &str,
        target: Option<&Node<'d>>,
        args: &[Node<'d>],
    ) -> Option<(Range, Option<Range>)> {
        let size = |n: &Node<'d>| n.size.unwrap_or(Range::UNKNOWN);
        let traversal = |n: &Node<'d>| size(n).factor(cost::TRAVERSAL);
        let one = Some((Range::fixed(1), None));
        match (name, target, args) {
            (
                "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes",
                Some(t),
                _,
            ) => {
                let Ty::List(item) = &t.ty else {
                    return Some((traversal(t), None));
                };
                let mut each = Range::fixed(1);
                if item.textual() {
                    let item_path = extend(&t.path, "@items");
                    let item_size = self
                        .size_of(item, &item_path, None)
                        .unwrap_or(Range::UNKNOWN);
                    each = each.add(item_size.factor(cost::TRAVERSAL));
                }
                Some((size(t).mul(each), None))
            }
            ("url" | "jsonpatch.escapeKey", None, [a]) => Some((traversal(a), a.size)),
            ("lowerAscii" | "upperAscii" | "substring" | "trim", Some(t), _) => {
                Some((traversal(t), Some(size(t))))
            }
            ("replace", Some(t), [from, to, ..]) => {
                let (s, from, to) = (size(t), size(from), size(to));
                let (count_max, kept_max) = replaced(s.max, from.min, to.max <= from.min);
                let (count_min, kept_min) = replaced(s.min, from.max, from.max <= to.min);
                let count = Range {
                    min: count_min,
                    max: count_max,
                };
                let kept = Range {
                    min: kept_min,
                    max: kept_max,
                };
                let result = count.mul(to).add(kept);
                Some((s.factor(2.0 * cost::TRAVERSAL), Some(result)))
            }
            ("split", Some(t), _) => {
                let s = size(t);
                Some((
                    s.factor(2.0 * cost::TRAVERSAL),
                    Some(Range { min: 0, max: s.max }),
                ))
            }
            ("join", Some(t), _) => {
                let items = size(t);
                let mut joined = Range::default();
                if let Ty::List(item) = &t.ty {
                    let item_path = extend(&t.path, "@items");
                    let item_size = self
                        .size_of(item, &item_path, None)
                        .unwrap_or(Range::UNKNOWN);
                    joined = items.mul(item_size);
                }
                if let Some(separator) = args.first() {
                    let separators = Range {
                        min: items.min.saturating_sub(1),
                        max: items.max.saturating_sub(1),
                    };
                    joined = joined.add(size(separator).mul(separators));
                }
                Some((joined.factor(cost::TRAVERSAL), Some(joined)))
            }
            ("find" | "findAll", Some(t), [re, ..]) => {
                let text = size(t).add(Range::fixed(1)).factor(cost::TRAVERSAL);
                let result = Range {
                    min: 0,
                    max: size(t).max,
                };
                Some((text.mul(size(re).factor(cost::REGEX)), Some(result)))
            }
            (
                "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver",
                None,
                [a],
            ) => Some((traversal(a), None)),
            ("ip", Some(_), []) => one,
            ("ip", None, [a]) => Some((traversal(a), None)),
            ("ip.isCanonical", None, [a]) => Some((size(a).factor(2.0 * cost::TRAVERSAL), None)),
            ("containsIP" | "containsCIDR", Some(_), [a]) => {
                let address = Range { min: 4, max: 16 };
                let mut c = address.add(address).factor(cost::TRAVERSAL);
                if name == "containsCIDR" {
                    c = c.add(address.factor(cost::TRAVERSAL)).add(Range::fixed(1));
                }
                if matches!(a.ty, Ty::String) {
                    c = c.add(traversal(a));
                }
                Some((c, None))
            }
            ("validate", Some(_), [a]) => Some((traversal(a).factor(128.0 * cost::REGEX), None)),
            (
                "masked"
                | "prefixLength"
                | "family"
                | "isUnspecified"
                | "isLoopback"
                | "isLinkLocalMulticast"
                | "isLinkLocalUnicast"
                | "isGlobalUnicast"
                | "format.named"
                | "sign"
                | "asInteger"
                | "isInteger"
                | "asApproximateFloat"
                | "isGreaterThan"
                | "isLessThan"
                | "compareTo"
                | "add"
                | "sub"
                | "major"
                | "minor"
                | "patch"
                | "getScheme"
                | "getHostname"
                | "getHost"
                | "getPort"
                | "getEscapedPath"
                | "getQuery",
                _,
                _,
            ) => one,
            (operators::EQUALS, None, [lhs, rhs])
                if matches!((&lhs.ty, &rhs.ty), (Ty::Other, Ty::Other)) =>
            {
                one
            }
            _ => None,
        }
    }
}

/// Comparing two strings or values: a traversal of the shorter.
fn compare(lhs: Range, rhs: Range) -> Range {
    let shortest = lhs.max.min(rhs.max);
    Range {
        min: u64::from(shortest > 0),
        max: shortest,
    }
    .factor(cost::TRAVERSAL)
}

/// What a call gives, as far as the checks need it.
fn result_type<'d>(name: &str, target: Option<&Node<'d>>, args: &[Node<'d>]) -> Ty<'d> {
    let first = || args.first().map_or(Ty::Dyn, |a| a.ty.clone());
    let element = |n: Option<&Node<'d>>| match n.map(|n| &n.ty) {
        Some(Ty::List(item)) => item.as_ref().clone(),
        Some(Ty::Map(value)) => value.as_ref().clone(),
        _ => Ty::Dyn,
    };
    let unwrap = |ty: Ty<'d>| match ty {
        Ty::Optional(inner) => inner.as_ref().clone(),
        _ => Ty::Dyn,
    };
    match name {
        operators::LOGICAL_AND
        | operators::LOGICAL_OR
        | operators::LOGICAL_NOT
        | operators::EQUALS
        | operators::NOT_EQUALS
        | operators::LESS
        | operators::LESS_EQUALS
        | operators::GREATER
        | operators::GREATER_EQUALS
        | operators::IN
        | operators::NOT_STRICTLY_FALSE
        | "matches"
        | "startsWith"
        | "endsWith"
        | "contains"
        | "isSorted"
        | "isURL"
        | "isIP"
        | "isCIDR"
        | "isQuantity"
        | "isSemver"
        | "isInteger"
        | "isGreaterThan"
        | "isLessThan"
        | "hasValue"
        | "bool"
        | "sets.contains"
        | "sets.equivalent"
        | "sets.intersects"
        | "containsIP"
        | "containsCIDR" => Ty::Bool,
        operators::ADD
        | operators::SUBSTRACT
        | operators::MULTIPLY
        | operators::DIVIDE
        | operators::MODULO
        | operators::NEGATE => first(),
        operators::CONDITIONAL => args.get(1).map_or(Ty::Dyn, |a| a.ty.clone()),
        operators::INDEX => element(args.first()),
        operators::OPT_INDEX | operators::OPT_SELECT => Ty::Optional(Rc::new(Ty::Dyn)),
        "size" | "int" | "indexOf" | "lastIndexOf" | "compareTo" | "sign" | "asInteger"
        | "major" | "minor" | "patch" | "getHours" | "getMinutes" | "getSeconds"
        | "getMilliseconds" | "getDayOfMonth" | "getDayOfWeek" | "getDayOfYear" | "getMonth"
        | "getFullYear" | "math.bitAnd" | "math.bitOr" => Ty::Int,
        "uint" => Ty::Uint,
        "double" | "asApproximateFloat" => Ty::Double,
        "string"
        | "lowerAscii"
        | "upperAscii"
        | "trim"
        | "replace"
        | "substring"
        | "charAt"
        | "join"
        | "format"
        | "strings.quote"
        | "jsonpatch.escapeKey"
        | "find"
        | "getScheme"
        | "getHost"
        | "getHostname"
        | "getPort"
        | "getEscapedPath"
        | "reverse" => Ty::String,
        "split" | "findAll" => Ty::List(Rc::new(Ty::String)),
        "bytes" => Ty::Bytes,
        "duration" => Ty::Duration,
        "timestamp" => Ty::Timestamp,
        "value" | "orValue" => target.map_or(Ty::Dyn, |t| unwrap(t.ty.clone())),
        "optional.of" | "optional.none" | "optional.ofNonZeroValue" => {
            Ty::Optional(Rc::new(first()))
        }
        "sum" | "min" | "max" => element(target),
        "dyn" => Ty::Dyn,
        _ => Ty::Other,
    }
}

/// One bound of `replace`'s result size, as the apiserver's library estimator takes it
/// for a string of `len` with matches `from` long: how many replacements there can be,
/// and how much of the string is kept beside them (all of it when `keep`, the
/// replacement being no longer than what it replaces on this bound).
fn replaced(len: u64, from: u64, keep: bool) -> (u64, u64) {
    if from == 0 {
        (len.saturating_add(1), len)
    } else if keep {
        (0, len)
    } else {
        ((len as f64 / from as f64).ceil() as u64, 0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::decl::Names;
    use super::*;

    /// The estimated cost of `rule` on `schema`, as a schema node of no resource.
    fn cost(schema: Value, rule: &str) -> u64 {
        let decl = Decl::new(&schema, false, Names::of(u16::MAX)).unwrap();
        let parsed = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
        let analysis = analyze(&parsed, &decl, false);
        assert!(analysis.errors.is_empty(), "{rule}: {:?}", analysis.errors);
        analysis.cost
    }

    fn list(item: Value, max: Option<u64>) -> Value {
        let mut schema = json!({"type": "array", "items": item});
        if let Some(max) = max {
            schema["maxItems"] = json!(max);
        }
        schema
    }

    fn string(max: Option<u64>) -> Value {
        let mut schema = json!({"type": "string"});
        if let Some(max) = max {
            schema["maxLength"] = json!(max);
        }
        schema
    }

    /// The figures kube-apiserver's own estimator gives for these rules (its
    /// `TestCostEstimation` cases, k8s.io/apiextensions-apiserver), unbounded and bounded.
    #[test]
    fn replace_bounds_follow_the_library_estimator() {
        // An empty match replaces before every character and after the last.
        assert_eq!(replaced(10, 0, false), (11, 10));
        assert_eq!(replaced(u64::MAX, 0, false), (u64::MAX, u64::MAX));
        // A replacement no longer than the match: the string bounds the result.
        assert_eq!(replaced(10, 3, true), (0, 10));
        // Else as many replacements as matches fit.
        assert_eq!(replaced(10, 3, false), (4, 0));
    }

    #[test]
    fn costs_are_estimated_as_the_apiserver_estimates_them() {
        let number = json!({"type": "number"});
        let cases: Vec<(Value, &str, u64)> = vec![
            (list(number.clone(), None), "self.all(x, true)", 4_718_591),
            (list(number.clone(), Some(10)), "self.all(x, true)", 32),
            (
                list(json!({"type": "string"}), None),
                "self.all(x, true)",
                3_145_727,
            ),
            (
                list(json!({"type": "string"}), Some(20)),
                "self.all(x, true)",
                62,
            ),
            (
                list(json!({"type": "boolean"}), None),
                "self.all(x, true)",
                1_887_437,
            ),
            (
                list(list(number.clone(), None), None),
                "self.all(x, true)",
                3_145_727,
            ),
            (
                list(
                    json!({"type": "object", "required": ["required"], "properties": {
                        "required": {"type": "string"}, "optional": {"type": "string"}}}),
                    None,
                ),
                "self.all(x, true)",
                555_128,
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "number"}}),
                "self.all(x, true)",
                1_348_169,
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 3}),
                "self.all(x, true)",
                11,
            ),
            (string(None), "self.contains('test')", 314_574),
            (string(Some(10)), "self.contains('test')", 5),
            (string(None), "self.startsWith('test')", 2),
            (
                string(None),
                r#"size(self + "hello") > size("hello")"#,
                314_578,
            ),
            (
                string(Some(4)),
                r#"size(self + "hello") > size("hello")"#,
                7,
            ),
            (list(number.clone(), None), "self[1] == 0.0", 2),
            (
                list(json!({"type": "string"}), None),
                "self[1] == self[1]",
                314_577,
            ),
            (
                list(number.clone(), Some(10)),
                "self.all(x, self.all(y, true))",
                352,
            ),
            (
                list(number.clone(), Some(10)),
                "self.all(x, self.all(y, self.all(z, true)))",
                3552,
            ),
            (string(None), r#"self.matches("x")"#, 314_574),
            (string(Some(50)), r#"self.matches("x")"#, 22),
            (string(None), r#"self.matches("")"#, 1),
            (
                list(json!({"type": "string", "format": "date-time"}), None),
                "self.all(x, true)",
                428_963,
            ),
            (
                list(json!({"type": "string", "format": "duration"}), Some(5)),
                "self.all(x, true)",
                17,
            ),
            (
                list(json!({"x-kubernetes-int-or-string": true}), None),
                "self[0] == 5",
                3,
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string", "format": "date"}}),
                "self.all(x, true)",
                524_288,
            ),
        ];
        for (schema, rule, expected) in cases {
            assert_eq!(cost(schema.clone(), rule), expected, "{rule} on {schema}");
        }
    }

    #[test]
    fn names_are_as_long_as_a_request_before_1_37_and_as_a_name_from_it() {
        // kube-apiserver's TestMetadataNameCostIsBounded: from 1.37 a rule reading the
        // name costs at most 10,000; before, as much as a request-long string.
        let cost_on = |kube: &str, schema: Value, rule: &str| {
            let minor: u16 = kube.trim_start_matches("1.").parse().unwrap();
            let names = Names::of(minor);
            let decl = Decl::new(&schema, true, names).unwrap();
            let parsed = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
            analyze(&parsed, &decl, false).cost
        };
        let root = json!({"type": "object"});
        for rule in [
            "self.metadata.name.contains('x')",
            "self.metadata.generateName.contains('x')",
        ] {
            let old = cost_on("1.36", root.clone(), rule);
            let new = cost_on("1.37", root.clone(), rule);
            assert!(old > 300_000, "{rule}: {old}");
            assert!(new > 0 && new <= 10_000, "{rule}: {new}");
        }
        // A shorter maxLength of the schema's own counts; a longer one does not.
        let own = |n: u64| {
            json!({"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"name": {"type": "string", "maxLength": n}}}}})
        };
        let rule = "self.metadata.name.contains('x')";
        assert!(cost_on("1.37", own(10), rule) < cost_on("1.37", root.clone(), rule));
        assert_eq!(
            cost_on("1.37", own(1000), rule),
            cost_on("1.37", root.clone(), rule)
        );
    }

    #[test]
    fn fields_and_variables_the_schema_lacks_are_found() {
        let schema = json!({"type": "object", "properties": {"replicas": {"type": "integer"}}});
        let decl = Decl::new(&schema, false, Names::of(u16::MAX)).unwrap();
        let read = |rule: &str| {
            let parsed = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
            analyze(&parsed, &decl, false)
        };
        assert_eq!(
            read("self.replicsa > 0").errors,
            ["undefined field 'replicsa'"]
        );
        assert_eq!(
            read("sefl.replicas > 0").errors,
            ["undeclared reference to 'sefl'"]
        );
        assert_eq!(read("has(self.other)").errors, ["undefined field 'other'"]);
        assert!(
            read("self.replicas > 0 && [1].all(x, x > 0)")
                .errors
                .is_empty()
        );
        assert_eq!(read("self.replicas").result, "int");
        assert!(read("self.replicas >= oldSelf.replicas").uses_old_self);
        // Macros the parser does not expand still declare their variables.
        assert!(
            read("cel.bind(r, self.replicas, r > 0 && r < 10)")
                .errors
                .is_empty()
        );
        assert!(read("[1, 2].all(i, v, v > i)").errors.is_empty());
    }
}
