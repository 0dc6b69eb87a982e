//! Model rules that span files or options: plurals and their overrides, derive-style
//! checks, and warnings that do not stop generation.

use std::collections::BTreeMap;

/// Writes `files` under a temp dir's `apis/g/v1/` and generates for `g:v1`.
fn run(files: &[(&str, &str)], exceptions: &[(&str, &str)]) -> Result<crdgen::Generation, String> {
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("apis/g/v1");
    std::fs::create_dir_all(&version).unwrap();
    for (name, text) in files {
        std::fs::write(version.join(name), text).unwrap();
    }
    let mut opts = crdgen::Options::new(dir.path(), "client", "apis", "g:v1").unwrap();
    opts.plural_exceptions = exceptions
        .iter()
        .map(|(k, p)| (k.to_string(), p.to_string()))
        .collect::<BTreeMap<_, _>>();
    crdgen::generate(&opts).map_err(|e| e.to_string())
}

const MOD: &str = "//! +groupName=g.example.com\n\npub mod types;\npub use types::*;\n";

fn kind(name: &str, markers: &str) -> String {
    format!(
        "/// +genclient\n{markers}pub struct {name} {{\n    #[serde(flatten, default)]\n    pub types: Option<kube::core::TypeMeta>,\n    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,\n    pub spec: Option<String>,\n}}\n"
    )
}

/// The model as JSON: what crdgen understood of the types.
fn model(generation: &crdgen::Generation) -> serde_json::Value {
    serde_json::to_value(generation.model()).unwrap()
}

fn plurals(generation: &crdgen::Generation) -> Vec<(String, String)> {
    let kinds = &model(generation)["groups"]["g"]["versions"]["v1"]["kinds"];
    let kinds = kinds.as_object().expect("kinds");
    kinds
        .values()
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_owned(),
                k["plural"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn plurals_come_from_markers_then_exceptions_then_the_rule() {
    let types = [
        kind("Mouse", ""),
        kind("Goose", "/// +resourceName=geese\n"),
        kind("Policy", ""),
        kind("Endpoints", ""),
    ]
    .concat();
    let generation = run(
        &[("mod.rs", MOD), ("types.rs", &types)],
        &[("Mouse", "mice"), ("Goose", "gooses")],
    )
    .unwrap();
    assert_eq!(
        plurals(&generation),
        [
            ("Endpoints", "endpoints"),
            ("Goose", "geese"),
            ("Mouse", "mice"),
            ("Policy", "policies")
        ]
        .map(|(k, p)| (k.to_owned(), p.to_owned()))
    );
}

#[test]
fn kube_derive_plurals_cannot_be_changed_by_exceptions() {
    let types = r#"
#[derive(CustomResource)]
#[kube(group = "g.example.com", version = "v1", kind = "Mouse", namespaced)]
pub struct MouseSpec {}
"#;
    let err = run(
        &[("mod.rs", MOD), ("types.rs", types)],
        &[("Mouse", "mice")],
    )
    .unwrap_err();
    assert!(err.contains("error[E0014]: plural exception `Mouse:mice` cannot change kube-derive's plural `mouses`"), "{err}");
    assert!(
        err.contains("set `#[kube(plural = \"mice\")]` on `MouseSpec` instead"),
        "{err}"
    );
}

#[test]
fn kube_derive_attributes_are_checked() {
    let types = r#"
#[derive(CustomResource)]
#[kube(group = "other.example.com", version = "v2", kind = "Not A Name")]
pub struct ASpec {}

#[derive(CustomResource)]
#[kube(group = "other.example.com", version = "v2", kind = "B")]
pub struct BSpec {}

#[derive(CustomResource)]
#[kube(group = "x.example.com", version = "v1", kind = "C")]
pub struct CSpec {}
"#;
    let err = run(&[("mod.rs", MOD), ("types.rs", types)], &[]).unwrap_err();
    assert!(
        err.contains("error[E0015]: `kind = \"Not A Name\"` on `ASpec` is not a Rust type name"),
        "{err}"
    );
    assert!(
        err.contains("error[E0014]: `BSpec` declares version `v2` but lives in `v1`"),
        "{err}"
    );
    assert!(err.contains("error[E0014]: kind `C` declares group `x.example.com` but its directory's group is `g.example.com`"), "{err}");
}

/// A run with warnings leaves no stamp, so the next run generates again and shows them.
#[test]
fn a_run_with_warnings_is_not_stamped() {
    let types = kind("Thing", "").replace(
        "    pub spec: Option<String>,\n",
        "    pub spec: Option<String>,\n    pub count: u32,\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("apis/g/v1");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(version.join("mod.rs"), MOD).unwrap();
    std::fs::write(version.join("types.rs"), types).unwrap();
    let opts = crdgen::Options::new(dir.path(), "client", "apis", "g:v1").unwrap();
    let stamp = dir.path().join("client").join(crdgen::STAMP_FILE);
    for _ in 0..2 {
        let report = crdgen::generate_groups(&opts, crdgen::Mode::Write).unwrap();
        assert!(
            report.warnings.contains("warning[E0018]"),
            "{}",
            report.warnings
        );
        assert!(
            matches!(report.outcome, crdgen::Outcome::Written(_)),
            "{:?}",
            report.outcome
        );
        assert!(!stamp.exists());
    }
}

#[test]
fn a_kind_without_a_constructor_is_a_warning_not_an_error() {
    let types = kind("Thing", "").replace(
        "    pub spec: Option<String>,\n",
        "    pub spec: Option<String>,\n    pub count: u32,\n",
    );
    let generation = run(&[("mod.rs", MOD), ("types.rs", &types)], &[]).unwrap();
    let warnings = generation.render_warnings();
    assert!(
        warnings.starts_with(
            "warning[E0018]: no `Thing::new`: field `count` has no obvious starting value"
        ),
        "{warnings}"
    );
    let register = generation
        .into_files(&crdgen::Options::new(".", "client", "apis", "g:v1").unwrap())
        .unwrap();
    let text = &register.files()[std::path::Path::new("client/apis/g/v1/register.rs")];
    assert!(
        text.contains("impl ::kube::core::Resource for crate::apis::g::v1::Thing"),
        "{text}"
    );
    assert!(!text.contains("pub fn new"), "{text}");
}

#[test]
fn group_name_comes_from_kube_derive_when_no_marker_names_it() {
    let types = r#"
#[derive(CustomResource)]
#[kube(group = "derived.example.com", version = "v1", kind = "D")]
pub struct DSpec {}
"#;
    let generation = run(
        &[
            ("mod.rs", "pub mod types;\npub use types::*;\n"),
            ("types.rs", types),
        ],
        &[],
    )
    .unwrap();
    assert_eq!(
        model(&generation)["groups"]["g"]["name"],
        "derived.example.com"
    );
}

#[test]
fn only_genclient_kinds_get_a_typed_client() {
    let types = [
        kind("Listed", ""),
        kind("Rooted", "").replace("/// +genclient\n", "/// +kubebuilder:object:root=true\n"),
    ]
    .concat();
    let generation = run(&[("mod.rs", MOD), ("types.rs", &types)], &[]).unwrap();
    let opts = crdgen::Options::new(".", "client", "apis", "g:v1").unwrap();
    let files = generation.into_files(&opts).unwrap().files().clone();
    let names: Vec<String> = files.keys().map(|p| p.display().to_string()).collect();
    assert!(
        names.contains(&"client/clientset/g/v1/listed.rs".to_owned()),
        "{names:?}"
    );
    // A CRD, yes (every kind is a resource); a client, informer or lister, no.
    assert!(
        names.contains(&"config/crd/bases/g.example.com_rooteds.yaml".to_owned()),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("client/") && n.contains("rooted")),
        "{names:?}"
    );
    // Both are still resources kube (and the in-memory server) know.
    let register = &files[std::path::Path::new("client/apis/g/v1/register.rs")];
    assert!(
        register.contains("for crate::apis::g::v1::Rooted"),
        "{register}"
    );
}

#[test]
fn kubernetes_types_through_a_glob_import_resolve_to_their_paths() {
    let types = "use k8s_openapi::api::core::v1::*;\n\n/// +kubebuilder:object:root=true\n/// +genclient\npub struct Probe {\n    #[serde(flatten, default)]\n    pub types: Option<kube::core::TypeMeta>,\n    pub metadata: ObjectMeta,\n    pub spec: ProbeSpec,\n}\n\npub struct ProbeSpec {\n    /// Used by PodSpec, not named by crdgen's list of roots.\n    pub exec: ExecAction,\n    pub ports: Vec<ContainerPort>,\n}\n\nuse k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n";
    let generation = run(&[("mod.rs", MOD), ("types.rs", types)], &[]).unwrap();
    let model = serde_json::to_string(&generation.model()).unwrap();
    for path in [
        "k8s_openapi::api::core::v1::ExecAction",
        "k8s_openapi::api::core::v1::ContainerPort",
    ] {
        assert!(model.contains(&format!("\"{path}\"")), "{path} in {model}");
    }
    let crd: serde_json::Value = serde_yaml_ng::from_str(
        &generation.manifests[&crdgen::Generator::Crd]["g.example.com_probes.yaml"],
    )
    .unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(
        spec["exec"]["properties"]["command"]["type"], "array",
        "{spec}"
    );
    assert_eq!(
        spec["ports"]["items"]["required"],
        serde_json::json!(["containerPort"]),
        "{spec}"
    );
}

#[test]
fn a_name_no_glob_import_is_known_to_provide_is_an_error_with_a_hint() {
    let types = "use some_crate::types::*;\n\n/// +kubebuilder:object:root=true\n/// +genclient\npub struct Probe {\n    #[serde(flatten, default)]\n    pub types: Option<kube::core::TypeMeta>,\n    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,\n    pub spec: ProbeSpec,\n}\n\npub struct ProbeSpec {\n    pub gadget: Gadget,\n}\n";
    let error = run(&[("mod.rs", MOD), ("types.rs", types)], &[]).unwrap_err();
    assert!(error.contains("no schema for type `Gadget`"), "{error}");
    assert!(error.contains("types.rs:13:9"), "{error}");
    assert!(error.contains("hint:"), "{error}");
}

/// kube-derive makes every version a storage version unless `storage = false` says
/// otherwise: two versions without it are refused with a hint that names the attribute,
/// and following the hint generates one CRD stored at the other version.
#[test]
fn kube_derive_versions_need_storage_false_on_all_but_one() {
    let dir = tempfile::tempdir().unwrap();
    let write = |version: &str, extra: &str| {
        let path = dir.path().join("apis/g").join(version);
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(path.join("mod.rs"), MOD).unwrap();
        let types = format!(
            "#[derive(CustomResource)]\n#[kube(group = \"g.example.com\", version = \"{version}\", kind = \"Thing\", namespaced{extra})]\npub struct ThingSpec {{}}\n"
        );
        std::fs::write(path.join("types.rs"), types).unwrap();
    };
    write("v1", "");
    write("v2", "");
    let opts = crdgen::Options::new(dir.path(), "client", "apis", "g:v1,v2").unwrap();
    let err = crdgen::generate(&opts).unwrap_err().to_string();
    assert!(
        err.contains("has versions v2, v1 and several are marked as the storage version"),
        "{err}"
    );
    assert!(
        err.contains("`#[kube(storage = false)]`: write that on all versions but one"),
        "{err}"
    );

    write("v1", ", storage = false");
    let generation = crdgen::generate(&opts).unwrap();
    let crd: serde_json::Value = serde_yaml_ng::from_str(
        generation.manifests[&crdgen::Generator::Crd]
            .values()
            .next()
            .expect("one CRD"),
    )
    .unwrap();
    let stored: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["storage"].as_bool().unwrap()))
        .collect();
    // Listed by name, as controller-gen lists them.
    assert_eq!(stored, [("v1", false), ("v2", true)]);
}

/// `+kubebuilder:object:generate=false` turns the generated `Clone` off for a type, or
/// for the package (where a type's own `=true` turns it back on).
#[test]
fn object_generate_false_leaves_a_type_without_a_generated_clone() {
    let types = format!(
        "{}\n/// +kubebuilder:object:generate=false\npub struct Off {{ pub a: String }}\n\npub struct On {{ pub b: String }}\n",
        kind("Widget", "/// +kubebuilder:object:root=true\n")
    );
    let files = |package: &str| {
        let generation = run(
            &[("mod.rs", &format!("{package}{MOD}")), ("types.rs", &types)],
            &[],
        )
        .unwrap();
        let opts = crdgen::Options::new(".", "client", "apis", "g:v1").unwrap();
        let clones: String = generation
            .into_files(&opts)
            .unwrap()
            .files()
            .iter()
            .filter(|(path, _)| path.to_string_lossy().contains("clone"))
            .map(|(_, text)| text.clone())
            .collect();
        clones
    };
    let clones = files("");
    let cloned = |clones: &str, name: &str| {
        clones.contains(&format!("Clone for crate::apis::g::v1::{name} "))
    };
    assert!(
        cloned(&clones, "On") && cloned(&clones, "Widget"),
        "{clones}"
    );
    assert!(!cloned(&clones, "Off"), "{clones}");
    let clones = files("//! +kubebuilder:object:generate=false\n");
    assert!(
        !cloned(&clones, "On") && !cloned(&clones, "Widget"),
        "{clones}"
    );
}

/// `+kubebuilder:skip` on a version's package: nothing is generated for it.
#[test]
fn a_skipped_package_generates_nothing() {
    let types = kind("Widget", "/// +kubebuilder:object:root=true\n");
    let generation = run(
        &[
            ("mod.rs", &format!("//! +kubebuilder:skip\n{MOD}")),
            ("types.rs", &types),
        ],
        &[],
    )
    .unwrap();
    let crds = &generation.manifests[&crdgen::Generator::Crd];
    assert!(crds.is_empty(), "{:?}", crds.keys());
    let versions = &model(&generation)["groups"]["g"]["versions"];
    assert!(versions.as_object().unwrap().is_empty(), "{versions}");
}
