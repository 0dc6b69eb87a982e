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
/// controller-tools' golden CRDs (`expected/<golden>.json`), each with the crdgen run
/// (groups, `--max-description-len`) and the file of it that is compared with it.
const CONTROLLER_TOOLS_GOLDEN: &[(&str, &str, Option<usize>, &str)] = &[
    ("bar.example.com_foos", ALL, None, "bar.example.com_foos"),
    (
        "bar.example.com_foos_maxdesclen",
        "bar:v1",
        Some(50),
        "bar.example.com_foos",
    ),
    ("bar.example.com_zoos", ALL, None, "bar.example.com_zoos"),
    (
        "plural.example.com_testquotas",
        ALL,
        None,
        "plural.example.com_testquotas",
    ),
    (
        "testdata.kubebuilder.io_cronjobs",
        ALL,
        None,
        "testdata.kubebuilder.io_cronjobs",
    ),
    (
        "testdata.kubebuilder.io_enums",
        ALL,
        None,
        "testdata.kubebuilder.io_enums",
    ),
    (
        "testdata.kubebuilder.io_externaldocs",
        ALL,
        None,
        "testdata.kubebuilder.io_externaldocs",
    ),
    (
        "testdata.kubebuilder.io_immutabletypes",
        ALL,
        None,
        "testdata.kubebuilder.io_immutabletypes",
    ),
    (
        "testdata.kubebuilder.io_jobs",
        ALL,
        None,
        "testdata.kubebuilder.io_jobs",
    ),
    (
        "testdata.kubebuilder.io_oneofs",
        ALL,
        None,
        "testdata.kubebuilder.io_oneofs",
    ),
    (
        "testdata.kubebuilder.io_versionedresources",
        ALL,
        None,
        "testdata.kubebuilder.io_versionedresources",
    ),
];
const ALL: &str = common::CONTROLLER_TOOLS_GROUPS;

#[test]
fn controller_tools_golden_crds_are_written_as_controller_gen_writes_them() {
    let expected_dir = common::testdata("controller-tools/expected");
    let mut goldens: Vec<String> = std::fs::read_dir(&expected_dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    goldens.sort();
    let listed: Vec<&str> = CONTROLLER_TOOLS_GOLDEN.iter().map(|g| g.0).collect();
    assert_eq!(goldens, listed, "every expected file has its run");

    let mut runs = BTreeMap::new();
    for (golden, groups, max_description, file) in CONTROLLER_TOOLS_GOLDEN {
        let files = runs.entry((groups, max_description)).or_insert_with(|| {
            let mut opts = common::controller_tools_options(groups);
            opts.max_description_len = *max_description;
            common::generate_files(&opts)
        });
        let (_, text) = files
            .iter()
            .find(|(path, _)| path.ends_with(&format!("/{file}.yaml")))
            .unwrap_or_else(|| panic!("crdgen writes no {file}.yaml"));
        let mut ours = common::yaml_documents(text).remove(0);
        let path = expected_dir.join(format!("{golden}.json"));
        let theirs: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // The expected files leave out the descriptions below jobTemplate (k8s.io/api's,
        // which the fidelity kind's tests compare): so does this side.
        if let Some(template) = ours.pointer_mut(
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/jobTemplate/properties",
        ) {
            *template = without_descriptions(template);
        }
        let kept: Vec<_> = CONTROLLER_TOOLS_DIFFERENT
            .iter()
            .filter(|(file, _, _)| file == golden)
            .map(|(_, path, why)| (*path, *why))
            .collect();
        assert_same(&ours, &theirs, &kept);
    }
}

/// Where the Rust port of controller-tools' testdata is kept different: golden file,
/// path, reason.
const CONTROLLER_TOOLS_DIFFERENT: &[(&str, &str, &str)] = &[
    // controller-tools' `gen` packages have no `+versionName`, so their Go package
    // names are the versions.
    (
        "bar.example.com_foos",
        ".spec.versions[0].name",
        VERSION_NAME,
    ),
    (
        "bar.example.com_foos_maxdesclen",
        ".spec.versions[0].name",
        VERSION_NAME,
    ),
    (
        "bar.example.com_zoos",
        ".spec.versions[0].name",
        VERSION_NAME,
    ),
    // Go decodes a JSON list of any length into `[3]int` (zero-filling, dropping the
    // rest); serde takes exactly three items for `[isize; 3]`, so the schema says so.
    (
        CRONJOBS,
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.array.maxItems",
        FIXED_LENGTH,
    ),
    (
        CRONJOBS,
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.array.minItems",
        FIXED_LENGTH,
    ),
    (
        CRONJOBS,
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.arrayUsingCompositeLiteral.maxItems",
        FIXED_LENGTH,
    ),
    (
        CRONJOBS,
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.arrayUsingCompositeLiteral.minItems",
        FIXED_LENGTH,
    ),
];
const CRONJOBS: &str = "testdata.kubebuilder.io_cronjobs";
const VERSION_NAME: &str =
    "a crdgen version is a Kubernetes version (`v1`); Go names it after the package (`foo`)";
const FIXED_LENGTH: &str = "serde takes exactly N items of a `[T; N]`";
