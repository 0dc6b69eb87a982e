//! kube-apiserver's own CEL tests as the oracle: the cases of its test tables, ported as
//! data by hack/port-apiserver-cel-tests.py into testdata/cel/apiserver (each file names
//! the repository, path, function and tag it came from: v0.36.3, the newest release
//! crdgen targets, and where they differ v0.33.13, the oldest), run through
//! crdgen-runtime's validator answering as the tag's Kubernetes version (the one the
//! in-memory API server admits writes with) and crdgen-apimachinery's compiler (the one
//! crdgen's generation checks rules with). Each table is run as its own Go harness runs
//! it.
//!
//! Every case must agree with the apiserver, except those listed in
//! testdata/cel/apiserver/disagreements.json with what the validator answered instead:
//! the list is what the run gets, byte for byte, so it is always what is left to do
//! (`CRDGEN_BLESS=1` rewrites it; review the diff).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crdgen_apimachinery::cel::compile;
use crdgen_apimachinery::cel::decl::{Decl, Names};
use crdgen_apimachinery::cel::field_path;
use crdgen_apimachinery::cel::functions::{self, Env};
use crdgen_runtime::crd::{CostLimits, Validator};
use crdgen_runtime::field::{Error, ErrorType};
use serde_json::{Value, json};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cel/apiserver")
}

/// A case's verdict: `Ok` when it agrees, else what the validator answered instead.
type Verdict = Result<(), String>;

/// One table's cases, each by its id (`<function>/<case>[/<rule>]`).
fn run_table(document: &Value, verdicts: &mut BTreeMap<String, Verdict>) {
    let function = document["function"].as_str().unwrap();
    let tag = document["tag"].as_str().unwrap();
    let suffix = match document.get("differs_from") {
        Some(_) => format!("@{tag}"),
        None => String::new(),
    };
    // The Kubernetes version of the tag (v0.33.13: 1.33), which the validator answers as.
    let minor: u16 = tag.split('.').nth(1).unwrap().parse().unwrap();
    for case in document["cases"].as_array().unwrap() {
        let name = format!("{function}{suffix}/{}", case["name"].as_str().unwrap());
        if let Some(why) = case.get("unported") {
            verdicts.insert(name, Err(format!("not ported: {why}")));
            continue;
        }
        match function {
            "TestValidationExpressions" => validation_expressions(&name, case, minor, verdicts),
            "TestValidationExpressionsAtSchemaLevels"
            | "TestOptionalOldSelf"
            | "TestOptionalOldSelfCheckForNull"
            | "TestOptionalOldSelfIsOptionalType" => {
                verdicts.insert(name, schema_levels(case, minor));
            }
            "TestMessageExpression" => {
                verdicts.insert(name, message_expression(case, minor));
            }
            "TestRatcheting" => {
                verdicts.insert(name, ratcheting(case, minor));
            }
            "TestReasonAndFldPath" => {
                verdicts.insert(name, reasons_and_fields(case, minor));
            }
            "TestCelCompilation" => compilation(&name, case, verdicts),
            "TestCostEstimation" | "TestCelEstimatedCostStability" => {
                verdicts.insert(name, cost_estimation(case));
            }
            "TestCelCostStability" => {
                verdicts.insert(name, runtime_cost(case, minor));
            }
            "TestCELValidationLimit" => {
                verdicts.insert(name, validation_limit(case, minor));
            }
            "TestLibraryCompatibility" => {
                verdicts.insert(name, library_function(case));
            }
            "TestValidateFieldPath" => {
                let id = format!("{name}: {}", case["fieldPath"].as_str().unwrap());
                verdicts.insert(id, field_path(case));
            }
            "TestCELMaxRecursionDepth" => {
                verdicts.insert(name, recursion_depth(case, minor));
            }
            "TestCELValidationContextCancellation" => {
                verdicts.insert(name, cancellation(case, minor));
            }
            "TestIP" | "TestCIDR" | "TestQuantity" | "TestSemver" | "TestFormat" => {
                let expr = case["expr"].as_str().unwrap();
                let id = match case["name"].as_str() == Some(expr) {
                    true => name,
                    false => format!("{name}: {expr}"),
                };
                verdicts.insert(id, library(case));
            }
            other => panic!("no harness for {other}"),
        }
    }
}

/// `Ok` when nothing is wrong.
fn verdict(wrong: Vec<String>) -> Verdict {
    match wrong.is_empty() {
        true => Ok(()),
        false => Err(wrong.join("; ")),
    }
}

/// What the validator answered where the apiserver takes the object.
fn denied(errors: &[Error]) -> String {
    let texts: Vec<String> = errors.iter().map(go_text).collect();
    format!("denied: {}", texts.join("; "))
}

/// The apiserver's text of an error, its paths under `root` as the Go tests make them.
fn go_text(error: &Error) -> String {
    let text = error.to_string();
    match text.strip_prefix("<nil>") {
        Some(rest) => format!("root{rest}"),
        None if text.starts_with('[') => format!("root{text}"),
        None => format!("root.{text}"),
    }
}

fn validator(schema: &Value, root: bool, minor: u16) -> Validator {
    let validator = match root {
        true => Validator::new(schema),
        false => Validator::for_node(schema),
    };
    validator.for_kubernetes(minor)
}

/// The rules' answer on `object`: the same whether the validator counts their runtime
/// cost (as it does where their estimates say a limit could be reached) or evaluates
/// with the interpreter alone.
fn check(validator: &Validator, object: &Value, old: Option<&Value>) -> Result<(), Vec<Error>> {
    let fast = validator.check_rules(object, old);
    let (counted, _) = validator.check_rules_counted(object, old);
    let texts = |r: &Result<(), Vec<Error>>| {
        r.as_ref()
            .err()
            .map(|e| e.iter().map(go_text).collect::<Vec<_>>())
    };
    assert_eq!(
        texts(&fast),
        texts(&counted),
        "counting the cost changed the answer on {object}"
    );
    fast
}

fn with_rule(schema: &Value, rule: &str) -> Value {
    let mut schema = schema.clone();
    schema["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    schema
}

/// TestValidationExpressions: each rule is the root schema's only rule; a `valid` one
/// gives no error, an `errors` one gives at least one, each `Invalid` and containing the
/// text.
fn validation_expressions(
    name: &str,
    case: &Value,
    minor: u16,
    verdicts: &mut BTreeMap<String, Verdict>,
) {
    let root = case["root"] == true;
    let old = case.get("old");
    for rule in case["valid"].as_array().unwrap() {
        let rule = rule.as_str().unwrap();
        let checked = check(
            &validator(&with_rule(&case["schema"], rule), root, minor),
            &case["object"],
            old,
        );
        let verdict = checked.map_err(|errors| denied(&errors));
        verdicts.insert(format!("{name}/{rule}"), verdict);
    }
    for expected in case["errors"].as_array().unwrap() {
        let rule = expected["rule"].as_str().unwrap();
        let contains = expected["contains"].as_str().unwrap();
        let checked = check(
            &validator(&with_rule(&case["schema"], rule), true, minor),
            &case["object"],
            old,
        );
        let verdict = match checked {
            Ok(()) => Err(format!("allowed; the apiserver says {contains:?}")),
            Err(errors) => {
                let wrong: Vec<String> = errors
                    .iter()
                    .filter(|e| e.kind != ErrorType::Invalid || !go_text(e).contains(contains))
                    .map(go_text)
                    .collect();
                match wrong.is_empty() {
                    true => Ok(()),
                    false => Err(format!("{}, not {contains:?}", wrong.join("; "))),
                }
            }
        };
        verdicts.insert(format!("{name}/{rule}"), verdict);
    }
}

/// TestValidationExpressionsAtSchemaLevels (and the optionalOldSelf tables): the schema
/// as given, at a resource's root (unless `root` is false); every error is `Invalid` and
/// contains one of the texts, each text in one error.
fn schema_levels(case: &Value, minor: u16) -> Verdict {
    let root = case["root"] != false;
    let errors = check(
        &validator(&case["schema"], root, minor),
        &case["object"],
        case.get("old"),
    )
    .err()
    .unwrap_or_default();
    let mut unmatched: Vec<&str> = case["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    let mut wrong = Vec::new();
    for error in &errors {
        let text = go_text(error);
        match unmatched.iter().position(|e| text.contains(e)) {
            Some(i) if error.kind == ErrorType::Invalid => {
                unmatched.remove(i);
            }
            _ => wrong.push(text),
        }
    }
    match (wrong.is_empty(), unmatched.is_empty()) {
        (true, true) => Ok(()),
        _ => Err(format!(
            "errors {wrong:?}; expected and missing {unmatched:?}"
        )),
    }
}

/// TestCostEstimation and TestCelEstimatedCostStability: the schema's one rule compiles (at a node that is no resource's
/// root, as 1.35 compiles it), with the estimated cost the apiserver gives, or at least
/// the figure a case says it exceeds.
fn cost_estimation(case: &Value) -> Verdict {
    let schema = &case["schema"];
    let decl = Decl::new(schema, false, Names::of(36));
    let rule = schema["x-kubernetes-validations"][0]["rule"]
        .as_str()
        .unwrap();
    let compiled = compile::rule(rule, decl.as_ref(), false, Env::for_new_rules(36))?;
    let cost = compiled.and_then(|c| c.analysis).map_or(0, |a| a.cost);
    let (exact, least) = (
        case["cost"].as_u64().unwrap(),
        case["atLeast"].as_u64().unwrap(),
    );
    match (exact, least) {
        (0, 0) => Ok(()),
        (0, least) if cost >= least => Ok(()),
        (exact, _) if exact == cost => Ok(()),
        _ => Err(format!("cost {cost}, not {exact} (at least {least})")),
    }
}

/// TestMessageExpression: the rule `false` with the case's message and
/// messageExpression, on `{str: "a string"}`, within the case's cost budget and per-call
/// limit: exactly one error, containing the text, and the budget left as given.
fn message_expression(case: &Value, minor: u16) -> Verdict {
    let mut rule = json!({"rule": "false", "messageExpression": case["messageExpression"]});
    if let Some(message) = case.get("message") {
        rule["message"] = message.clone();
    }
    let schema = json!({
        "type": "object",
        "properties": {"str": {"type": "string"}},
        "x-kubernetes-validations": [rule],
    });
    let defaults = CostLimits::default();
    let limits = CostLimits {
        per_call: case["perCallLimit"].as_u64().unwrap_or(defaults.per_call),
        budget: case["costBudget"].as_u64().unwrap_or(defaults.budget),
    };
    let (checked, spent) = validator(&schema, false, minor)
        .with_cost_limits(limits)
        .check_rules_counted(&json!({"str": "a string"}), None);
    let texts: Vec<String> = checked
        .err()
        .unwrap_or_default()
        .iter()
        .map(go_text)
        .collect();
    let expected = case["error"].as_str().unwrap();
    let mut wrong = Vec::new();
    if !matches!(texts.as_slice(), [one] if one.contains(expected)) {
        wrong.push(format!("errors {texts:?}, not one with {expected:?}"));
    }
    if let Some(remaining) = case["remainingBudget"].as_i64() {
        let left = limits.budget as i64 - spent as i64;
        if left != remaining {
            wrong.push(format!("{left} of the budget left, not {remaining}"));
        }
    }
    verdict(wrong)
}

/// TestCelCostStability: the schema's one rule at a resource's root, on the object,
/// holds and costs exactly what the apiserver counts.
fn runtime_cost(case: &Value, minor: u16) -> Verdict {
    let (checked, spent) =
        validator(&case["schema"], true, minor).check_rules_counted(&case["object"], None);
    let expected = case["cost"].as_u64().unwrap();
    let mut wrong = Vec::new();
    if let Err(errors) = checked {
        wrong.push(denied(&errors));
    }
    if spent != expected {
        wrong.push(format!("cost {spent}, not {expected}"));
    }
    verdict(wrong)
}

/// Functions of Kubernetes' libraries no CRD rule can call: the authorizer's (whose
/// values only admission policies have) and JSON patch's (not in a CRD's environment).
const NOT_FOR_CRDS: &[&str] = &[
    "path",
    "group",
    "serviceAccount",
    "resource",
    "subresource",
    "namespace",
    "name",
    "check",
    "allowed",
    "reason",
    "errored",
    "error",
    "fieldSelector",
    "labelSelector",
    "jsonpatch.escapeKey",
];

/// TestLibraryCompatibility: each function Kubernetes' libraries declare is one a CRD's
/// rules may call from some version (crdgen-apimachinery's table of functions).
fn library_function(case: &Value) -> Verdict {
    let name = case["name"].as_str().unwrap();
    if NOT_FOR_CRDS.contains(&name) {
        return Err("not applicable: no CRD rule can call it".to_owned());
    }
    match functions::first_minor_for_new_rules(name) {
        Some(_) => Ok(()),
        None => Err(format!(
            "not declared (Kubernetes {})",
            case["since"].as_str().unwrap()
        )),
    }
}

/// TestValidateFieldPath: the fieldPath on the schema names a field, or fails with an
/// error containing the text (crdgen-apimachinery's `field_path`, which crdgen checks
/// a rule's `fieldPath` with).
fn field_path(case: &Value) -> Verdict {
    let path = case["fieldPath"].as_str().unwrap();
    let expected = case["error"].as_str().unwrap();
    match (field_path::invalid(&case["schema"], path), expected) {
        (None, "") => Ok(()),
        (Some(e), "") => Err(format!("refused: {e}")),
        (None, expected) => Err(format!("taken; the apiserver says {expected:?}")),
        (Some(e), expected) if e.contains(expected) => Ok(()),
        (Some(e), expected) => Err(format!("{e:?}, not {expected:?}")),
    }
}

/// TestCELMaxRecursionDepth: the rule, as deep as cel-go's parser goes, holds at a
/// node; one level deeper, at a resource's root, every error is Invalid and contains the
/// text.
fn recursion_depth(case: &Value, minor: u16) -> Verdict {
    let schema = with_rule(&case["schema"], case["rule"].as_str().unwrap());
    let Some(expected) = case["error"].as_str() else {
        return check(&validator(&schema, false, minor), &case["object"], None)
            .map_err(|e| denied(&e));
    };
    let errors = check(&validator(&schema, true, minor), &case["object"], None)
        .err()
        .unwrap_or_default();
    let wrong: Vec<String> = errors
        .iter()
        .filter(|e| e.kind != ErrorType::Invalid || !go_text(e).contains(expected))
        .map(go_text)
        .collect();
    match errors.is_empty() {
        true => Err(format!("allowed; the apiserver says {expected:?}")),
        false => verdict(wrong),
    }
}

/// TestCELValidationContextCancellation: the rule holds within the budget; the second
/// half, an evaluation interrupted by its request's cancelled context, has no
/// counterpart: the validator is not handed a request to cancel.
fn cancellation(case: &Value, minor: u16) -> Verdict {
    check(
        &validator(&case["schema"], true, minor),
        &case["object"],
        None,
    )
    .map_err(|e| denied(&e))?;
    Err("not applicable: the validator evaluates no request that can be cancelled".to_owned())
}

/// TestCELValidationLimit: the rule, which holds, at a node with no budget gives
/// exactly one Invalid error that the budget ran out; at a resource's root with a
/// per-call limit of nothing, an Invalid error that the call cost exceeds it.
fn validation_limit(case: &Value, minor: u16) -> Verdict {
    let unlimited = CostLimits::default();
    let no_budget = CostLimits {
        budget: 0,
        ..unlimited
    };
    let no_call = CostLimits {
        per_call: 0,
        ..unlimited
    };
    let mut wrong = Vec::new();
    let errors = validator(&case["schema"], false, minor)
        .with_cost_limits(no_budget)
        .check_rules(&case["object"], None)
        .err()
        .unwrap_or_default();
    let out = "validation failed due to running out of cost budget, no further validation rules will be run";
    if !matches!(errors.as_slice(), [e] if e.kind == ErrorType::Invalid && go_text(e).contains(out))
    {
        let texts: Vec<String> = errors.iter().map(go_text).collect();
        wrong.push(format!("with no budget: {texts:?}"));
    }
    let errors = validator(&case["schema"], true, minor)
        .with_cost_limits(no_call)
        .check_rules(&case["object"], None)
        .err()
        .unwrap_or_default();
    let exceeds = "no further validation rules will be run due to call cost exceeds limit for rule";
    if !errors
        .iter()
        .any(|e| e.kind == ErrorType::Invalid && go_text(e).contains(exceeds))
    {
        let texts: Vec<String> = errors.iter().map(go_text).collect();
        wrong.push(format!("with no per-call limit: {texts:?}"));
    }
    verdict(wrong)
}

/// TestRatcheting: the new object against the old at a node that is no resource's root,
/// with ratcheting on: as many errors as expected, each expected text in one; the
/// ratcheted ones (warnings on the apiserver) not among them.
fn ratcheting(case: &Value, minor: u16) -> Verdict {
    let limits = CostLimits {
        budget: case["costBudget"]
            .as_u64()
            .unwrap_or(CostLimits::default().budget),
        ..CostLimits::default()
    };
    let errors = check(
        &validator(&case["schema"], false, minor).with_cost_limits(limits),
        &case["object"],
        case.get("old"),
    )
    .err()
    .unwrap_or_default();
    let texts: Vec<String> = errors.iter().map(go_text).collect();
    let expected: Vec<&str> = case["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    let found = expected.iter().all(|e| texts.iter().any(|t| t.contains(e)));
    match texts.len() == expected.len() && found {
        true => Ok(()),
        false => Err(format!("errors {texts:?}, not {expected:?}")),
    }
}

/// TestReasonAndFldPath: the schema at a resource's root; its errors, by reason and
/// field, are those expected, in any order.
fn reasons_and_fields(case: &Value, minor: u16) -> Verdict {
    let errors = check(
        &validator(&case["schema"], true, minor),
        &case["object"],
        None,
    )
    .err()
    .unwrap_or_default();
    let field = |e: &Error| go_text(e).split(':').next().unwrap_or_default().to_owned();
    let mut got: Vec<(String, String)> = errors
        .iter()
        .map(|e| (e.kind.reason().to_owned(), field(e)))
        .collect();
    let mut expected: Vec<(String, String)> = case["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["reason"].as_str().unwrap().to_owned(),
                e["field"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    got.sort();
    expected.sort();
    match got == expected {
        true => Ok(()),
        false => Err(format!("errors {got:?}, not {expected:?}")),
    }
}

/// TestCelCompilation: each rule of the schema compiled at a node that is no resource's
/// root, in the environment of the apiserver's compatibility version (1.35 for
/// v0.36.3), with no error or an Invalid one containing the text, a messageExpression
/// error containing its text, whether it reads `oldSelf` as expected, and no program
/// where the case says there is none (`"program": null`).
fn compilation(name: &str, case: &Value, verdicts: &mut BTreeMap<String, Verdict>) {
    let schema = &case["schema"];
    let decl = Decl::new(schema, false, Names::of(36));
    let env = Env::for_new_rules(36);
    let rules = schema["x-kubernetes-validations"].as_array().unwrap();
    let expected = case["results"].as_array().unwrap();
    assert_eq!(rules.len(), expected.len(), "{name}");
    for (rule, expected) in rules.iter().zip(expected) {
        let source = rule["rule"].as_str().unwrap();
        let optional = rule["optionalOldSelf"] == true;
        let compiled = compile::rule(source, decl.as_ref(), optional, env);
        let mut wrong = Vec::new();
        let none_expected = expected.get("program").is_some_and(Value::is_null);
        match (&compiled, none_expected) {
            (Ok(Some(_)), true) => {
                wrong.push("compiled to a program; the apiserver's is nil".into())
            }
            (Ok(None), false) => wrong.push("compiled to no program".to_owned()),
            _ => {}
        }
        match (&compiled, expected.get("error").and_then(Value::as_str)) {
            (Ok(_), Some(text)) => wrong.push(format!("compiled; the apiserver says {text:?}")),
            (Err(e), None) if expected.get("error").is_some() => {
                wrong.push(format!("refused: {e}"));
            }
            (Err(e), Some(text)) if !e.contains(text) => {
                wrong.push(format!("{e}, not {text:?}"));
            }
            _ => {}
        }
        if let (Ok(Some(c)), Some(transition)) = (&compiled, expected["transitionRule"].as_bool()) {
            let uses = c.analysis.as_ref().is_some_and(|a| a.uses_old_self);
            if uses != transition {
                wrong.push(format!("reads oldSelf: {uses}, not {transition}"));
            }
        }
        if let Some(message) = rule["messageExpression"].as_str() {
            let checked = compile::message_expression(message, decl.as_ref(), optional, env);
            match (checked, expected["messageExpressionError"].as_str()) {
                (Ok(_), Some(text)) => wrong.push(format!(
                    "its messageExpression compiled; the apiserver says {text:?}"
                )),
                (Err(e), None) => wrong.push(format!("its messageExpression refused: {e}")),
                (Err(e), Some(text)) if !e.contains(text) => {
                    wrong.push(format!("its messageExpression: {e}, not {text:?}"));
                }
                _ => {}
            }
        }
        let id = format!("{name}/{source}");
        assert!(
            verdicts.insert(id.clone(), verdict(wrong)).is_none(),
            "two cases {id}"
        );
    }
}

/// The error a rule fails with, as the CEL evaluation gave it (the text between the
/// validator's `Invalid value: "object": ` and ` evaluating rule: …`).
fn evaluation_error(rule: &str) -> Result<Value, String> {
    let schema = json!({"type": "object", "x-kubernetes-validations": [{"rule": rule}]});
    let errors = match check(&Validator::for_node(&schema), &json!({}), None) {
        Ok(()) => return Ok(Value::Bool(true)),
        Err(errors) => errors,
    };
    let text = errors[0].detail.clone();
    let text = text.strip_prefix("rule compile error: ").unwrap_or(&text);
    let cut = text.rfind(" evaluating rule: ").unwrap_or(text.len());
    Err(text[..cut].to_owned())
}

/// The library tables (apiserver's pkg/cel/library): `expr` evaluates to `value`, or
/// fails at run time with the text (`exact`) or a text matching (`pattern`), or fails to
/// compile with texts matching each of `compileErrors`.
fn library(case: &Value) -> Verdict {
    let expr = case["expr"].as_str().unwrap();
    if let Some(value) = case["value"].as_str() {
        return match evaluation_error(&format!("({expr}) == ({value})")) {
            Ok(_) => Ok(()),
            Err(e) => Err(format!("{e}; the apiserver gives {value}")),
        };
    }
    // The expression is evaluated inside a rule, which must give a bool.
    let got = match evaluation_error(&format!("[{expr}].size() == 1")) {
        Ok(_) => return Err("no error".into()),
        Err(e) => e,
    };
    let wanted: Vec<(&str, bool)> = match (&case["runtimeError"], &case["compileErrors"]) {
        (Value::Object(m), _) if m.contains_key("exact") => {
            vec![(m["exact"].as_str().unwrap(), false)]
        }
        (Value::Object(m), _) => vec![(m["pattern"].as_str().unwrap(), true)],
        (_, Value::Array(patterns)) => patterns
            .iter()
            .map(|p| (p.as_str().unwrap(), true))
            .collect(),
        _ => panic!("a library case with no expectation: {case}"),
    };
    let matches = |(want, pattern): &(&str, bool)| match pattern {
        true => regex::Regex::new(want).unwrap().is_match(&got),
        false => got == *want,
    };
    match wanted.iter().all(matches) {
        true => Ok(()),
        false => Err(format!("error {got:?}, not {wanted:?}")),
    }
}

#[test]
fn every_case_of_kube_apiservers_cel_tests_agrees_or_is_listed_with_its_reason() {
    let mut verdicts = BTreeMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        // `crds/` holds the tables crdgen's own unit tests run through its generation
        // checks (generators::crd::cel::oracle).
        .filter(|p| p.is_file() && p.file_name().unwrap() != "disagreements.json")
        .collect();
    files.sort();
    for file in &files {
        let document: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        run_table(&document, &mut verdicts);
    }
    common::bless::disagreements(
        "kube-apiserver's CEL test cases",
        &verdicts,
        &dir().join("disagreements.json"),
    );
}
