//! `crdgen import`, run as a user runs it: CRDs in, a package out that generates the
//! same CRDs back (checked here by a comparison of its own, not the import's), and
//! every bad input refused with where it is and nothing written.

mod common;

use std::path::Path;

use common::{crdgen, expect, testdata, tree, yaml_documents};
use serde_json::Value;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Imports `inputs` (relative to `dir`) into `dir/pkg/apis`.
fn import(dir: &Path, inputs: &[&str]) -> std::process::Output {
    let mut args = vec!["import"];
    args.extend(inputs);
    crdgen(dir, &args)
}

/// The consumer crate compiles and serves the package the import makes of the features
/// fixture (its tests/imported.rs): it is what the import writes today.
#[test]
fn the_consumer_holds_what_import_writes_of_the_features_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = testdata("import/features");
    let out = crdgen(
        dir.path(),
        &[
            "import",
            fixture.to_str().unwrap(),
            "--apis-pkg",
            "src/apis",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let written = tree(&dir.path().join("src/apis"));
    let consumer = testdata("consumer/src/apis");
    let files = written
        .into_iter()
        .map(|(rel, text)| {
            (
                Path::new("shop").join(rel.strip_prefix("shop").unwrap()),
                text,
            )
        })
        .collect();
    expect::tree(&consumer, &[Path::new("shop").to_owned()], &files);
}

/// A CRD as the comparison sees it: versions by name, `required` as a set, the names
/// the apiserver defaults filled in, controller-gen's version stamp left out.
fn normalized(mut crd: Value) -> Value {
    fn sort_required(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Array(required)) = map.get_mut("required") {
                    required.sort_by_key(Value::to_string);
                }
                map.values_mut().for_each(sort_required);
            }
            Value::Array(items) => items.iter_mut().for_each(sort_required),
            _ => {}
        }
    }
    sort_required(&mut crd);
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap().to_owned();
    let names = crd["spec"]["names"].as_object_mut().unwrap();
    names
        .entry("singular")
        .or_insert(kind.to_lowercase().into());
    names
        .entry("listKind")
        .or_insert(format!("{kind}List").into());
    if let Some(versions) = crd["spec"]["versions"].as_array_mut() {
        versions.sort_by_key(|v| v["name"].to_string());
        // `subresources: {}` is no subresource.
        for version in versions.iter_mut().filter_map(Value::as_object_mut) {
            if version
                .get("subresources")
                .is_some_and(|s| s.as_object().is_some_and(|m| m.is_empty()))
            {
                version.remove("subresources");
            }
        }
    }
    if let Some(annotations) = crd["metadata"]["annotations"].as_object_mut() {
        annotations.remove("controller-gen.kubebuilder.io/version");
    }
    let metadata = crd["metadata"].as_object_mut().unwrap();
    metadata.retain(|_, v| !v.is_null() && v.as_object().is_none_or(|m| !m.is_empty()));
    crd
}

/// What the consumer's build generates from the imported package is the fixture, path
/// by path, but for the one form the book lists as not kept (`oneOf`).
#[test]
fn the_imported_package_generates_the_crds_it_was_imported_from() {
    let fixture = std::fs::read_to_string(testdata("import/features/widgets.yaml")).unwrap();
    for mut original in yaml_documents(&fixture) {
        let name = original["metadata"]["name"].as_str().unwrap().to_owned();
        let file = testdata(&format!("consumer/expected/config/crd/bases/{}.yaml", {
            let (plural, group) = name.split_once('.').unwrap();
            format!("{group}_{plural}")
        }));
        let generated = yaml_documents(&std::fs::read_to_string(&file).unwrap()).remove(0);
        if name == "widgets.shop.example.com" {
            let shipping =
                original["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                    ["properties"]["shipping"]
                    .as_object_mut()
                    .unwrap();
            assert!(shipping.remove("oneOf").is_some());
        }
        assert_eq!(normalized(generated), normalized(original), "{name}");
    }
}

#[test]
fn the_one_form_rust_cannot_hold_is_named_by_its_path_and_nothing_else_is() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = testdata("import/features");
    let out = import(dir.path(), &[fixture.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        warnings,
        [
            "warning[E0025]: Widget: at `/spec/versions[v1]/schema/openAPIV3Schema/properties/spec/properties/shipping/oneOf`, `[{\"required\":[\"carrier\"]},{\"required\":[\"express\"]}]` is lost"
        ]
    );
    assert!(err.contains("widgets.yaml:6:1"), "{err}");
    assert!(
        err.contains("crdgen: 8 written, 0 unchanged, 0 removed"),
        "{err}"
    );
    assert!(err.contains("\"shop:v1,v1alpha1,v1beta1\""), "{err}");
    // A second run writes nothing; the files are byte for byte the same.
    let before = tree(dir.path());
    let again = import(dir.path(), &[fixture.to_str().unwrap()]);
    assert!(
        stderr(&again).contains("crdgen: 0 written, 8 unchanged, 0 removed"),
        "{}",
        stderr(&again)
    );
    assert_eq!(tree(dir.path()), before);
}

/// A CRD of one kind, `Thing`, in `group`, with the property `spec` of `spec_schema`.
fn crd(group: &str, kind: &str, spec_schema: &str) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.{group}
spec:
  group: {group}
  names: {{kind: {kind}, plural: {plural}}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {spec_schema}
"
    )
}

/// Runs an import of `files` (name, text) and returns its exit code and stderr, with
/// what is under `pkg/` afterwards.
fn run(files: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let out = import(dir.path(), args);
    let written = tree(dir.path())
        .into_keys()
        .map(|p| p.display().to_string())
        .filter(|p| p.starts_with("pkg/"))
        .collect();
    (out.status.code(), stderr(&out), written)
}

#[test]
fn bad_input_is_refused_with_where_it_is_and_nothing_is_written() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";
    let good = crd("a.example.com", "Thing", "{type: object}");
    // What is wrong, the files, and lines the refusal must hold.
    type Case<'a> = (&'a str, Vec<(&'a str, String)>, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "not YAML",
            vec![("c.yaml", format!("{good}---\nkind: [unclosed\n"))],
            vec!["error[E0024]: `c.yaml` is not valid YAML", "--> c.yaml:20:"],
        ),
        (
            "no CRD at all",
            vec![("c.yaml", deployment.to_owned())],
            vec![
                "warning[E0024]: skipped a Deployment",
                "error[E0024]: no CustomResourceDefinition in the input",
            ],
        ),
        (
            "a v1beta1 CRD",
            vec![(
                "c.yaml",
                good.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"),
            )],
            vec![
                "error[E0024]: a CustomResourceDefinition of `apiextensions.k8s.io/v1beta1`",
                "--> c.yaml:1:1",
            ],
        ),
        (
            "a CRD without names",
            vec![(
                "c.yaml",
                good.replace("  names: {kind: Thing, plural: things}\n", ""),
            )],
            vec!["error[E0024]: not a valid CustomResourceDefinition: missing field `names`"],
        ),
        (
            "one kind twice",
            vec![("c.yaml", format!("{good}---\n{good}"))],
            vec![
                "error[E0010]: the kind Thing of a.example.com is defined twice (first at c.yaml:1)",
                "--> c.yaml:19:1",
            ],
        ),
        (
            "a kind Rust cannot name",
            vec![("c.yaml", crd("a.example.com", "Value", "{type: object}"))],
            vec!["error[E0013]: the kind `Value` cannot name a Rust type of an imported package"],
        ),
        (
            "a schema that is not structural",
            vec![(
                "c.yaml",
                crd(
                    "a.example.com",
                    "Thing",
                    "{type: object, properties: {any: {description: x}}}",
                ),
            )],
            vec![
                "error[E0024]: the CRDs hold what crdgen (and the apiserver) refuse",
                "not structural: `.spec.any`",
            ],
        ),
        (
            "a default its own oneOf refuses (which the import does not keep)",
            vec![(
                "c.yaml",
                crd(
                    "a.example.com",
                    "Thing",
                    "{type: object, default: {a: 1, b: 2}, properties: {a: {type: integer}, b: {type: integer}}, oneOf: [{required: [a]}, {required: [b]}]}",
                ),
            )],
            vec![
                "error[E0024]: kube-apiserver 1.37 refuses the CustomResourceDefinition `things.a.example.com`: spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
                "--> c.yaml:1:1",
            ],
        ),
    ];
    for (what, files, expected) in cases {
        let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let (code, err, written) = run(&files, &["c.yaml"]);
        assert_eq!(code, Some(1), "{what}: {err}");
        for line in expected {
            assert!(err.contains(line), "{what}: expected `{line}` in\n{err}");
        }
        assert!(written.is_empty(), "{what}: wrote {written:?}");
    }
    // A Deployment beside a CRD is passed over, with a warning.
    let mixed = format!("{deployment}---\n{good}");
    let (code, err, written) = run(&[("c.yaml", &mixed)], &["c.yaml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning[E0024]: skipped a Deployment"),
        "{err}"
    );
    assert!(err.contains("--> c.yaml:1:1"), "{err}");
    assert_eq!(
        written,
        [
            "pkg/apis/a/mod.rs",
            "pkg/apis/a/v1/mod.rs",
            "pkg/apis/a/v1/thing.rs"
        ]
    );
}

#[test]
fn a_hand_written_file_in_the_way_is_never_overwritten_and_stale_kinds_are_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let two = format!(
        "{}---\n{}",
        crd("a.example.com", "Thing", "{type: object}"),
        crd("a.example.com", "Other", "{type: object}")
    );
    std::fs::write(dir.path().join("c.yaml"), &two).unwrap();
    assert!(import(dir.path(), &["c.yaml"]).status.success());
    // The kind `Other` is gone from the input: its file goes too.
    std::fs::write(
        dir.path().join("c.yaml"),
        crd("a.example.com", "Thing", "{type: object}"),
    )
    .unwrap();
    let out = import(dir.path(), &["c.yaml"]);
    assert!(stderr(&out).contains("removed"), "{}", stderr(&out));
    assert!(!dir.path().join("pkg/apis/a/v1/other.rs").exists());
    // A file of the user's where one would go stops the run before anything is written.
    std::fs::write(dir.path().join("pkg/apis/a/v1/thing.rs"), "// mine\n").unwrap();
    let out = import(dir.path(), &["c.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[E0017]"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pkg/apis/a/v1/thing.rs")).unwrap(),
        "// mine\n"
    );
}

#[test]
fn standard_input_and_lists_are_read_and_a_large_schema_imports() {
    use std::io::Write as _;
    // A `List`, as `kubectl get crd -o yaml` prints it, of one CRD of 2,000 fields (a
    // schema of over 10,000 lines).
    let properties: String = (0..2000)
        .map(|i| format!("              field{i}:\n                description: Field {i}.\n                type: string\n                maxLength: {}\n                pattern: ^[a-z]*$\n", i + 1))
        .collect();
    let big = crd(
        "big.example.com",
        "Big",
        "\n            type: object\n            properties:\n",
    )
    .replace("          spec: \n", "          spec:\n")
        + &properties;
    assert!(big.lines().count() > 10_000);
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}",
        big.lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>()
            .replacen("  apiVersion", "- apiVersion", 1)
    );
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .current_dir(dir.path())
        .args(["import", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    let file = std::fs::read_to_string(dir.path().join("pkg/apis/big/v1/big.rs")).unwrap();
    assert!(
        file.contains(
            "    /// Field 1999.\n    ///\n    /// +kubebuilder:validation:MaxLength=2000\n"
        ),
        "{file}"
    );
}

/// crdgen's own CRDs of testdata/crds come back from their import, Kubernetes' types
/// recognised by their shape and written as k8s-openapi's, and only the forms the book
/// lists named: two `allOf`s (bounds of an alias and its field) and a `oneOf`.
#[test]
fn kubernetes_types_are_recognised_by_their_shape() {
    let dir = tempfile::tempdir().unwrap();
    let crds = testdata("crds/expected/config/crd/bases");
    let out = import(dir.path(), &[crds.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let lost: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("warning"))
        .map(|l| l.split("`, `").next().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(lost, ["allOf", "allOf", "oneOf"], "{err}");
    let mapped = std::fs::read_to_string(dir.path().join("pkg/apis/types/v1/mapped.rs")).unwrap();
    for used in [
        "pub template: PodTemplateSpec,",
        "pub selector: LabelSelector,",
        "Vec<Condition>",
        "use k8s_openapi::api::core::v1::{",
    ] {
        assert!(mapped.contains(used), "{used} not in\n{mapped}");
    }
}

/// `node` without any `description` keyword (property names stay), nor `oneOf`, the
/// one form of these CRDs an import does not keep (the book lists it).
fn facts(node: &mut Value) {
    match node {
        Value::Object(map) => {
            map.remove("description");
            map.remove("oneOf");
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    ("properties", Value::Object(properties)) => {
                        properties.values_mut().for_each(facts)
                    }
                    (_, value) => facts(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(facts),
        _ => {}
    }
}

/// Real CRDs of seven projects' releases (testdata/import/real, their facts as
/// SOURCES.md says: structure and validations, no prose), CEL-heavy and of several
/// versions: each project's import generates back every path of every version.
#[test]
fn real_crds_of_six_projects_come_back_path_by_path() {
    let real = testdata("import/real");
    let mut projects: Vec<_> = std::fs::read_dir(&real)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    assert!(projects.len() >= 6, "{projects:?}");
    for project in projects {
        let dir = tempfile::tempdir().unwrap();
        let out = import(dir.path(), &[project.to_str().unwrap()]);
        let err = stderr(&out);
        assert!(out.status.success(), "{}: {err}", project.display());
        // The generate-groups line the import prints, run as it says.
        let (groups, version) = generate_groups_line(&err);
        let mut args = vec!["generate-groups", "crd", "pkg/client", "pkg/apis", groups];
        args.extend(version.split_whitespace());
        std::fs::write(dir.path().join("pkg/apis/mod.rs"), "").unwrap();
        let generated = crdgen(dir.path(), &args);
        assert!(
            generated.status.success(),
            "{}: {}",
            project.display(),
            stderr(&generated)
        );
        for entry in std::fs::read_dir(&project).unwrap() {
            let path = entry.unwrap().path();
            let mut original = yaml_documents(&std::fs::read_to_string(&path).unwrap()).remove(0);
            let name = original["metadata"]["name"].as_str().unwrap().to_owned();
            let (plural, group) = name.split_once('.').unwrap();
            let file = dir
                .path()
                .join(format!("config/crd/bases/{group}_{plural}.yaml"));
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let mut back = yaml_documents(&text).remove(0);
            facts(&mut original);
            facts(&mut back);
            let (back, original) = (normalized(back), normalized(original));
            let paths = differing_paths("", &original, &back);
            assert!(paths.is_empty(), "{name}: {paths:?}");
        }
    }
}

/// The group versions and the flags after them of the `crdgen generate-groups all` line
/// an import prints.
fn generate_groups_line(stderr: &str) -> (&str, &str) {
    let line = stderr
        .lines()
        .find(|l| l.contains("crdgen generate-groups all"))
        .unwrap_or_else(|| panic!("no generate-groups line in:\n{stderr}"));
    let (_, rest) = line.split_once("pkg/apis \"").unwrap();
    let (groups, flags) = rest.split_once('"').unwrap();
    (groups, flags.trim())
}

/// The paths at which `a` and `b` differ, for a short failure message.
fn differing_paths(path: &str, a: &Value, b: &Value) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter()
                .flat_map(|k| {
                    differing_paths(
                        &format!("{path}/{k}"),
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    )
                })
                .collect()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (p, q))| differing_paths(&format!("{path}/{i}"), p, q))
            .collect(),
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => Vec::new(),
        (x, y) if x == y => Vec::new(),
        (x, y) => vec![format!("{path}: {x} / {y}")],
    }
}

/// A CRD that converts by webhook: its storage version's kind carries the conversion
/// marker, and what comes back differs only in the webhook's client configuration,
/// which crdgen writes as its own webhook Service (the book lists it).
#[test]
fn a_webhook_conversion_is_kept_as_its_marker() {
    let two = (crd("a.example.com", "Thing", "{type: object}")
        + "  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}\n")
        .replace(
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {service: {name: theirs, namespace: elsewhere, path: /convert}}\n",
        );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), &two).unwrap();
    let out = import(dir.path(), &["c.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v1 = std::fs::read_to_string(dir.path().join("pkg/apis/a/v1/thing.rs")).unwrap();
    assert!(
        v1.contains("/// +kubebuilder:storageversion\n/// +crdgen:conversion:webhook\n"),
        "{v1}"
    );
    let v2 = std::fs::read_to_string(dir.path().join("pkg/apis/a/v2/thing.rs")).unwrap();
    assert!(!v2.contains("conversion"), "{v2}");
    let err = stderr(&out);
    let paths: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("warning"))
        .map(|l| l.split('`').nth(1).unwrap())
        .collect();
    assert!(!paths.is_empty(), "{err}");
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("/spec/conversion/webhook/clientConfig")),
        "{err}"
    );
}

/// The real CRDs users import most, as kept here: cert-manager's, prometheus-operator's
/// and Gateway API's.
const POPULAR: &[&str] = &[
    "cert-manager/certificates.cert-manager.io.yaml",
    "cert-manager/issuers.cert-manager.io.yaml",
    "prometheus-operator/podmonitors.monitoring.coreos.com.yaml",
    "prometheus-operator/prometheusrules.monitoring.coreos.com.yaml",
    "prometheus-operator/servicemonitors.monitoring.coreos.com.yaml",
    "gateway-api/gatewayclasses.gateway.networking.k8s.io.yaml",
    "gateway-api/httproutes.gateway.networking.k8s.io.yaml",
    "gateway-api/referencegrants.gateway.networking.k8s.io.yaml",
];

/// What the import writes, and what generate-groups writes beside it, builds clean in a
/// plain library crate (kube, k8s-openapi, crdgen-runtime; no features of its own): no
/// rustc warning under `RUSTFLAGS=-D warnings` and no clippy warning at its default
/// lints, on the real CRDs users import most and the features fixture (whose
/// descriptions have the shapes real CRDs' have: lists continued at the margin, tabs,
/// Go's indented code, a fence without a language).
#[test]
fn imported_crds_build_without_a_warning_under_rustc_and_clippy() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<String> = POPULAR
        .iter()
        .map(|f| testdata(&format!("import/real/{f}")).display().to_string())
        .collect();
    inputs.push(testdata("import/features").display().to_string());
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let out = import(dir.path(), &inputs);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let (groups, version) = generate_groups_line(&err);
    let modules: String = groups
        .split_whitespace()
        .map(|gv| format!("pub mod {};\n", gv.split(':').next().unwrap()))
        .collect();
    std::fs::write(dir.path().join("pkg/apis/mod.rs"), modules).unwrap();
    let mut args = vec!["generate-groups", "all", "pkg/client", "pkg/apis", groups];
    args.extend(version.split_whitespace());
    let generated = crdgen(dir.path(), &args);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let minor = version.trim_start_matches("--kube-version 1.");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            r#"[package]
name = "imported"
version = "0.1.0"
edition = "2024"

[lib]
path = "lib.rs"

[dependencies]
kube = {{ version = "5", default-features = false, features = ["client", "runtime"] }}
k8s-openapi = {{ version = "0.29", default-features = false, features = ["std", "v1_{minor}"] }}
crdgen-runtime = {{ path = {runtime:?} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[dev-dependencies]
crdgen-runtime = {{ path = {runtime:?}, features = ["testing"] }}

[workspace]
"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lib.rs"),
        "//! Imported CRDs and their client.\npub mod pkg {\n    pub mod apis;\n    pub mod client;\n}\n",
    )
    .unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    // A target directory of its own, kept between runs: the flags below would rebuild
    // another's dependencies.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("imported");
    for command in [
        &["build", "--all-targets", "--quiet"][..],
        &["clippy", "--all-targets", "--quiet", "--", "-D", "warnings"],
    ] {
        let out = std::process::Command::new(env!("CARGO"))
            .current_dir(dir.path())
            .args(command)
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTFLAGS", "-D warnings")
            // Warnings need no debug info, which would double the build's time.
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cargo {}:\n{}",
            command[0],
            stderr(&out)
        );
    }
}
