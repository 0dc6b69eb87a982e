//! crdgen reads kube-derive kinds statically; kube-derive builds their CRD at run time.
//! The two must describe the same resource: any difference is listed and justified here.

use std::collections::BTreeMap;

use crdgen_consumer::apis::derived::v1::Thing;
use kube::CustomResourceExt;
use serde_json::Value;

/// Paths (JSON pointers) where the two differ, with what each side has.
fn differences(
    path: String,
    ours: &Value,
    theirs: &Value,
    out: &mut BTreeMap<String, (Value, Value)>,
) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let (x, y) = (
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                );
                differences(format!("{path}/{key}"), x, y, out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(format!("{path}/{i}"), x, y, out);
            }
        }
        (a, b) if a != b => {
            out.insert(path, (a.clone(), b.clone()));
        }
        _ => {}
    }
}

#[test]
fn crdgen_and_kube_derive_describe_the_same_crd() {
    let file = std::path::Path::new(env!("OUT_DIR")).join("crds/derived.example.com_things.yaml");
    let ours: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let theirs = serde_json::to_value(Thing::crd()).unwrap();
    let mut found = BTreeMap::new();
    differences(String::new(), &ours, &theirs, &mut found);
    let schema = "/spec/versions/0/schema/openAPIV3Schema";
    let expected: Vec<(String, &str)> = vec![
        // crdgen writes listKind as controller-gen does; kube-derive leaves it to the
        // apiserver's default, which is the same `ThingList`.
        ("/spec/names/listKind".into(), "same value, written out"),
        // controller-gen convention: the root lists apiVersion, kind and metadata. The
        // apiserver validates those itself, so both forms are accepted.
        (
            format!("{schema}/properties/apiVersion"),
            "root field listed",
        ),
        (format!("{schema}/properties/kind"), "root field listed"),
        (format!("{schema}/properties/metadata"), "root field listed"),
        // schemars runs `Default::default()` for `#[serde(default)]` fields; crdgen reads
        // source and cannot run code. `+kubebuilder:default=..` states a default.
        (
            format!("{schema}/properties/spec/properties/labels/default"),
            "Default impl not evaluated",
        ),
        // An f64 is `type: number` as controller-gen writes Go's float64; schemars adds
        // `format: double`, which the apiserver does not check.
        (
            format!("{schema}/properties/spec/properties/part/properties/weight/format"),
            "controller-gen's float form",
        ),
        (
            format!("{schema}/properties/spec/properties/tags/default"),
            "Default impl not evaluated",
        ),
        // kube-derive marks the status nullable, yet its root skips a `None` status
        // (`skip_serializing_if`) and never sends null: crdgen follows what is sent.
        (
            format!("{schema}/properties/status/nullable"),
            "never sent as null",
        ),
        // schemars titles the root schema with the type name; cosmetic.
        (format!("{schema}/title"), "cosmetic"),
    ];
    let expected: Vec<&str> = expected.iter().map(|(path, _why)| path.as_str()).collect();
    let found: Vec<&str> = found.keys().map(String::as_str).collect();
    assert_eq!(found, expected);
}
