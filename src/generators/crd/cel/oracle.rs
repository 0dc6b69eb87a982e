//! kube-apiserver's own tests of the CRDs it refuses for their rules
//! (apiextensions-apiserver's `TestValidateCustomResourceDefinitionValidation`, ported
//! as data by hack/port-apiserver-cel-tests.py into testdata/cel/apiserver/crds), run
//! through crdgen's check of a CRD's rules: each case's schema, and the errors the
//! apiserver gives at or below its `x-kubernetes-validations` (their type and field;
//! the text each must contain is the apiserver's wording, not compared). Every case
//! must agree, except those listed in `crds/disagreements.json` with what crdgen found
//! instead (`CRDGEN_BLESS=1` rewrites it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::findings;

use crate::bless;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/cel/apiserver/crds")
}

/// One case: `Ok` when crdgen finds what the apiserver refuses, and nothing else.
fn verdict(case: &Value, minor: u16) -> Result<(), String> {
    if let Some(why) = case.get("unported") {
        return Err(format!("not ported: {why}"));
    }
    let mut schema = case["schema"].clone();
    // The case's apiserver version, where it gives one.
    let minor = case["kubeMinor"].as_u64().map_or(minor, |m| m as u16);
    // The apiserver reports a rule's several type errors as one.
    let mut found: Vec<(String, &str)> = findings(&mut schema, "Kind", "v1", minor)
        .into_iter()
        .map(|f| (f.field, f.reason))
        .collect();
    found.dedup_by(|a, b| a == b && a.1 == super::INVALID);
    let mut missing = Vec::new();
    for expected in case["errors"].as_array().unwrap() {
        let wanted = (
            expected["field"].as_str().unwrap().to_owned(),
            expected["type"].as_str().unwrap(),
        );
        match found.iter().position(|f| *f == wanted) {
            Some(i) => {
                found.remove(i);
            }
            None => missing.push(format!("{} {}", wanted.1, wanted.0)),
        }
    }
    let unexpected: Vec<String> = found.iter().map(|(f, r)| format!("{r} {f}")).collect();
    // The apiserver compiles no rule of a schema that is not structural, which
    // crdgen never writes.
    if missing.is_empty()
        && !unexpected.is_empty()
        && case["otherErrors"].as_u64() > Some(0)
        && case["errors"] == Value::Array(Vec::new())
    {
        return Err(format!(
            "not applicable: the schema is not structural (crdgen writes none), and the apiserver compiles none of its rules; crdgen finds {unexpected:?}"
        ));
    }
    match (missing.is_empty(), unexpected.is_empty()) {
        (true, true) => Ok(()),
        _ => Err(format!(
            "missing {missing:?}; not the apiserver's {unexpected:?}"
        )),
    }
}

#[test]
fn every_crd_kube_apiserver_refuses_for_its_rules_crdgen_refuses() {
    let path = dir().join("TestValidateCustomResourceDefinitionValidation.json");
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let tag = document["tag"].as_str().unwrap();
    let minor: u16 = tag.split('.').nth(1).unwrap().parse().unwrap();
    let verdicts: BTreeMap<String, Result<(), String>> = document["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            (
                case["name"].as_str().unwrap().to_owned(),
                verdict(case, minor),
            )
        })
        .collect();
    bless::disagreements(
        "kube-apiserver's CRD validation cases with rules",
        &verdicts,
        &dir().join("disagreements.json"),
    );
}
