//! kube-apiserver's tests of its CEL libraries' costs (apiserver's
//! `pkg/cel/library/cost_test.go`, ported as data by hack/port-apiserver-cel-tests.py
//! into testdata/cel/apiserver/library): each expression, of no variables, estimated by
//! crdgen-apimachinery's checker (a string of no known size 0 to 12 long, as the tests'
//! estimator sizes it) and evaluated with its cost counted as cel-go counts it without
//! `OptOptimize`, as the tests plan their programs. Every case must agree, except those
//! listed in `library/disagreements.json` with what crdgen gave instead
//! (`CRDGEN_BLESS=1` rewrites it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crdgen_apimachinery::cel::check;
use crdgen_apimachinery::cel::compile;
use crdgen_apimachinery::cel::decl::{Decl, Names};
use crdgen_apimachinery::cel::functions::Env;
use serde_json::{Value, json};

use super::cost::Tracker;

// The integration tests' expected file, which `CRDGEN_BLESS=1` rewrites.
#[path = "../../../../tests/common/bless.rs"]
mod bless;
use super::with_base;
use crate::crd::KUBERNETES_MINOR;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/cel/apiserver/library")
}

/// The size the tests' estimator gives a string or bytes of no known size.
const TEST_TEXT_SIZE: (u64, u64) = (0, 12);

/// One case: `Ok` when the estimate and the runtime cost are the apiserver's.
fn verdict(case: &Value) -> Result<(), String> {
    if let Some(why) = case.get("unported") {
        return Err(format!("not ported: {why}"));
    }
    let expr = case["expr"].as_str().unwrap();
    let parsed = compile::parse(expr)?;
    let decl = Decl::new(
        &json!({"type": "object"}),
        false,
        Names::of(KUBERNETES_MINOR),
    )
    .unwrap();
    let env = Env::for_new_rules(KUBERNETES_MINOR);
    let analysis =
        check::analyze_sizing_text(&parsed, expr, &decl, false, env, Some(TEST_TEXT_SIZE));
    if let Some(error) = analysis.errors.first() {
        // A CRD's environment has validators and libraries the tests' has not (and the
        // other way round).
        let why = match error.message.as_str() {
            m if m.starts_with("expected type") => {
                "the CRD environment's homogeneous literal validator (since 1.29)"
            }
            m if m.contains("jsonpatch") => "the jsonpatch library is not in a CRD's environment",
            _ => "",
        };
        return Err(format!("refused: {error} ({why})").replace(" ()", ""));
    }
    let mut wrong = Vec::new();
    let estimated = [analysis.min_cost, analysis.cost];
    let expected: Vec<u64> = case["estimated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    if estimated[..] != expected[..] {
        wrong.push(format!("estimated {estimated:?}, not {expected:?}"));
    }
    let mut program = parsed;
    let typing = super::rewrite::Typing {
        list_ops: &analysis.list_ops,
        typed_sums: &analysis.typed_sums,
    };
    super::rewrite::rewrite(&mut program, false, &typing);
    let mut tracker = Tracker::unoptimized(u64::MAX);
    match with_base(|ctx| tracker.eval(&program, ctx)) {
        Ok(_) => {
            let runtime = case["runtime"].as_u64().unwrap();
            if tracker.spent() != runtime {
                wrong.push(format!("runtime cost {}, not {runtime}", tracker.spent()));
            }
        }
        Err(e) => wrong.push(format!("evaluation failed: {e:?}")),
    }
    match wrong.is_empty() {
        true => Ok(()),
        false => Err(wrong.join("; ")),
    }
}

#[test]
fn every_library_cost_of_kube_apiservers_tests_agrees_or_is_listed() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "disagreements.json")
        .collect();
    files.sort();
    let mut verdicts = BTreeMap::new();
    for file in &files {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let function = document["function"].as_str().unwrap();
        for case in document["cases"].as_array().unwrap() {
            let (name, expr) = (case["name"].as_str().unwrap(), case["expr"].as_str());
            let id = match expr.filter(|e| *e != name) {
                Some(expr) => format!("{function}/{name}: {expr}"),
                None => format!("{function}/{name}"),
            };
            verdicts.insert(id, verdict(case));
        }
    }
    bless::disagreements(
        "kube-apiserver's library cost cases",
        &verdicts,
        &dir().join("disagreements.json"),
    );
}
