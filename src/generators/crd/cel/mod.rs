//! The CEL rules of a CRD version's schema, checked as kube-apiserver checks them when
//! the CRD is created, so that a rule it would refuse is an error where its marker is
//! written: a rule that does not parse, reads a field its node does not have or a
//! variable that does not exist, is not a bool (a `messageExpression` not a string),
//! uses `oldSelf` where no old value can be found (below a list that is not a map list)
//! or sets `optionalOldSelf` without it; and the cost limits, per rule and per CRD
//! version, estimated from the schema's bounds as the apiserver estimates them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crdgen_apimachinery::cel::{
    MAX_REQUEST_SIZE_BYTES, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, escape,
};
use serde_json::Value;

use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::markers::schema::RULE_ORIGIN;
use crate::model::Kind;
use crdgen_apimachinery::cel::check;
use crdgen_apimachinery::cel::decl::{Decl, Names};
use crdgen_apimachinery::cel::functions::{self, Env};

/// Checks every rule of `schema` (the `version` of `kind`), reporting what the apiserver
/// would refuse, and takes the rules' origins off.
pub(super) fn check(
    schema: &mut Value,
    kind: &Kind,
    version: &str,
    kube: crate::known::KubeVersion,
    diags: &mut Diagnostics,
) {
    let names = Names::of(kube.minor());
    // The CEL types of the whole schema, once: each rule's is found in it by its path.
    let root = has_rules(schema)
        .then(|| Decl::new(schema, true, names))
        .flatten();
    let mut walk = Walk {
        kind,
        version,
        diags,
        root: root.as_ref(),
        names,
        env: Env::for_new_rules(kube.minor()),
        kube_minor: kube.minor(),
        total: 0,
        expensive: Vec::new(),
    };
    let at = At {
        up: None,
        step: "",
        cardinality: Some(1),
        uncorrelatable: None,
        resource: true,
        bound_by: None,
    };
    walk.node(schema, &at);
    if walk.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        walk.expensive
            .sort_by_key(|(_, cost)| std::cmp::Reverse(*cost));
        let named: Vec<String> = walk
            .expensive
            .iter()
            .take(4)
            .map(|(rule, cost)| format!("`{rule}` ({cost})"))
            .collect();
        walk.diags.push(
            Diagnostic::error(
                Code::RuleCost,
                format!(
                    "the CEL rules of `{}` in {version} cost an estimated {} together, {} the apiserver's budget of {STATIC_ESTIMATED_CRD_COST_LIMIT} for a CRD version; the most expensive: {}",
                    kind.name,
                    walk.total,
                    factor(walk.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
                    named.join(", ")
                ),
            )
            .at(&kind.file, kind.pos)
            .hint("bound the lists, maps and strings those rules read with `+kubebuilder:validation:MaxItems`, `MaxProperties` and `MaxLength`"),
        );
    }
}

/// Where the walk is in the schema. Its field path is written out only where a rule is,
/// from the chain of places above: most nodes have none.
struct At<'a> {
    /// The place above; `None` at the root.
    up: Option<&'a At<'a>>,
    /// The step from there: a field's name, or `[*]` for items and map values.
    step: &'a str,
    /// How many times the node can occur in one object; `None` when unbounded.
    cardinality: Option<u64>,
    /// The list above this node whose items cannot be told apart between versions.
    uncorrelatable: Option<&'a At<'a>>,
    /// A resource (the root, an embedded resource): rules see its metadata.
    resource: bool,
    /// For an unbounded list or map, the marker that bounds it.
    bound_by: Option<&'static str>,
}

impl<'a> At<'a> {
    /// The place one `step` below, where `child` is, in a node holding at most `limit`
    /// of it.
    fn child(
        &'a self,
        step: &'a str,
        limit: Option<u64>,
        child: &Value,
        uncorrelatable: Option<&'a At<'a>>,
    ) -> At<'a> {
        At {
            up: Some(self),
            step,
            cardinality: self
                .cardinality
                .zip(limit)
                .map(|(a, b)| a.saturating_mul(b)),
            uncorrelatable,
            resource: child["x-kubernetes-embedded-resource"] == true,
            bound_by: None,
        }
    }

    /// The field path (`spec.paths[*]`); empty at the root.
    fn path(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(place) = at {
            steps.push(place.step);
            at = place.up;
        }
        let mut path = String::new();
        for step in steps.iter().rev().filter(|s| !s.is_empty()) {
            if !path.is_empty() && *step != "[*]" {
                path.push('.');
            }
            path.push_str(step);
        }
        path
    }

    /// This node's CEL type within `root`'s, the root's.
    fn decl_in<'d>(&self, root: &'d Decl) -> Option<&'d Decl> {
        let Some(up) = self.up else {
            return Some(root);
        };
        let parent = up.decl_in(root)?;
        match self.step {
            "[*]" => parent.step("@items"),
            name => parent.step(&escape(name)?),
        }
    }

    /// The unbounded lists and maps above, from the root down, with the marker that
    /// bounds each.
    fn unbounded(&self) -> Vec<(String, &'static str)> {
        let mut found = Vec::new();
        let mut at = self.up;
        while let Some(place) = at {
            if let Some(marker) = place.bound_by {
                found.push((place.path(), marker));
            }
            at = place.up;
        }
        found.reverse();
        found
    }
}

struct Walk<'a> {
    kind: &'a Kind,
    /// The CEL type of the root, when any rule needs it.
    root: Option<&'a Decl>,
    names: Names,
    /// The functions the rules may call: those of the targeted Kubernetes version.
    env: Env,
    kube_minor: u16,
    version: &'a str,
    diags: &'a mut Diagnostics,
    total: u64,
    expensive: Vec<(String, u64)>,
}

type Parsed = Result<kube_cel::cel::parser::Expression, String>;

/// Whether `schema` or anything below it has rules.
fn has_rules(schema: &Value) -> bool {
    schema.get("x-kubernetes-validations").is_some()
        || schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(has_rules))
        || ["items", "additionalProperties"]
            .iter()
            .any(|key| schema.get(key).is_some_and(has_rules))
}

/// How many values of a child one value of `schema` holds (the apiserver's
/// `extractMaxElements`): a list's or map's bound, else 1.
fn max_elements(schema: &Value) -> Option<u64> {
    let bound = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_i64)
            .map(|n| n.max(0) as u64)
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => bound("maxItems"),
        Some("object") if schema.get("additionalProperties").is_some() => bound("maxProperties"),
        _ => Some(1),
    }
}

/// How much over a budget: the apiserver's wording (`2.5x`, `more than 100x`).
fn factor(cost: u64, limit: u64) -> String {
    let times = cost as f64 / limit as f64;
    if times > 100.0 {
        "more than 100x".to_owned()
    } else if times < 1.5 {
        format!("{times:.6}x")
    } else {
        format!("{times:.1}x")
    }
}

impl Walk<'_> {
    fn node(&mut self, schema: &mut Value, at: &At<'_>) {
        if schema.get("x-kubernetes-validations").is_some() {
            self.rules(schema, at);
        }
        // What the children inherit, read before they are borrowed.
        let limit = max_elements(schema);
        let bound_by = limit
            .is_none()
            .then(|| match schema.get("type").and_then(Value::as_str) {
                Some("array") => "MaxItems",
                _ => "MaxProperties",
            });
        let here = At { bound_by, ..*at };
        let map_list = schema["x-kubernetes-list-type"] == "map";
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                let next = here.child(name, limit, property, at.uncorrelatable);
                self.node(property, &next);
            }
        }
        if let Some(values) = schema
            .get_mut("additionalProperties")
            .filter(|a| a.is_object())
        {
            let next = here.child("[*]", limit, values, at.uncorrelatable);
            self.node(values, &next);
        }
        if let Some(items) = schema.get_mut("items") {
            // Only a map list's items can be matched with their old versions.
            let uncorrelatable = match map_list {
                true => at.uncorrelatable,
                false => at.uncorrelatable.or(Some(&here)),
            };
            let next = here.child("[*]", limit, items, uncorrelatable);
            self.node(items, &next);
        }
        // Rules in allOf/anyOf/oneOf branches are not the apiserver's to compile here;
        // their origins still come off.
        for key in ["allOf", "anyOf", "oneOf"] {
            for branch in schema
                .get_mut(key)
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                strip_origins(branch);
            }
        }
    }

    fn rules(&mut self, schema: &mut Value, at: &At<'_>) {
        let found = self.root.and_then(|root| at.decl_in(root));
        let built;
        let decl = match found {
            Some(decl) => Some(decl),
            // A field whose name CEL cannot spell is not in its object's type.
            None => {
                built = Decl::new(schema, at.resource, self.names);
                built.as_ref()
            }
        };
        let Some(Value::Array(rules)) = schema.get_mut("x-kubernetes-validations") else {
            return;
        };
        for rule in rules.iter_mut() {
            let origin = rule
                .as_object_mut()
                .and_then(|r| r.remove(RULE_ORIGIN))
                .unwrap_or(Value::Null);
            let Some(decl) = decl else {
                continue;
            };
            self.rule(rule, decl, at, &origin);
        }
    }

    fn rule(&mut self, rule: &Value, decl: &Decl, at: &At<'_>, origin: &Value) {
        let text = |key: &str| rule.get(key).and_then(Value::as_str);
        let source = text("rule").unwrap_or_default();
        let path = at.path();
        let place = match path.is_empty() {
            true => format!("the root of `{}`", self.kind.name),
            false => format!("`{path}`"),
        };
        let optional = rule["optionalOldSelf"] == true;
        let invalid = |walk: &mut Walk<'_>, why: String, hint: &str| {
            walk.report(
                Code::InvalidRule,
                origin,
                format!(
                    "the CEL rule `{source}` on {place} in {}: {why}",
                    walk.version
                ),
                hint,
            );
        };
        let parsed = self.parse(source);
        let parsed = match parsed.as_ref() {
            Ok(p) => p,
            Err(e) => {
                invalid(
                    self,
                    format!("it does not parse: {e}"),
                    "write it in CEL, as https://kubernetes.io/docs/reference/using-api/cel/ describes it",
                );
                return;
            }
        };
        let analysis = check::analyze(parsed, source, decl, optional, self.env);
        for error in &analysis.errors {
            let hint = type_error_hint(&error.message, self.kube_minor);
            invalid(self, error.message.clone(), &hint);
        }
        if analysis.result != "bool" {
            invalid(
                self,
                format!(
                    "it gives `{}`, and a rule must give `bool`",
                    analysis.result
                ),
                "compare or test the value so that the rule is true when it is valid",
            );
        }
        if analysis.uses_old_self
            && let Some(list) = at.uncorrelatable.map(At::path)
        {
            let list = if list.is_empty() {
                "the root".to_owned()
            } else {
                format!("`{list}`")
            };
            invalid(
                self,
                format!(
                    "`oldSelf` cannot be used here: the items of {list} cannot be matched with their old versions"
                ),
                "make the list a map list (`+listType=map` with `+listMapKey`), or write the rule on the list itself",
            );
        } else if optional && !analysis.uses_old_self {
            invalid(
                self,
                "`optionalOldSelf` is set but the rule does not read `oldSelf`".to_owned(),
                "drop `optionalOldSelf`, or compare with `oldSelf`",
            );
        }
        let cardinality = at
            .cardinality
            .unwrap_or(MAX_REQUEST_SIZE_BYTES / (decl.min_size + 1));
        let mut cost = analysis.cost.saturating_mul(cardinality);
        if cost > STATIC_ESTIMATED_COST_LIMIT {
            let mut unbounded: Vec<(String, &str)> = analysis
                .unbounded
                .iter()
                .map(|(field, marker)| {
                    (
                        field
                            .replacen("self", &path, 1)
                            .trim_start_matches('.')
                            .to_owned(),
                        *marker,
                    )
                })
                .collect();
            if at.cardinality.is_none() {
                unbounded.extend(at.unbounded());
            }
            let hint = match unbounded.as_slice() {
                [] => "simplify the rule".to_owned(),
                fields => {
                    let named: Vec<String> = fields.iter().map(|(f, m)| bound(f, m)).collect();
                    format!("bound what the rule reads: {}", named.join(", "))
                }
            };
            self.report(
                Code::RuleCost,
                origin,
                format!(
                    "the CEL rule `{source}` on {place} in {} costs an estimated {cost}, {} the apiserver's budget of {STATIC_ESTIMATED_COST_LIMIT} for a rule",
                    self.version,
                    factor(cost, STATIC_ESTIMATED_COST_LIMIT)
                ),
                &hint,
            );
        }
        if let Some(message) = text("messageExpression") {
            match self.parse(message).as_ref() {
                Ok(parsed) => {
                    let analysis = check::analyze(parsed, message, decl, optional, self.env);
                    for error in &analysis.errors {
                        invalid(
                            self,
                            format!("its messageExpression: {}", error.message),
                            "a messageExpression reads what the rule reads",
                        );
                    }
                    if analysis.result != "string" {
                        invalid(
                            self,
                            format!(
                                "its messageExpression gives `{}`, not `string`",
                                analysis.result
                            ),
                            "make the messageExpression a string, such as `'no such tier: ' + self.tier`",
                        );
                    }
                    // The apiserver counts a message once, however often its rule runs.
                    if analysis.cost > STATIC_ESTIMATED_COST_LIMIT {
                        self.report(
                            Code::RuleCost,
                            origin,
                            format!(
                                "the messageExpression `{message}` of the CEL rule `{source}` on {place} in {} costs an estimated {}, {} the apiserver's budget of {STATIC_ESTIMATED_COST_LIMIT}",
                                self.version,
                                analysis.cost,
                                factor(analysis.cost, STATIC_ESTIMATED_COST_LIMIT)
                            ),
                            "a message of unknown length (such as `string(…)` of a number) costs as much as the longest string a request holds: build it from literals and bounded fields",
                        );
                    }
                    cost = cost.saturating_add(analysis.cost);
                }
                Err(e) => invalid(
                    self,
                    format!("its messageExpression does not parse: {e}"),
                    "write it in CEL",
                ),
            }
        }
        self.total = self.total.saturating_add(cost);
        if cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            self.expensive.push((source.to_owned(), cost));
        }
    }

    /// `source` parsed, once per text.
    /// The rule `source` parsed, once per text on each thread: a type's rules repeat
    /// wherever it is used, in every kind and version that uses it.
    fn parse(&mut self, source: &str) -> Rc<Parsed> {
        thread_local! {
            static PARSED: RefCell<HashMap<String, Rc<Parsed>>> = RefCell::new(HashMap::new());
        }
        PARSED.with_borrow_mut(|parsed| {
            parsed
                .entry(source.to_owned())
                .or_insert_with(|| Rc::new(parse(source)))
                .clone()
        })
    }

    /// A diagnostic at the rule's marker, or at the kind for a rule of no marker of the
    /// user's (Kubernetes' own types).
    fn report(&mut self, code: Code, origin: &Value, message: String, hint: &str) {
        let file = origin["file"].as_str().filter(|f| !f.is_empty());
        let pos = Pos {
            line: origin["line"].as_u64().unwrap_or(0) as usize,
            col: origin["col"].as_u64().unwrap_or(0) as usize,
        };
        let diagnostic = Diagnostic::error(code, message).hint(hint);
        self.diags.push(match file {
            Some(file) if pos.line > 0 => diagnostic.at(file, pos),
            _ => diagnostic.at(&self.kind.file, self.kind.pos),
        });
    }
}

/// What to do about a rule the apiserver's type checker refuses with `error`, on a
/// CRD for Kubernetes 1.`kube_minor`.
fn type_error_hint(error: &str, kube_minor: u16) -> String {
    let quoted = |prefix: &str| {
        error
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('\'').next())
            .map(str::to_owned)
    };
    if let Some(name) = quoted("undeclared reference to '")
        && let Some(first) = functions::first_minor_for_new_rules(&name)
    {
        return format!(
            "`{name}` is in the CEL environment of CRDs written to Kubernetes 1.{first} and later, and this CRD is generated for 1.{kube_minor}: raise `--kube-version` if every cluster it is for is that new, or write the rule without it"
        );
    }
    if let Some(field) = quoted("undefined field '") {
        return format!(
            "check the field's JSON name; a rule sees only the fields the schema declares, even where unknown fields are kept (`x-kubernetes-preserve-unknown-fields`): declare `{field}` if it is meant to be there"
        );
    }
    if error.starts_with("found no matching overload") {
        return "the operands' types are not ones the function takes: convert one (`string(x)`, `int(x)`, `double(x)`) or compare values of the same type".to_owned();
    }
    "a rule reads `self` (this field's value), its fields by their JSON names and, on updates, `oldSelf`".to_owned()
}

/// The marker that bounds `field` (`spec.paths`, or a list's items `spec.paths[*]`).
fn bound(field: &str, marker: &str) -> String {
    match field.strip_suffix("[*]") {
        Some(list) => format!("`+kubebuilder:validation:items:{marker}=…` on `{list}`"),
        None if field.is_empty() => format!("`+kubebuilder:validation:{marker}=…` on the root"),
        None => format!("`+kubebuilder:validation:{marker}=…` on `{field}`"),
    }
}

/// Parses a rule as the apiserver's environment does.
fn parse(source: &str) -> Parsed {
    // The first line: the parser's own message, without its drawing of the place.
    crdgen_apimachinery::cel::compile::parse(source)
        .map_err(|e| e.lines().next().unwrap_or_default().trim().to_owned())
}

/// Takes every rule origin off a schema that is not checked.
fn strip_origins(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.remove(RULE_ORIGIN);
            map.values_mut().for_each(strip_origins);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_origins),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn rules_the_parser_cannot_read_are_errors() {
        for rule in ["has(self)", "self.x +", "[1,2", "'open"] {
            assert!(parse(rule).is_err(), "{rule}");
        }
        assert!(parse("self.all(x, x > 0)").is_ok());
    }
}
