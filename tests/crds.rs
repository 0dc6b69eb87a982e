//! CRD generation beyond the snapshots: every CRD is a valid CustomResourceDefinition,
//! descriptions can be cut short, and CRDs can be generated on their own.

mod common;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn crds(opts: &crdgen::Options) -> Vec<(String, String)> {
    common::generate_files(opts)
        .into_iter()
        .filter(|(path, _)| path.starts_with("config/crd/bases"))
        .collect()
}

#[test]
fn every_generated_crd_is_a_custom_resource_definition() {
    let (mut seen, mut derived) = (0, 0);
    for case in common::cases() {
        for (path, text) in crds(&case.options()) {
            let crd: CustomResourceDefinition =
                serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            let spec = &crd.spec;
            assert_eq!(
                crd.metadata.name.as_deref(),
                Some(format!("{}.{}", spec.names.plural, spec.group).as_str()),
                "{path}"
            );
            assert!(
                path.ends_with(&format!("{}_{}.yaml", spec.group, spec.names.plural)),
                "{path}"
            );
            assert_eq!(
                spec.versions.iter().filter(|v| v.storage).count(),
                1,
                "{path}: one storage version"
            );
            for version in &spec.versions {
                let schema = version
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_ref())
                    .unwrap();
                assert_eq!(schema.type_.as_deref(), Some("object"), "{path}");
                let properties = schema.properties.as_ref().unwrap();
                assert!(properties.contains_key("metadata"), "{path}");
                // kube-derive's root never sends a null status (it skips `None`), so
                // the status is not nullable, as no field that cannot be null is.
                if KUBE_DERIVE_CRDS.iter().any(|name| path.ends_with(name)) {
                    derived += 1;
                    assert_eq!(properties["status"].nullable, None, "{path}: status");
                }
            }
            seen += 1;
        }
    }
    assert_eq!(
        seen,
        1 + 11 + 6,
        "the example's, the consumer's (2 of them imported) and the crds case's CRDs"
    );
    assert_eq!(
        derived,
        KUBE_DERIVE_CRDS.len(),
        "every kube-derive kind's CRD checked"
    );
}

/// The CRDs of the testdata kinds declared with `#[derive(CustomResource)]`.
const KUBE_DERIVE_CRDS: [&str; 3] = [
    "derived.example.com_things.yaml",
    "other.example.com_gadgets.yaml",
    "kinds.crdgen.dev_deriveds.yaml",
];

#[test]
fn descriptions_are_cut_at_the_maximum_length() {
    let case = common::case("crds");
    let mut opts = case.options();
    opts.max_description_len = Some(60);
    let (_, text) = crds(&opts)
        .into_iter()
        .find(|(p, _)| p.contains("mappeds"))
        .unwrap();
    let crd: serde_json::Value = serde_yaml_ng::from_str(&text).unwrap();
    let description = |field: &str| {
        crd.pointer(&format!(
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/{field}/description"
        ))
        .unwrap()
        .clone()
    };
    // As controller-gen cuts: after the last sentence end within the limit, else at the
    // last space, marked `...`.
    assert_eq!(
        description("selector"),
        "A label selector is a label query over a set of resources."
    );
    assert_eq!(
        description("template"),
        "PodTemplateSpec describes the data a pod should have when..."
    );
}

#[test]
fn crds_alone_leave_the_rust_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&common::testdata("example"), dir.path());
    let mut opts = common::case("example").options_at(dir.path(), "bcrds:v1alpha1");
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    let files = crdgen::generate(&opts).unwrap().into_files(&opts).unwrap();
    assert_eq!(
        files.owned_dirs(),
        [std::path::PathBuf::from("config/crd/bases")]
    );
    assert_eq!(files.files().len(), 1);
}

/// A CRD whose JSON is larger than a client-side `kubectl apply` can keep in its
/// last-applied annotation (262,144 bytes) is generated with a warning saying how to
/// apply it; cutting descriptions brings it under.
#[test]
fn a_crd_too_large_for_client_side_apply_is_a_warning() {
    let case = common::case("crds");
    // The rendered warnings, after checking that E0020 appears exactly when Mapped's
    // CRD is over the limit.
    let warnings = |opts: &crdgen::Options| -> String {
        let generation = crdgen::generate(opts).unwrap();
        let rendered = generation.render_warnings();
        let crd: serde_json::Value = serde_yaml_ng::from_str(
            &generation.manifests[&crdgen::Generator::Crd]["types.crdgen.dev_mappeds.yaml"],
        )
        .unwrap();
        let size = serde_json::to_vec(&crd).unwrap().len();
        assert_eq!(
            rendered.contains("E0020"),
            size > 262_144,
            "{size}: {rendered}"
        );
        rendered
    };
    let rendered = warnings(&case.options());
    let warned: Vec<&str> = rendered.lines().filter(|l| l.contains("E0020")).collect();
    assert_eq!(warned.len(), 1, "{rendered}");
    assert!(warned[0].contains("`Mapped`"), "{rendered}");
    assert!(
        rendered.contains("kubectl apply --server-side"),
        "{rendered}"
    );
    assert!(rendered.contains("--max-description-len"), "{rendered}");

    let mut cut = case.options();
    cut.max_description_len = Some(40);
    assert!(!warnings(&cut).contains("E0020"));
}
