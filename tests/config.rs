//! The build.rs front end: the same generation, one includable file, written only
//! when it changes, errors rendered for a person.

mod common;

#[test]
fn generates_one_includable_file_and_rewrites_it_only_on_change() {
    let out = tempfile::tempdir().unwrap();
    let mut config = crdgen::Config::new();
    config
        .apis_dir("testdata/consumer/src/apis")
        .apis_module("crate::apis")
        .group("derived", ["v1"])
        .group("other", ["v1"])
        .group("bcrds", ["v1alpha1"])
        .group("hyphens", ["v1"])
        .group("fleet", ["v1alpha1", "v1"])
        .group("shop", ["v1", "v1alpha1", "v1beta1"])
        .out_dir(out.path());
    let path = config.generate().unwrap();
    assert_eq!(path, out.path().join("crdgen.rs"));

    let case = common::case("consumer");
    let expected = crdgen::generate(&case.options())
        .unwrap()
        .single_file()
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);

    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    config.generate().unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );

    // With CRDs: each kind's CRD under crds/, and one no longer generated is pruned.
    config.generators([crdgen::Generator::Crd, crdgen::Generator::Client]);
    config.generate().unwrap();
    let crds = out.path().join("crds");
    let kept = crds.join("bcrds.example.com_examples.yaml");
    assert!(kept.is_file());
    let stale = crds.join("bcrds.example.com_olds.yaml");
    std::fs::copy(&kept, &stale).unwrap();
    config.generate().unwrap();
    assert!(!stale.exists(), "a stale generated CRD is pruned");
    assert!(kept.is_file());
}

#[test]
fn errors_read_as_diagnostics() {
    let out = tempfile::tempdir().unwrap();
    let err = crdgen::Config::new()
        .apis_dir("testdata/diagnostics/unknown_marker/apis")
        .group("bcrds", ["v1"])
        .out_dir(out.path())
        .generate()
        .unwrap_err();
    let shown = format!("{err:?}");
    assert!(
        shown.starts_with("error[E0006]: unknown marker `+kubebuilder:validation:Minimun`\n"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "--> testdata/diagnostics/unknown_marker/apis/bcrds/v1/example_types.rs:14:9"
        ),
        "{shown}"
    );
    assert!(!out.path().join("crdgen.rs").exists());

    let usage = crdgen::Config::new()
        .group("bcrds", Vec::<String>::new())
        .out_dir(out.path())
        .generate()
        .unwrap_err();
    assert!(
        usage
            .to_string()
            .starts_with("error: group `bcrds` has no versions"),
        "{usage}"
    );
}

/// The Kubernetes version build.rs generates for: `kube_version`, else the one the
/// crate's k8s-openapi feature selects (what k8s-openapi tells build scripts), else the
/// newest.
#[test]
fn the_kubernetes_version_is_the_crates_or_the_one_given() {
    let out = tempfile::tempdir().unwrap();
    let generate = |version: Option<&str>| {
        let mut config = crdgen::Config::new();
        config
            .apis_dir("testdata/fidelity/apis")
            .apis_module("crate::apis")
            .group("oracle", ["v1"])
            .generators([crdgen::Generator::Crd])
            .out_dir(out.path());
        if let Some(v) = version {
            config.kube_version(v);
        }
        config.generate()
    };
    let unknown = generate(Some("1.20")).unwrap_err();
    assert!(
        unknown.to_string().contains(
            "kube_version: crdgen has the Kubernetes types of 1.33, 1.34, 1.35, 1.36, 1.37, not 1.20"
        ),
        "{unknown}"
    );
    generate(Some("1.33")).unwrap();
    let crd =
        std::fs::read_to_string(out.path().join("crds/oracle.example.com_embeds.yaml")).unwrap();
    // PodSpec.hostnameOverride came with Kubernetes 1.34.
    assert!(
        !crd.contains("hostnameOverride"),
        "1.34's field in a 1.33 CRD"
    );
    generate(Some("1.34")).unwrap();
    let crd =
        std::fs::read_to_string(out.path().join("crds/oracle.example.com_embeds.yaml")).unwrap();
    assert!(
        crd.contains("hostnameOverride"),
        "1.34 has PodSpec.hostnameOverride"
    );
}
