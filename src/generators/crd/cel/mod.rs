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
use crdgen_apimachinery::cel::field_path;
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
    for finding in findings(schema, &kind.name, version, kube.minor()) {
        let Some((code, message, hint)) = finding.diagnostic else {
            continue;
        };
        let file = finding.origin["file"].as_str().filter(|f| !f.is_empty());
        let pos = Pos {
            line: finding.origin["line"].as_u64().unwrap_or(0) as usize,
            col: finding.origin["col"].as_u64().unwrap_or(0) as usize,
        };
        let diagnostic = Diagnostic::error(code, message).hint(hint);
        // At the rule's marker, or at the kind for a rule of no marker of the user's
        // (Kubernetes' own types) and for the rules' total.
        diags.push(match file {
            Some(file) if pos.line > 0 => diagnostic.at(file, pos),
            _ => diagnostic.at(&kind.file, kind.pos),
        });
    }
}

/// One thing the apiserver refuses about a schema's rules: where it says it (the field
/// below `openAPIV3Schema`, `properties[spec].x-kubernetes-validations[0].rule`) and as
/// which error, and crdgen's diagnostic of it.
#[derive(Debug)]
pub(crate) struct Finding {
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "read by kube-apiserver's own tests of CRDs (oracle.rs)"
        )
    )]
    pub field: String,
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "read by kube-apiserver's own tests of CRDs (oracle.rs)"
        )
    )]
    pub reason: &'static str,
    /// crdgen's diagnostic: code, message, hint; `None` where another says it (the
    /// apiserver names each of the most expensive rules of a schema over its budget).
    diagnostic: Option<(Code, String, String)>,
    /// The rule's marker (`file`, `line`, `col`), when it has one.
    origin: Value,
}

/// The apiserver's error types, as `field.ErrorType`'s reasons name them.
const INVALID: &str = "FieldValueInvalid";
const REQUIRED: &str = "FieldValueRequired";
const FORBIDDEN: &str = "FieldValueForbidden";
const NOT_SUPPORTED: &str = "FieldValueNotSupported";

/// What the apiserver refuses about the rules of `schema` (`version` of the kind
/// `kind_name`), for Kubernetes 1.`kube_minor`; the rules' origins come off.
pub(crate) fn findings(
    schema: &mut Value,
    kind_name: &str,
    version: &str,
    kube_minor: u16,
) -> Vec<Finding> {
    let names = Names::of(kube_minor);
    // The CEL types of the whole schema, once: each rule's is found in it by its path.
    let root = has_rules(schema)
        .then(|| Decl::new(schema, true, names))
        .flatten();
    let mut walk = Walk {
        kind_name,
        version,
        findings: Vec::new(),
        root: root.as_ref(),
        names,
        env: Env::for_new_rules(kube_minor),
        kube_minor,
        total: 0,
        expensive: Vec::new(),
    };
    let at = At {
        up: None,
        step: "",
        field: "",
        cardinality: Some(1),
        uncorrelatable: None,
        resource: true,
        bound_by: None,
    };
    walk.node(schema, &at);
    if walk.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        walk.expensive
            .sort_by_key(|(_, _, cost)| std::cmp::Reverse(*cost));
        walk.expensive.truncate(4);
        let named: Vec<String> = walk
            .expensive
            .iter()
            .map(|(rule, _, cost)| format!("`{rule}` ({cost})"))
            .collect();
        let total = walk.total;
        let mut findings = walk.findings;
        // The apiserver names each of the most expensive, then the schema.
        for (_, field, _) in &walk.expensive {
            findings.push(Finding {
                field: field.clone(),
                reason: FORBIDDEN,
                diagnostic: None,
                origin: Value::Null,
            });
        }
        findings.push(Finding {
            field: String::new(),
            reason: FORBIDDEN,
            diagnostic: Some((
                Code::RuleCost,
                format!(
                    "the CEL rules of `{kind_name}` in {version} cost an estimated {total} together, {} the apiserver's budget of {STATIC_ESTIMATED_CRD_COST_LIMIT} for a CRD version; the most expensive: {}",
                    factor(total, STATIC_ESTIMATED_CRD_COST_LIMIT),
                    named.join(", ")
                ),
                "bound the lists, maps and strings those rules read with `+kubebuilder:validation:MaxItems`, `MaxProperties` and `MaxLength`".to_owned(),
            )),
            origin: Value::Null,
        });
        return findings;
    }
    walk.findings
}

/// Where the walk is in the schema. Its field path is written out only where a rule is,
/// from the chain of places above: most nodes have none.
struct At<'a> {
    /// The place above; `None` at the root.
    up: Option<&'a At<'a>>,
    /// The step from there: a field's name, or `[*]` for items and map values.
    step: &'a str,
    /// The schema's key the step goes through: `properties`, `items` or
    /// `additionalProperties`; empty at the root.
    field: &'a str,
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
        field: &'a str,
        limit: Option<u64>,
        child: &Value,
        uncorrelatable: Option<&'a At<'a>>,
    ) -> At<'a> {
        At {
            up: Some(self),
            step,
            field,
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

    /// The node's place in the schema as the apiserver names it
    /// (`properties[spec].items`); empty at the root.
    fn schema_path(&self) -> String {
        let segment = match self.field {
            "" => return String::new(),
            "properties" => format!("properties[{}]", self.step),
            other => other.to_owned(),
        };
        match self.up.map(At::schema_path).filter(|p| !p.is_empty()) {
            Some(up) => format!("{up}.{segment}"),
            None => segment,
        }
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
    kind_name: &'a str,
    /// The CEL type of the root, when any rule needs it.
    root: Option<&'a Decl>,
    names: Names,
    /// The functions the rules may call: those of the targeted Kubernetes version.
    env: Env,
    kube_minor: u16,
    version: &'a str,
    findings: Vec<Finding>,
    total: u64,
    /// The rules and messageExpressions that cost at least a hundredth of a CRD's
    /// budget: their text, field and cost.
    expensive: Vec<(String, String, u64)>,
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

/// What the apiserver finds malformed in `rule` (on `schema`) before compiling any
/// rule: the part, the error, why, and what to do.
fn malformations(
    schema: &Value,
    rule: &Value,
) -> Vec<(&'static str, &'static str, String, &'static str)> {
    let text = |key: &str| rule.get(key).and_then(Value::as_str);
    let lines = |t: &str| t.contains(['\n', '\r']);
    let mut found = Vec::new();
    let source = text("rule").unwrap_or_default().trim();
    let message = text("message").unwrap_or_default();
    if source.is_empty() {
        found.push((
            "rule",
            REQUIRED,
            "is not specified".to_owned(),
            "write the rule",
        ));
    } else if !message.is_empty() && message.trim().is_empty() {
        found.push((
            "message",
            INVALID,
            "must be non-empty if specified".to_owned(),
            "write the message, or leave it out",
        ));
    } else if lines(message.trim()) {
        found.push((
            "message",
            INVALID,
            "must not contain line breaks".to_owned(),
            "write the message on one line",
        ));
    } else if lines(source) && message.trim().is_empty() {
        found.push((
            "message",
            REQUIRED,
            "must be specified if the rule contains line breaks".to_owned(),
            "give the rule a message",
        ));
    }
    if text("messageExpression").is_some_and(|m| !m.is_empty() && m.trim().is_empty()) {
        found.push((
            "messageExpression",
            REQUIRED,
            "must be non-empty if specified".to_owned(),
            "write the messageExpression, or leave it out",
        ));
    }
    if let Some(reason) = text("reason")
        && !SUPPORTED_REASONS.contains(&reason)
    {
        found.push((
            "reason",
            NOT_SUPPORTED,
            format!("`{reason}` is not one of {}", SUPPORTED_REASONS.join(", ")),
            "use one of the reasons the apiserver supports",
        ));
    }
    if let Some(path) = text("fieldPath").filter(|p| !p.is_empty()) {
        let why = if path.trim().is_empty() {
            Some("must be non-empty if specified".to_owned())
        } else if lines(path) {
            Some("must not contain line breaks".to_owned())
        } else {
            field_path::invalid(schema, path).map(|e| format!("must be a valid path: {e}"))
        };
        if let Some(why) = why {
            found.push((
                "fieldPath",
                INVALID,
                why,
                "name a field below the rule's node, as `.spec.replicas` or `['a.b']`",
            ));
        }
    }
    found
}

/// The reasons a rule may give its error (`x-kubernetes-validations[].reason`).
const SUPPORTED_REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// Whether a rule below `schema` (not its own) is malformed.
fn malformed_below(schema: &Value) -> bool {
    let malformed_here = |s: &Value| {
        s["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|rule| !malformations(s, rule).is_empty())
    };
    let children = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
        .chain(
            ["items", "additionalProperties"]
                .iter()
                .filter_map(|k| schema.get(*k)),
        );
    children
        .filter(|child| child.is_object())
        .any(|child| malformed_here(child) || malformed_below(child))
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
        // A map of another type than granular or atomic is not matched key by key.
        let properties_uncorrelatable = match schema.get("x-kubernetes-map-type") {
            None => at.uncorrelatable,
            Some(t) if t == "granular" || t == "atomic" => at.uncorrelatable,
            Some(_) => at.uncorrelatable.or(Some(&here)),
        };
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                let next = here.child(
                    name,
                    "properties",
                    limit,
                    property,
                    properties_uncorrelatable,
                );
                self.node(property, &next);
            }
        }
        if let Some(values) = schema
            .get_mut("additionalProperties")
            .filter(|a| a.is_object())
        {
            let next = here.child(
                "[*]",
                "additionalProperties",
                limit,
                values,
                at.uncorrelatable,
            );
            self.node(values, &next);
        }
        if let Some(items) = schema.get_mut("items") {
            // Only a map list's items can be matched with their old versions.
            let uncorrelatable = match map_list {
                true => at.uncorrelatable,
                false => at.uncorrelatable.or(Some(&here)),
            };
            let next = here.child("[*]", "items", limit, items, uncorrelatable);
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
                crate::markers::schema::strip_origin(branch, RULE_ORIGIN);
            }
        }
    }

    fn rules(&mut self, schema: &mut Value, at: &At<'_>) {
        let node = at.schema_path();
        let prefix = match node.is_empty() {
            true => "x-kubernetes-validations".to_owned(),
            false => format!("{node}.x-kubernetes-validations"),
        };
        // The apiserver compiles a node's rules only when no rule here or below is
        // malformed (a missing rule, a message or fieldPath it does not take).
        let malformed = self.malformed(schema, &prefix) || malformed_below(schema);
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
        for (i, rule) in rules.iter_mut().enumerate() {
            let origin = rule
                .as_object_mut()
                .and_then(|r| r.remove(RULE_ORIGIN))
                .unwrap_or(Value::Null);
            let Some(decl) = decl.filter(|_| !malformed) else {
                continue;
            };
            self.rule(rule, decl, at, &origin, &format!("{prefix}[{i}]"));
        }
    }

    /// Reports the rules of `schema` that are malformed, as the apiserver checks them
    /// before it compiles any (`prefix`: their field); whether any is.
    fn malformed(&mut self, schema: &Value, prefix: &str) -> bool {
        let before = self.findings.len();
        for (i, rule) in schema["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let origin = rule.get(RULE_ORIGIN).cloned().unwrap_or(Value::Null);
            for (part, reason, why, hint) in malformations(schema, rule) {
                self.report(
                    format!("{prefix}[{i}].{part}"),
                    reason,
                    Code::InvalidRule,
                    &origin,
                    format!(
                        "the CEL rule `{}` in {}: its `{part}` {why}",
                        rule["rule"].as_str().unwrap_or_default(),
                        self.version
                    ),
                    hint,
                );
            }
        }
        self.findings.len() > before
    }

    /// Compiles one rule (`field`: where the apiserver names it) as the apiserver does.
    fn rule(&mut self, rule: &Value, decl: &Decl, at: &At<'_>, origin: &Value, field: &str) {
        let text = |key: &str| rule.get(key).and_then(Value::as_str);
        let source = text("rule").unwrap_or_default();
        let path = at.path();
        let place = match path.is_empty() {
            true => format!("the root of `{}`", self.kind_name),
            false => format!("`{path}`"),
        };
        let optional = rule["optionalOldSelf"] == true;
        let rule_field = format!("{field}.rule");
        let invalid = |walk: &mut Walk<'_>, part: &str, why: String, hint: &str| {
            walk.report(
                format!("{field}.{part}"),
                INVALID,
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
                    "rule",
                    format!("it does not parse: {e}"),
                    "write it in CEL, as https://kubernetes.io/docs/reference/using-api/cel/ describes it",
                );
                return;
            }
        };
        let analysis = check::analyze(parsed, source, decl, optional, self.env);
        for error in &analysis.errors {
            let hint = type_error_hint(&error.message, self.kube_minor);
            invalid(self, "rule", error.message.clone(), &hint);
        }
        if analysis.errors.is_empty()
            && let Some(e) = crdgen_apimachinery::cel::compile::program_error(parsed)
        {
            invalid(
                self,
                "rule",
                e,
                "write the pattern in RE2's syntax, as https://github.com/google/re2/wiki/Syntax describes it",
            );
        }
        if analysis.result != "bool" {
            invalid(
                self,
                "rule",
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
                "rule",
                format!(
                    "`oldSelf` cannot be used here: the items of {list} cannot be matched with their old versions"
                ),
                "make the list a map list (`+listType=map` with `+listMapKey`), or write the rule on the list itself",
            );
        } else if !analysis.uses_old_self
            && rule.get("optionalOldSelf").is_some_and(|o| !o.is_null())
        {
            invalid(
                self,
                "optionalOldSelf",
                "`optionalOldSelf` is set but the rule does not read `oldSelf`".to_owned(),
                "drop `optionalOldSelf`, or compare with `oldSelf`",
            );
        }
        let cardinality = at
            .cardinality
            .unwrap_or(MAX_REQUEST_SIZE_BYTES / (decl.min_size + 1));
        let cost = analysis.cost.saturating_mul(cardinality);
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
                rule_field.clone(),
                FORBIDDEN,
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
        self.observe(source, rule_field, cost);
        let Some(message) = text("messageExpression").filter(|m| !m.trim().is_empty()) else {
            return;
        };
        let parsed = match self.parse(message).as_ref() {
            Ok(parsed) => parsed.clone(),
            Err(e) => {
                invalid(
                    self,
                    "messageExpression",
                    format!("its messageExpression does not parse: {e}"),
                    "write it in CEL",
                );
                return;
            }
        };
        let analysis = check::analyze(&parsed, message, decl, optional, self.env);
        for error in &analysis.errors {
            invalid(
                self,
                "messageExpression",
                format!("its messageExpression: {}", error.message),
                "a messageExpression reads what the rule reads",
            );
        }
        if analysis.result != "string" {
            invalid(
                self,
                "messageExpression",
                format!(
                    "its messageExpression gives `{}`, not `string`",
                    analysis.result
                ),
                "make the messageExpression a string, such as `'no such tier: ' + self.tier`",
            );
        }
        if !analysis.errors.is_empty() || analysis.result != "string" {
            return;
        }
        // The apiserver counts a message once, however often its rule runs.
        if analysis.cost > STATIC_ESTIMATED_COST_LIMIT {
            self.report(
                format!("{field}.messageExpression"),
                FORBIDDEN,
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
        self.observe(message, format!("{field}.messageExpression"), analysis.cost);
    }

    /// Counts an expression's cost towards the schema's total, as the apiserver does,
    /// keeping those that cost at least a hundredth of the budget.
    fn observe(&mut self, source: &str, field: String, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            self.expensive.push((source.to_owned(), field, cost));
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

    /// Records what the apiserver refuses at `field`, and crdgen's diagnostic of it.
    fn report(
        &mut self,
        field: String,
        reason: &'static str,
        code: Code,
        origin: &Value,
        message: String,
        hint: &str,
    ) {
        self.findings.push(Finding {
            field,
            reason,
            diagnostic: Some((code, message, hint.to_owned())),
            origin: origin.clone(),
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

#[cfg(test)]
mod oracle;

#[cfg(test)]
mod tests {
    use super::{INVALID, findings, parse};

    #[test]
    fn rules_the_parser_cannot_read_are_errors() {
        for rule in ["has(self)", "self.x +", "[1,2", "'open"] {
            assert!(parse(rule).is_err(), "{rule}");
        }
        assert!(parse("self.all(x, x > 0)").is_ok());
    }

    #[test]
    fn a_constant_pattern_the_apiserver_cannot_compile_is_an_error() {
        let mut schema = serde_json::json!({"type": "object", "properties": {"s": {
            "type": "string",
            "maxLength": 10,
            "x-kubernetes-validations": [
                {"rule": "self.find(')') == ''"},
                {"rule": "self.findAll('[a-z]+').size() > 0"}
            ]
        }}});
        let found: Vec<(String, &str)> = findings(&mut schema, "Kind", "v1", 36)
            .into_iter()
            .map(|f| (f.field, f.reason))
            .collect();
        assert_eq!(
            found,
            [(
                "properties[s].x-kubernetes-validations[0].rule".to_owned(),
                INVALID
            )]
        );
    }
}
