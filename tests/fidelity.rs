//! Kubernetes' own types in a CRD, against controller-gen: one kind embedding 54 of
//! them (testdata/fidelity), generated for Kubernetes 1.33, equals the CRD controller-gen
//! v0.18.0 writes for the same Go kind on k8s.io/api v0.33.0
//! (testdata/fidelity/controller-gen/README.md), path for path.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

fn generate(embedded_object_meta: bool, max_description_len: Option<usize>) -> Value {
    let text = common::testdata_crd(
        "fidelity",
        "oracle:v1",
        "oracle.example.com_embeds.yaml",
        |opts| {
            opts.kube_version = "1.33".parse().unwrap();
            opts.embedded_object_meta = embedded_object_meta;
            opts.max_description_len = max_description_len;
        },
    );
    common::yaml_documents(&text).remove(0)
}

fn controller_gen(file: &str) -> Value {
    let text =
        std::fs::read_to_string(common::testdata("fidelity/controller-gen").join(file)).unwrap();
    common::yaml_documents(&text).remove(0)
}

fn spec_schema(crd: &Value) -> &Value {
    &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

/// Every path where `ours` and `theirs` differ, with what each has there.
fn differences(ours: &Value, theirs: &Value, path: &str, out: &mut BTreeMap<String, String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let here = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences(x, y, &here, out),
                    (x, y) => {
                        out.insert(here, format!("ours {x:?}, controller-gen's {y:?}"));
                    }
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}[{i}]"), out);
            }
        }
        (a, b) if a != b => {
            out.insert(path.to_owned(), format!("ours {a}, controller-gen's {b}"));
        }
        _ => {}
    }
}

fn without_descriptions(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| !(*k == "description" && v.is_string()))
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

/// The paths crdgen keeps different, each for a reason.
const KEPT_DIFFERENT: &[(&str, &str)] = &[
    // A Rust u32 holds up to 2^32-1: crdgen writes int64 with minimum 0, where Go's
    // uint32 gets controller-gen's int32 format (and no minimum).
    (".properties.uint32.format", "a u32 is no int32"),
    (".properties.uint32.minimum", "a u32 is never negative"),
];

/// Outside the schema.
const CRD_KEPT_DIFFERENT: &[(&str, &str)] = &[(
    ".metadata.annotations",
    "controller-gen signs its CRDs with its version; crdgen does not pass for it",
)];

/// Where descriptions differ, and why.
const DESCRIBED_DIFFERENTLY: &[(&str, &str)] = &[(
    ".properties.resourceList.description",
    "Rust has no ResourceList type to carry Go's doc: k8s-openapi writes BTreeMap<String, Quantity>",
)];

fn assert_same(ours: &Value, theirs: &Value, kept: &[(&str, &str)]) {
    let mut found = BTreeMap::new();
    differences(ours, theirs, "", &mut found);
    for (path, _) in kept {
        assert!(
            found.remove(*path).is_some(),
            "{path} is listed as kept different, and is not"
        );
    }
    assert!(
        found.is_empty(),
        "{} paths differ from controller-gen's:\n{}",
        found.len(),
        found
            .iter()
            .map(|(p, d)| format!("  {p}: {d}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn fifty_four_kubernetes_types_are_written_as_controller_gen_writes_them() {
    let ours = generate(false, None);
    let theirs = controller_gen("embeds.yaml");
    let (ours, theirs) = (spec_schema(&ours), spec_schema(&theirs));
    assert_eq!(ours["properties"].as_object().unwrap().len(), 54);
    assert_same(
        &without_descriptions(ours),
        &without_descriptions(theirs),
        KEPT_DIFFERENT,
    );
}

#[test]
fn so_are_their_descriptions_and_the_whole_crd() {
    let ours = generate(false, None);
    let theirs = controller_gen("embeds.yaml");
    let kept: Vec<_> = KEPT_DIFFERENT
        .iter()
        .chain(DESCRIBED_DIFFERENTLY)
        .map(|(path, why)| {
            (
                format!(".spec.versions[0].schema.openAPIV3Schema.properties.spec{path}"),
                *why,
            )
        })
        .chain(CRD_KEPT_DIFFERENT.iter().map(|(p, w)| (p.to_string(), *w)))
        .collect();
    let kept: Vec<(&str, &str)> = kept.iter().map(|(p, w)| (p.as_str(), *w)).collect();
    assert_same(&ours, &theirs, &kept);
}

#[test]
fn embedded_object_meta_and_no_descriptions_are_written_as_controller_gen_writes_them() {
    let ours = generate(true, Some(0));
    let theirs = controller_gen("embeds-objectmeta-maxdesclen0.yaml");
    let (ours, theirs) = (spec_schema(&ours), spec_schema(&theirs));
    let template = &ours["properties"]["podTemplateSpec"]["properties"]["metadata"];
    assert_eq!(template["properties"]["labels"]["type"], "object");
    assert!(
        !serde_json::to_string(ours)
            .unwrap()
            .contains("\"description\":\"")
    );
    assert_same(ours, theirs, KEPT_DIFFERENT);
}

/// A kind embedding a type only Kubernetes 1.37 has (lifecycle/v1alpha1), in a tree of
/// its own.
fn tree_with_a_1_37_type() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("apis/evict/v1");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(
        version.join("mod.rs"),
        "//! +groupName=evict.example.com\n\npub mod eviction_types;\npub use eviction_types::*;\n",
    )
    .unwrap();
    std::fs::write(
        version.join("eviction_types.rs"),
        r#"use k8s_openapi::api::lifecycle::v1alpha1::EvictionRequestSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct Planned {
    #[serde(flatten, default)]
    pub types: Option<kube::core::TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: EvictionRequestSpec,
}
"#,
    )
    .unwrap();
    dir
}

#[test]
fn the_kubernetes_version_is_chosen_and_a_type_it_lacks_is_an_error_naming_the_versions() {
    let dir = tree_with_a_1_37_type();
    let args = |version: &'static str| {
        [
            "generate-groups",
            "crd",
            "client",
            "apis",
            "evict:v1",
            "--kube-version",
            version,
        ]
    };
    let refused = common::crdgen(dir.path(), &args("1.33"));
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(
            "`k8s_openapi::api::lifecycle::v1alpha1::EvictionRequestSpec` is not in Kubernetes 1.33; k8s-openapi has it in 1.37"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("eviction_types.rs:11:9"), "{stderr}");
    assert!(!dir.path().join("config").exists(), "nothing is written");

    let generated = common::crdgen(dir.path(), &args("1.37"));
    assert!(generated.status.success(), "{generated:?}");
    let crd = std::fs::read_to_string(
        dir.path()
            .join("config/crd/bases/evict.example.com_planneds.yaml"),
    )
    .unwrap();
    let crd = &common::yaml_documents(&crd)[0];
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["required"],
        serde_json::json!(["intent", "requester", "target"])
    );

    let unknown = common::crdgen(dir.path(), &args("1.20"));
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr
            .contains("crdgen has the Kubernetes types of 1.33, 1.34, 1.35, 1.36, 1.37, not 1.20"),
        "{stderr}"
    );
}

#[test]
fn the_help_states_the_default_kubernetes_version() {
    let help = common::crdgen(Path::new("."), &["generate-groups", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("--kube-version <1.NN>"), "{text}");
    let default = format!(
        "the k8s-openapi feature (v1_33 is 1.33) the nearest Cargo.toml above APIS_PKG builds with, as cargo resolves it; else {}, what k8s-openapi's `latest` is",
        crdgen::KubeVersion::latest()
    );
    assert!(text.contains(&default), "{text}");
}

/// One type or field per controller-gen marker (testdata/markers), each written as
/// `testdata/markers/expected.yaml` says controller-gen writes it.
#[test]
fn each_marker_is_written_as_controller_gen_writes_it() {
    let text = common::testdata_crd(
        "markers",
        "fixture:v1",
        "fixture.crdgen.dev_fixtures.yaml",
        |_| {},
    );
    let crd = common::yaml_documents(&text).remove(0);
    let ours = spec_schema(&crd)["properties"].clone();
    let expected = std::fs::read_to_string(common::testdata("markers/expected.yaml")).unwrap();
    let theirs = common::yaml_documents(&expected).remove(0);
    assert_same(&ours, &theirs, &[]);
}

/// controller-tools' own golden test, `pkg/crd/testdata` (testdata/controller-tools): its
/// CronJob written in Rust generates the spec fields controller-gen's golden CRD has,
/// path for path, but where Rust itself differs (listed, with the reason).
#[test]
fn controller_tools_cronjob_is_written_as_its_golden_crd() {
    let text = common::testdata_crd(
        "controller-tools",
        "testdata:v1",
        "testdata.kubebuilder.io_cronjobs.yaml",
        |_| {},
    );
    let crd = common::yaml_documents(&text).remove(0);
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(common::testdata("controller-tools/expected.json")).unwrap(),
    )
    .unwrap();
    let spec = spec_schema(&crd);
    let ported = expected["properties"].as_object().unwrap();
    let properties: serde_json::Map<String, Value> = ported
        .keys()
        .map(|name| (name.clone(), spec["properties"][name].clone()))
        .collect();
    let required: Vec<Value> = spec["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| ported.contains_key(r.as_str().unwrap()))
        .cloned()
        .collect();
    let ours = serde_json::json!({"properties": properties, "required": required});
    assert_same(&ours, &expected, CONTROLLER_TOOLS_DIFFERENT);
}

/// Where the Rust port of controller-tools' CronJob is kept different, and why.
const CONTROLLER_TOOLS_DIFFERENT: &[(&str, &str)] = &[
    // Go decodes a JSON list of any length into `[3]int` (zero-filling, dropping the
    // rest); serde takes exactly three items for `[isize; 3]`, so the schema says so.
    (".properties.array.maxItems", "serde takes exactly N items"),
    (".properties.array.minItems", "serde takes exactly N items"),
];
