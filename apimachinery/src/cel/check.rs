//! One rule read as kube-apiserver's compiler reads it: each expression typed against
//! the schema and the functions of the rule's Kubernetes version, as cel-go's checker
//! types it (a field the schema does not have, a variable or function that does not
//! exist, a call no overload takes, a literal list of mixed types, a literal duration,
//! timestamp or regular expression that cannot be), and its cost estimated as cel-go's
//! checker estimates it, with Kubernetes' library costs and the schema's size bounds.

use std::collections::HashMap;
use std::rc::Rc;

use kube_cel::cel::common::ast::{ComprehensionExpr, EntryExpr, Expr, LiteralValue, operators};
use kube_cel::cel::parser::Expression;

use super::cost::{self, Range};
use super::decl::{Decl, Kind, ListType};
use super::functions::{self, Env, Resolution};
use super::types::{Mapping, Ty, equivalent, most_general};
use super::{QUALIFIED_TYPES, is_reserved, position};

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
    /// The least it may cost, as cel-go's `EstimateCost(..).Min`.
    pub min_cost: u64,
    /// What the apiserver's compiler would refuse, in its words.
    pub errors: Vec<Issue>,
    /// Whether it reads `oldSelf`.
    pub uses_old_self: bool,
    /// The `==`, `!=` and `+` whose left operand is a set or map list of the object,
    /// by expression id, with its list type: they compare and concatenate by it.
    pub list_ops: Vec<(u64, ListType)>,
    /// The `sum()` calls of a list of other numbers than ints, by expression id, with
    /// the type whose zero an empty list sums to (`uint`, `double`, `duration`).
    pub typed_sums: Vec<(u64, &'static str)>,
    /// Its result type, as CEL names it (`bool`, `list(int)`); a rule must give `bool`,
    /// a message expression `string`.
    pub result: String,
    /// The unbounded lists, maps and strings its size estimates came from, as schema
    /// paths below the rule's node (`[*]` an item, `[*]` of a map a value), with the
    /// marker that would bound each.
    pub unbounded: Vec<(String, &'static str)>,
    /// The places of the object it reads (a selection, `has()`, an index, a
    /// comprehension's variable), as schema paths from `self` or `oldSelf` (`@items` an
    /// item, `@values` a map's value), in the order it first reads them: the apiserver
    /// converts a value as a rule reads it, and refuses there data of another shape than
    /// its schema's.
    pub reads: Vec<Vec<String>>,
}

/// One thing the compiler refuses, and where in the rule when that is known (line and
/// column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// What is wrong, in the apiserver's words.
    pub message: String,
    /// Where: the line and column (from 1) of what it is about.
    pub at: Option<(usize, usize)>,
}

impl Issue {
    fn new(message: String) -> Issue {
        Issue { message, at: None }
    }
}

impl std::fmt::Display for Issue {
    /// As cel-go writes an issue: `ERROR: <input>:1:5: message`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((line, column)) => write!(f, "ERROR: <input>:{line}:{column}: {}", self.message),
            None => write!(f, "ERROR: <input>: {}", self.message),
        }
    }
}

/// The type a rule may name as a value (`type(x) == int`), by that name.
fn type_value(name: &str) -> Option<Ty<'static>> {
    let ty = match name {
        "int" => Ty::Int,
        "uint" => Ty::Uint,
        "double" => Ty::Double,
        "bool" => Ty::Bool,
        "string" => Ty::String,
        "bytes" => Ty::Bytes,
        "list" => Ty::list(Ty::Dyn),
        "map" => Ty::Map(Rc::new(Ty::Dyn), Rc::new(Ty::Dyn)),
        "type" => Ty::Type(Rc::new(Ty::Dyn)),
        "null_type" => Ty::Null,
        "dyn" => Ty::Dyn,
        "google.protobuf.Duration" => Ty::Duration,
        "google.protobuf.Timestamp" => Ty::Timestamp,
        other => Ty::Opaque(QUALIFIED_TYPES.iter().find(|t| **t == other)?),
    };
    Some(Ty::Type(Rc::new(ty)))
}

/// Reads `rule` (parsed from `source`) at a schema node of type `root`, with the
/// functions of `env`. `optional_old_self`: `oldSelf` is an optional value.
pub fn analyze(
    rule: &Expression,
    source: &str,
    root: &Decl,
    optional_old_self: bool,
    env: Env,
) -> Analysis {
    analyze_sizing_text(rule, source, root, optional_old_self, env, None)
}

/// [`analyze`], a string or bytes of no size known from the schema, a literal or a
/// function estimated as `unknown_text` long (the fewest and most characters), as an
/// estimator of cel-go's that sizes them does (apiserver's library tests use one that
/// says 0 to 12); `None`: unknown, as the apiserver's CRD estimator leaves it.
pub fn analyze_sizing_text(
    rule: &Expression,
    source: &str,
    root: &Decl,
    optional_old_self: bool,
    env: Env,
    unknown_text: Option<(u64, u64)>,
) -> Analysis {
    let mut checker = Checker {
        unknown_text: unknown_text.map(|(min, max)| Range { min, max }),
        root,
        env,
        optional_old_self,
        locals: Vec::new(),
        mapping: Mapping::default(),
        errors: Vec::new(),
        literals: Vec::new(),
        placed: Vec::new(),
        in_format: 0,
        uses_old_self: false,
        unbounded: Vec::new(),
        list_types: HashMap::new(),
        list_ops: Vec::new(),
        typed_sums: Vec::new(),
        reads: Vec::new(),
    };
    let node = checker.expr(rule);
    let mut errors: Vec<Issue> = checker.errors.into_iter().map(Issue::new).collect();
    // Issues are placed in the text only when there are any.
    for (index, id, name) in &checker.placed {
        errors[*index].at = position::of_ident(source, rule, *id, name);
    }
    // The checks of literals run on a rule that type-checks (cel-go's AST validators).
    if errors.is_empty() {
        errors = checker
            .literals
            .into_iter()
            .map(|(literal, message)| Issue {
                at: literal.and_then(|(id, value)| position::of_literal(source, rule, id, &value)),
                message,
            })
            .collect();
    }
    Analysis {
        cost: node.cost.max,
        min_cost: node.cost.min,
        errors,
        uses_old_self: checker.uses_old_self,
        list_ops: checker.list_ops,
        typed_sums: checker.typed_sums,
        result: checker.mapping.substitute(&node.ty, true).to_string(),
        unbounded: checker.unbounded,
        reads: checker.reads.iter().map(|p| p.to_vec()).collect(),
    }
}

struct Checker<'d> {
    root: &'d Decl,
    env: Env,
    optional_old_self: bool,
    locals: Vec<Local<'d>>,
    /// The type parameters bound so far.
    mapping: Mapping<'d>,
    errors: Vec<String>,
    /// Errors about an identifier (by index in `errors`), to place: its id and name.
    placed: Vec<(usize, u64, String)>,
    /// What the checks of literals found (mixed lists and maps, bad durations,
    /// timestamps and regular expressions), with the literal it is about.
    literals: Vec<(Option<(u64, LiteralValue)>, String)>,
    /// How many `format` calls the expression being read is inside: their lists may
    /// mix types.
    in_format: usize,
    uses_old_self: bool,
    unbounded: Vec<(String, &'static str)>,
    /// The list type of each expression that is a set or map list of the object.
    list_types: HashMap<u64, &'d ListType>,
    list_ops: Vec<(u64, ListType)>,
    typed_sums: Vec<(u64, &'static str)>,
    reads: Vec<Rc<Vec<String>>>,
    /// The size of a string or bytes that nothing else sizes.
    unknown_text: Option<Range>,
}

fn literal_size(literal: &LiteralValue) -> u64 {
    match literal {
        LiteralValue::String(s) => s.inner().chars().count() as u64,
        LiteralValue::Bytes(b) => b.inner().len() as u64,
        _ => 1,
    }
}

/// cel-go's `append(path, step)` for a selection, an index or a comprehension's variable:
/// a step from an expression of no path starts one (`@items` for a variable over a
/// computed list), which Kubernetes' size estimator reads from the root (`sized_decl`).
fn append(path: &Option<Rc<Vec<String>>>, step: &str) -> Option<Rc<Vec<String>>> {
    let mut next = path.as_deref().cloned().unwrap_or_default();
    next.push(step.to_owned());
    Some(Rc::new(next))
}

/// The path of a list's items in Kubernetes' library estimates (`listElementNode`): none
/// when the list has none.
fn extend(path: &Option<Rc<Vec<String>>>, step: &str) -> Option<Rc<Vec<String>>> {
    path.as_ref().and_then(|_| append(path, step))
}

/// The name a chain of identifiers and field selections spells (`net.IP`,
/// `format.named`), if it is one.
fn dotted(e: &Expression) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(s) if !s.test => Some(format!("{}.{}", dotted(&s.operand)?, s.field)),
        _ => None,
    }
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

    /// The schema type Kubernetes' size estimator reads at `path`: it skips the first step
    /// as `self` whatever it names, so a variable over a computed list (`@items` alone)
    /// is sized by the root's bound, as the apiserver sizes it.
    fn sized_decl(&self, path: &[String]) -> Option<&'d Decl> {
        let (_, rest) = path.split_first()?;
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
            && let Some(decl) = self.sized_decl(p)
        {
            if !decl.bounded && decl.max_elements > 0 && self.decl_at(p).is_some() {
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
        let local = local.and_then(|name| self.local(name)).and_then(|l| l.size);
        match ty {
            Ty::String | Ty::Bytes => local.or(self.unknown_text),
            _ => local,
        }
    }

    /// Notes that the rule reads the value at `path`, when it is one of the object's.
    fn read(&mut self, path: &Option<Rc<Vec<String>>>) {
        if let Some(p) = path
            && matches!(p.first().map(String::as_str), Some("self" | "oldSelf"))
            && !self.reads.contains(p)
        {
            self.reads.push(p.clone());
        }
    }

    fn note_unbounded(&mut self, path: &[String], decl: &Decl) {
        let marker = match decl.kind {
            Kind::List(..) => "MaxItems",
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

    fn mismatch(&mut self, expected: &Ty<'d>, found: &Ty<'d>) {
        let (expected, found) = (
            self.mapping.substitute(expected, true),
            self.mapping.substitute(found, true),
        );
        self.errors
            .push(format!("expected type '{expected}' but found '{found}'"));
    }

    fn expr(&mut self, e: &Expression) -> Node<'d> {
        let node = self.expr_node(e);
        self.read(&node.path);
        // A set or map list of the object keeps its list type through `==` and `+`.
        if let Some(list_type) = node
            .path
            .as_ref()
            .and_then(|p| self.decl_at(p))
            .and_then(|d| match &d.kind {
                Kind::List(_, list_type) => list_type.as_ref(),
                _ => None,
            })
        {
            self.list_types.insert(e.id, list_type);
        }
        node
    }

    fn expr_node(&mut self, e: &Expression) -> Node<'d> {
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
            Expr::Ident(name) => self.ident(e.id, name),
            Expr::Select(_) if let Some(ty) = self.qualified_type(e) => Node {
                ty,
                cost: Range::fixed(1),
                size: Some(Range::fixed(0)),
                path: None,
                entries: None,
            },
            Expr::Select(select) => {
                let operand = self.expr(&select.operand);
                let ty = self.field(&operand.ty, &select.field, false);
                if select.test {
                    // `has()`: free in Kubernetes' environment, but for its operand. It
                    // reads the field (the apiserver converts it to tell it is set).
                    self.read(&append(&operand.path, &select.field));
                    return Node {
                        ty: Ty::Bool,
                        cost: operand.cost,
                        size: Some(Range::fixed(1)),
                        path: None,
                        entries: None,
                    };
                }
                let path = append(&operand.path, &select.field);
                let cost = operand.cost.add(lookup_cost(&operand.ty));
                self.node(ty, cost, path)
            }
            Expr::Call(call) => {
                self.call(e.id, &call.func_name, call.target.as_deref(), &call.args)
            }
            Expr::List(list) => self.list(&list.elements, &list.optional_indices),
            Expr::Map(map) => self.map(&map.entries),
            Expr::Struct(s) => {
                let mut cost = Range::fixed(cost::STRUCT);
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        cost = cost.add(self.expr(&f.value).cost);
                    }
                }
                // Kubernetes declares no message types.
                self.errors.push(format!(
                    "undeclared reference to '{}' (in container '')",
                    s.type_name
                ));
                self.node(Ty::Error, cost, None)
            }
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Unspecified => self.node(Ty::Dyn, Range::fixed(0), None),
        }
    }

    /// A list literal: its elements' types joined (`dyn` where they differ, which the
    /// check of literals then refuses outside `format`).
    fn list(&mut self, elements: &[Expression], optional: &[usize]) -> Node<'d> {
        let mut cost = Range::fixed(cost::LIST);
        let mut item = Range {
            min: if elements.is_empty() { 0 } else { u64::MAX },
            max: 0,
        };
        let mut joined: Option<Ty<'d>> = None;
        let mut types = Vec::with_capacity(elements.len());
        for (i, element) in elements.iter().enumerate() {
            let node = self.expr(element);
            cost = cost.add(node.cost);
            item = item.union(node.size.unwrap_or(Range::UNKNOWN));
            let mut ty = node.ty;
            if optional.contains(&i) {
                ty = self.unwrap_optional(ty);
            }
            types.push((element, ty.clone()));
            joined = Some(self.join(joined, ty));
        }
        self.homogeneous(&types);
        let item_ty = joined.unwrap_or_else(|| self.mapping.fresh());
        Node {
            ty: Ty::list(item_ty),
            cost,
            size: Some(Range::fixed(elements.len() as u64)),
            path: None,
            entries: Some(Entries {
                list: true,
                key: Range::fixed(1),
                value: item,
            }),
        }
    }

    fn map(&mut self, entries: &[kube_cel::cel::common::ast::IdedEntryExpr]) -> Node<'d> {
        let mut cost = Range::fixed(cost::MAP);
        let start = Range {
            min: if entries.is_empty() { 0 } else { u64::MAX },
            max: 0,
        };
        let (mut key, mut value) = (start, start);
        let (mut key_ty, mut value_ty) = (None, None);
        let (mut keys, mut values) = (Vec::new(), Vec::new());
        for entry in entries {
            if let EntryExpr::MapEntry(e) = &entry.expr {
                let (k, v) = (self.expr(&e.key), self.expr(&e.value));
                cost = cost.add(k.cost).add(v.cost);
                key = key.union(k.size.unwrap_or(Range::UNKNOWN));
                value = value.union(v.size.unwrap_or(Range::UNKNOWN));
                let v_ty = match e.optional {
                    true => self.unwrap_optional(v.ty),
                    false => v.ty,
                };
                keys.push((&e.key, k.ty.clone()));
                values.push((&e.value, v_ty.clone()));
                key_ty = Some(self.join(key_ty, k.ty));
                value_ty = Some(self.join(value_ty, v_ty));
            }
        }
        self.homogeneous(&keys);
        self.homogeneous(&values);
        let key_ty = key_ty.unwrap_or_else(|| self.mapping.fresh());
        let value_ty = value_ty.unwrap_or_else(|| self.mapping.fresh());
        Node {
            ty: Ty::Map(Rc::new(key_ty), Rc::new(value_ty)),
            cost,
            size: Some(Range::fixed(entries.len() as u64)),
            path: None,
            entries: Some(Entries {
                list: false,
                key,
                value,
            }),
        }
    }

    /// An optional element's value type; a mistake where it is not optional.
    fn unwrap_optional(&mut self, ty: Ty<'d>) -> Ty<'d> {
        match ty {
            Ty::Optional(inner) => inner.as_ref().clone(),
            Ty::Dyn | Ty::Error => ty,
            other => {
                self.mismatch(&Ty::optional(other.clone()), &other);
                other
            }
        }
    }

    /// cel-go's `joinTypes` with literals of mixed types allowed (as `dyn`).
    fn join(&mut self, previous: Option<Ty<'d>>, current: Ty<'d>) -> Ty<'d> {
        match previous {
            None => current,
            Some(previous) if self.mapping.assignable(&previous, &current) => {
                most_general(&previous, &current)
            }
            Some(_) => Ty::Dyn,
        }
    }

    /// The check of literals: a list's elements, a map's keys or values, of one type
    /// (not inside `format`, whose argument lists mix types by design).
    fn homogeneous(&mut self, items: &[(&Expression, Ty<'d>)]) {
        if self.in_format > 0 {
            return;
        }
        let Some(((_, first), rest)) = items.split_first() else {
            return;
        };
        let first = self.mapping.substitute(first, false);
        for (item, ty) in rest {
            let ty = self.mapping.substitute(ty, false);
            if !equivalent(&first, &ty) {
                let (expected, found) = (
                    self.mapping.substitute(&first, true),
                    self.mapping.substitute(&ty, true),
                );
                let message = format!("expected type '{expected}' but found '{found}'");
                self.literal_issue(item, message);
                return;
            }
        }
    }

    /// A finding of the checks of literals, at `at` when it is a literal.
    fn literal_issue(&mut self, at: &Expression, message: String) {
        let literal = match &at.expr {
            Expr::Literal(literal) => Some((at.id, literal.clone())),
            _ => None,
        };
        self.literals.push((literal, message));
    }

    /// The type `e` names when it spells a type of a library (`net.IP`,
    /// `google.protobuf.Duration`) whose first part is no variable.
    fn qualified_type(&self, e: &Expression) -> Option<Ty<'d>> {
        let name = dotted(e)?;
        let first = name.split('.').next()?;
        if self.local(first).is_some() || first == "self" || first == "oldSelf" {
            return None;
        }
        type_value(&name)
    }

    fn ident(&mut self, id: u64, name: &str) -> Node<'d> {
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
                    true => Ty::optional(Ty::of(self.root)),
                    false => Ty::of(self.root),
                }
            }
            _ => match type_value(name) {
                // A type's name is a constant of no size: comparing with it costs
                // nothing more (`type(x) == int`), as cel-go estimates it.
                Some(ty) => {
                    return Node {
                        ty,
                        cost,
                        size: Some(Range::fixed(0)),
                        path: None,
                        entries: None,
                    };
                }
                None => {
                    self.placed.push((self.errors.len(), id, name.to_owned()));
                    self.errors.push(format!(
                        "undeclared reference to '{name}' (in container '')"
                    ));
                    Ty::Error
                }
            },
        };
        let path = matches!(name, "self" | "oldSelf").then(|| Rc::new(vec![name.to_owned()]));
        self.node(ty, cost, path)
    }

    /// The type of `field` of a value of type `ty` (cel-go's `checkSelectField`): an
    /// optional of it when the value is optional or the selection is (`?.`).
    fn field(&mut self, ty: &Ty<'d>, field: &str, optional: bool) -> Ty<'d> {
        let ty = self.mapping.substitute(ty, false);
        let (target, was_optional) = match &ty {
            Ty::Optional(inner) => (inner.as_ref().clone(), true),
            _ => (ty.clone(), false),
        };
        let result = match &target {
            Ty::Object(decl) => match &decl.kind {
                // From an environment of 1.31 a reserved word is also reachable as
                // written.
                Kind::Object { fields } => match fields.get(field).or_else(|| {
                    (self.env.keywords_as_field_names() && is_reserved(field))
                        .then(|| fields.get(&format!("__{field}__")))
                        .flatten()
                }) {
                    Some(f) => Ty::of(f),
                    None => {
                        self.errors.push(format!("undefined field '{field}'"));
                        Ty::Error
                    }
                },
                _ => Ty::Dyn,
            },
            Ty::Map(_, values) => values.as_ref().clone(),
            Ty::Dyn | Ty::Error | Ty::Param(_) => Ty::Dyn,
            other => {
                self.errors
                    .push(format!("type '{other}' does not support field selection"));
                Ty::Dyn
            }
        };
        match was_optional || optional {
            true => Ty::optional(result),
            false => result,
        }
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Node<'d> {
        let range = self.expr(&c.iter_range);
        let init = self.expr(&c.accu_init);
        let mut cost = range.cost.add(init.cost);
        let range_ty = self.mapping.substitute(&range.ty, false);
        let list = range
            .entries
            .map_or(matches!(range_ty, Ty::List(_)), |e| e.list);
        let (item_ty, key_ty) = match &range_ty {
            Ty::List(items) => (items.as_ref().clone(), Ty::Int),
            Ty::Map(keys, values) => (values.as_ref().clone(), keys.as_ref().clone()),
            Ty::Dyn | Ty::Error | Ty::Param(_) => (Ty::Dyn, Ty::Dyn),
            other => {
                self.errors.push(format!(
                    "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                ));
                (Ty::Error, Ty::Error)
            }
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
                    path: append(&range.path, key_step),
                    size: entry_key,
                    entries: None,
                });
                self.locals.push(Local {
                    name: second.clone(),
                    ty: item_ty,
                    path: append(&range.path, value_step),
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
                    path: append(&range.path, step),
                    size,
                    entries: None,
                });
                1
            }
        };
        let condition = self.expr(&c.loop_cond);
        if !self.mapping.assignable(&Ty::Bool, &condition.ty) {
            self.mismatch(&Ty::Bool, &condition.ty);
        }
        let step = self.expr(&c.loop_step);
        if !self.mapping.assignable(&init.ty, &step.ty) {
            self.mismatch(&init.ty, &step.ty);
        }
        for _ in 0..pushed {
            self.locals.pop();
        }
        let result = self.expr(&c.result);
        self.locals.pop();
        cost = cost.add(result.cost);
        let count = range.size.unwrap_or(Range::UNKNOWN);
        cost = cost.add(count.mul(step.cost.add(condition.cost)));
        let ty = self.mapping.substitute(&result.ty, false);
        let (size, entries) = match &c.accu_init.expr {
            Expr::List(_) | Expr::Map(_) => (Some(count), step.entries),
            Expr::Literal(_) => (init.size, None),
            _ => (None, None),
        };
        Node {
            ty,
            cost,
            size,
            path: None,
            entries,
        }
    }

    fn call(
        &mut self,
        id: u64,
        name: &str,
        target: Option<&Expression>,
        args: &[Expression],
    ) -> Node<'d> {
        if name == operators::OPT_SELECT {
            return self.optional_select(args);
        }
        if matches!(
            name,
            operators::EQUALS | operators::NOT_EQUALS | operators::ADD
        ) && target.is_none()
            && let Some(left) = args.first()
        {
            // The left operand decides, as in cel-go; it is read first.
            let node = self.call_node(name, target, args);
            if let Some(list_type) = self.list_types.get(&left.id).copied() {
                self.list_ops.push((id, list_type.clone()));
                if name == operators::ADD {
                    self.list_types.insert(id, list_type);
                }
            }
            return node;
        }
        let node = self.call_node(name, target, args);
        if name == "sum" && target.is_some() {
            let zero = match self.mapping.substitute(&node.ty, false) {
                Ty::Uint => Some("uint"),
                Ty::Double => Some("double"),
                Ty::Duration => Some("duration"),
                _ => None,
            };
            if let Some(zero) = zero {
                self.typed_sums.push((id, zero));
            }
        }
        node
    }

    fn call_node(
        &mut self,
        name: &str,
        target: Option<&Expression>,
        args: &[Expression],
    ) -> Node<'d> {
        // `format.named(x)` is parsed as a call of `named` on `format`: a function of
        // that qualified name is called as a global one.
        let (qualified, target) = match target.and_then(dotted) {
            Some(prefix) if functions::declared(self.env, &format!("{prefix}.{name}")) => {
                (format!("{prefix}.{name}"), None)
            }
            _ => (name.to_owned(), target),
        };
        let name = qualified.as_str();
        if let Some(node) = self.macro_call(name, target, args) {
            return node;
        }
        let target = target.map(|t| self.expr(t));
        let formatting = name == "format" && target.is_some();
        self.in_format += usize::from(formatting);
        let written = args;
        let args: Vec<Node<'d>> = written.iter().map(|a| self.expr(a)).collect();
        self.in_format -= usize::from(formatting);
        let ty = self.resolve(name, target.as_ref(), &args);
        self.check_literal_argument(name, written.first());
        let target_cost = target.as_ref().map_or(Range::fixed(0), |t| t.cost);
        let (fn_cost, mut size, entries) = self.function(name, target.as_ref(), &args);
        let mut path = None;
        // An optional index (`l[?0]`) has no place in the schema: cel-go sizes it as
        // unknown.
        if name == operators::INDEX
            && let Some(container) = args.first()
        {
            let step = match container.ty {
                Ty::Map(..) | Ty::Object(_) => "@values",
                _ => "@items",
            };
            size = container.entries.map(|e| e.value);
            path = append(&container.path, step);
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

    /// The type of a call of `name`, or an error in cel-go's words.
    fn resolve(&mut self, name: &str, target: Option<&Node<'d>>, args: &[Node<'d>]) -> Ty<'d> {
        let mut types: Vec<Ty<'d>> = target.iter().map(|t| t.ty.clone()).collect();
        types.extend(args.iter().map(|a| a.ty.clone()));
        if matches!(name, operators::LOGICAL_AND | operators::LOGICAL_OR) {
            let mut ok = true;
            for ty in &types {
                if !self.mapping.assignable(&Ty::Bool, ty) {
                    self.mismatch(&Ty::Bool, ty);
                    ok = false;
                }
            }
            return if ok { Ty::Bool } else { Ty::Error };
        }
        match functions::resolve(self.env, name, target.is_some(), &types, &mut self.mapping) {
            Resolution::Typed(ty) => ty,
            Resolution::Undeclared => {
                self.errors.push(format!(
                    "undeclared reference to '{name}' (in container '')"
                ));
                Ty::Error
            }
            Resolution::NoOverload => {
                let signature = functions::signature(&types, target.is_some(), &self.mapping);
                self.errors.push(format!(
                    "found no matching overload for '{name}' applied to '{signature}'"
                ));
                Ty::Error
            }
        }
    }

    /// `x.?field`: the field's type, optional.
    fn optional_select(&mut self, args: &[Expression]) -> Node<'d> {
        let [operand, field] = args else {
            return self.node(Ty::Error, Range::fixed(0), None);
        };
        let operand = self.expr(operand);
        let Expr::Literal(LiteralValue::String(name)) = &field.expr else {
            self.errors
                .push("unsupported optional field selection".to_owned());
            return self.node(Ty::Error, operand.cost, None);
        };
        let ty = self.field(&operand.ty, name.inner(), true);
        let cost = operand.cost.add(lookup_cost(&operand.ty));
        // Of no place in the schema, as cel-go sizes it: its size is unknown.
        self.node(ty, cost, None)
    }

    /// cel-go's checks of literal arguments (Kubernetes 1.29 and later): a literal
    /// given to `duration`, `timestamp` or as `matches`' pattern must be one.
    fn check_literal_argument(&mut self, name: &str, first: Option<&Expression>) {
        if !self.env.literal_checks() {
            return;
        }
        let Some(Expr::Literal(literal)) = first.map(|e| &e.expr) else {
            return;
        };
        let valid = match (name, literal) {
            ("duration", LiteralValue::String(s)) => super::literals::duration(s.inner()),
            ("timestamp", LiteralValue::String(s)) => super::literals::timestamp(s.inner()),
            ("timestamp", LiteralValue::Int(seconds)) => {
                super::literals::timestamp_seconds(*seconds.inner())
            }
            ("matches", LiteralValue::String(s)) => super::literals::regex(s.inner()),
            _ => true,
        };
        if !valid && let Some(first) = first {
            self.literal_issue(first, format!("invalid {name} argument"));
        }
    }

    /// The macros cel-go expands and the cel crate's parser leaves calls (two-variable
    /// comprehensions, `sortBy`, `optMap`, `optFlatMap`), where the environment has
    /// them: their variables typed from the target, the body read once, the cost that
    /// of a comprehension over the target. `None` for any other call.
    fn macro_call(
        &mut self,
        name: &str,
        target: Option<&Expression>,
        args: &[Expression],
    ) -> Option<Node<'d>> {
        let env = self.env;
        let variables = match (name, args.len()) {
            ("all" | "exists" | "existsOne", 3) if env.two_variable_comprehensions() => 2,
            ("transformList" | "transformMap" | "transformMapEntry", 3 | 4)
                if env.two_variable_comprehensions() =>
            {
                2
            }
            ("sortBy", 2) if env.sort_by() => 1,
            ("optMap" | "optFlatMap", 2) if env.optionals() => 1,
            _ => return None,
        };
        let names: Vec<String> = args[..variables]
            .iter()
            .map(|a| match &a.expr {
                Expr::Ident(n) => Some(n.clone()),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let target = self.expr(target?);
        let range = self.mapping.substitute(&target.ty, false);
        let declared: Vec<Ty<'d>> = match (&range, variables) {
            (Ty::List(item), 2) => vec![Ty::Int, item.as_ref().clone()],
            (Ty::Map(key, value), 2) => vec![key.as_ref().clone(), value.as_ref().clone()],
            (Ty::List(item), 1) if name == "sortBy" => vec![item.as_ref().clone()],
            (Ty::Optional(inner), 1) if name != "sortBy" => vec![inner.as_ref().clone()],
            (Ty::Dyn | Ty::Error | Ty::Param(_), n) => vec![Ty::Dyn; n],
            (other, n) => {
                self.errors.push(format!(
                    "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                ));
                vec![Ty::Error; n]
            }
        };
        for (name, ty) in names.into_iter().zip(declared) {
            self.locals.push(Local {
                name,
                ty,
                path: None,
                size: None,
                entries: None,
            });
        }
        let mut body = Range::fixed(0);
        let mut parts = Vec::new();
        let mut last = Ty::Dyn;
        let rest = &args[variables..];
        for (i, arg) in rest.iter().enumerate() {
            let node = self.expr(arg);
            body = body.add(node.cost);
            parts.push(node.cost);
            // A quantifier's predicate, or a transform's filter, is a bool.
            let predicate = i + 1 < rest.len() || matches!(name, "all" | "exists" | "existsOne");
            if predicate && !self.mapping.assignable(&Ty::Bool, &node.ty) {
                self.mismatch(&Ty::Bool, &node.ty);
            }
            last = node.ty;
        }
        self.locals.truncate(self.locals.len() - variables);
        let key = match &range {
            Ty::Map(key, _) => key.as_ref().clone(),
            _ => Ty::Dyn,
        };
        let ty = match name {
            "all" | "exists" | "existsOne" => Ty::Bool,
            "transformList" => Ty::list(last),
            "transformMap" => Ty::Map(Rc::new(key), Rc::new(last)),
            "transformMapEntry" | "optFlatMap" => last,
            "optMap" => Ty::optional(last),
            _ => range,
        };
        let cost = match name {
            // cel-go expands `o.optMap(v, e)` to `o.hasValue() ? optional.of(<v bound to
            // o.value() in a comprehension over []>) : optional.none()` (optFlatMap
            // without the `optional.of`): the target twice, a call each, the empty
            // list, the body once.
            "optMap" | "optFlatMap" => {
                let wrap = u64::from(name == "optMap");
                target
                    .cost
                    .add(target.cost)
                    .add(body)
                    .add(Range::fixed(cost::LIST + 2 + wrap))
            }
            "sortBy" => {
                let count = target.size.unwrap_or(Range::UNKNOWN);
                target.cost.add(count.mul(body.add(Range::fixed(2))))
            }
            _ => {
                let count = target.size.unwrap_or(Range::UNKNOWN);
                let (init, per, result) = two_variable_costs(name, &parts);
                target
                    .cost
                    .add(Range::fixed(init))
                    .add(count.mul(per))
                    .add(Range::fixed(result))
            }
        };
        Some(self.node(ty, cost, None))
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
            // ext.Sets: the product of the sizes (twice for equivalence), and the call.
            ("sets.contains" | "sets.intersects" | "sets.equivalent", None, [a, b]) => {
                let times = if name == "sets.equivalent" { 2.0 } else { 1.0 };
                with_args(size(a).mul(size(b)).factor(times).add(Range::fixed(1)))
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
            // Equal Kubernetes values: a URL's by the right one's length (the
            // apiserver's estimator reads its size twice), a format's by the longest
            // name, the rest in one step.
            (operators::EQUALS, None, [lhs, rhs]) => match (&lhs.ty, &rhs.ty) {
                (Ty::Opaque(a), Ty::Opaque(b)) if a == b => Some((
                    match *a {
                        "kubernetes.URL" => Range {
                            min: 1,
                            max: rhs.size.map_or(1, |s| s.max),
                        }
                        .factor(cost::TRAVERSAL),
                        "kubernetes.NamedFormat" => Range {
                            min: 1,
                            max: MAX_FORMAT_SIZE,
                        }
                        .factor(cost::TRAVERSAL),
                        _ => Range::fixed(1),
                    },
                    None,
                )),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A two-variable comprehension's costs as cel-go expands and estimates it: its
/// accumulator's start, each element's condition and step, and its result. `parts`: the
/// costs of its predicate, or of its filter (if any) and transform.
fn two_variable_costs(name: &str, parts: &[Range]) -> (u64, Range, u64) {
    let last = parts.last().copied().unwrap_or_default();
    // `filter ? step : @result`: the filter, then the step or the accumulator (one).
    let filtered = |step: Range| match parts {
        [filter, _] => Range {
            min: filter.min.saturating_add(1),
            max: filter.max.saturating_add(step.max),
        },
        _ => step,
    };
    match name {
        // `@not_strictly_false(@result)` (two; three with `!`), then `@result && p`:
        // the accumulator, and the predicate at most.
        "all" | "exists" => {
            let condition = if name == "all" { 2 } else { 3 };
            let per = Range {
                min: condition + 1,
                max: (condition + 1u64).saturating_add(last.max),
            };
            (0, per, 1)
        }
        // `p ? @result + 1 : @result`, then `@result == 1`.
        "existsOne" => {
            let per = Range {
                min: last.min.saturating_add(1),
                max: last.max.saturating_add(2),
            };
            (0, per, 2)
        }
        // `@result + [t]` from `[]`.
        "transformList" => (
            cost::LIST,
            filtered(last.add(Range::fixed(cost::LIST + 2))),
            1,
        ),
        // `cel.@mapInsert(@result, k, t)` from `{}`; `cel.@mapInsert(@result, t)`.
        "transformMap" => (cost::MAP, filtered(last.add(Range::fixed(3))), 1),
        _ => (cost::MAP, filtered(last.add(Range::fixed(2))), 1),
    }
}

/// The longest name of a format (apiserver's `cel.MaxFormatSize`).
const MAX_FORMAT_SIZE: u64 = 64;

/// What selecting a field costs: a lookup in a map or object, nothing else.
fn lookup_cost(ty: &Ty<'_>) -> Range {
    match ty {
        Ty::Map(..) | Ty::Object(_) => Range::fixed(1),
        _ => Range::fixed(0),
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
        let analysis = analyze(&parsed, rule, &decl, false, Env::newest());
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
            analyze(&parsed, rule, &decl, false, Env::newest()).cost
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

    fn messages(analysis: &Analysis) -> Vec<String> {
        analysis.errors.iter().map(|e| e.message.clone()).collect()
    }

    #[test]
    fn fields_and_variables_the_schema_lacks_are_found() {
        let schema = json!({"type": "object", "properties": {"replicas": {"type": "integer"}}});
        let decl = Decl::new(&schema, false, Names::of(u16::MAX)).unwrap();
        let read = |rule: &str| {
            let parsed = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
            analyze(&parsed, rule, &decl, false, Env::newest())
        };
        assert_eq!(
            messages(&read("self.replicsa > 0")),
            ["undefined field 'replicsa'"]
        );
        assert_eq!(
            messages(&read("sefl.replicas > 0")),
            ["undeclared reference to 'sefl' (in container '')"]
        );
        assert_eq!(
            messages(&read("has(self.other)")),
            ["undefined field 'other'"]
        );
        assert!(
            read("self.replicas > 0 && [1].all(x, x > 0)")
                .errors
                .is_empty()
        );
        assert_eq!(read("self.replicas").result, "int");
        assert!(read("self.replicas >= oldSelf.replicas").uses_old_self);
        // Macros the parser does not expand still declare their variables.
        assert!(read("[1, 2].all(i, v, v > i)").errors.is_empty());
        // Kubernetes has no `cel.bind`.
        assert!(
            !read("cel.bind(r, self.replicas, r > 0 && r < 10)")
                .errors
                .is_empty()
        );
        assert_eq!(
            messages(&read("self.replicas + 'a' == 'b'")),
            ["found no matching overload for '_+_' applied to '(int, string)'"]
        );
        // The checks of literals say where the literal is, as cel-go does.
        let shown = |rule: &str| {
            let errors = read(rule).errors;
            errors.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        assert_eq!(
            shown("[1, 'a'].size() == 2"),
            ["ERROR: <input>:1:5: expected type 'int' but found 'string'"]
        );
        assert_eq!(
            shown("duration('1h') > duration('1d')"),
            ["ERROR: <input>:1:27: invalid duration argument"]
        );
    }
}
