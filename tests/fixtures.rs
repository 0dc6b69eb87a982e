//! Every testdata case against its expected output, one test per case, so that a
//! failure names its case. A case's expected files sit beside its input:
//!
//! - `testdata/<case>/expected/`: the files `generate-groups` writes for the case, at
//!   their paths under the output base, and `model.json`, what crdgen understood of the
//!   types. The bundled example is its own expected output: its checked-in
//!   `pkg/client` and `config/` are what the test compares (and what
//!   `hack/verify-codegen.sh` checks).
//! - `testdata/diagnostics/<case>/expected.stderr`: the one error crdgen renders for
//!   the mistake the case makes.
//!
//! `CRDGEN_BLESS=1 cargo test --test fixtures` rewrites them all (see `common::expect`).

mod common;

use common::{bless, expect};

/// A case that generates: its files (with the header) and model, as expected, and no
/// warning but those the case is about.
fn generates(name: &str) {
    let case = common::case(name);
    let opts = case.options();
    let generation = crdgen::generate(&opts).unwrap_or_else(|e| panic!("{e}"));
    // The crds case's Mapped kind embeds a PodTemplateSpec on purpose: its CRD is too
    // large for a client-side apply (tests/crds.rs checks that warning).
    let unexpected = generation
        .warnings
        .iter()
        .filter(|w| !(name == "crds" && w.code == crdgen::diag::Code::LargeCrd))
        .count();
    assert_eq!(unexpected, 0, "{}", generation.render_warnings());
    let expected = case.base.join("expected");
    let model = serde_json::to_string_pretty(&generation.model()).unwrap() + "\n";
    bless::file(&expected.join("model.json"), &model);
    if name == "consumer" {
        // The consumer includes everything as one file from build.rs.
        bless::file(
            &expected.join("crdgen.rs"),
            &generation.single_file().unwrap(),
        );
    }
    let files = generation.into_files(&opts).unwrap();
    // The example's output is checked in where it is generated to: one copy.
    let root = if name == "example" {
        &case.base
    } else {
        &expected
    };
    expect::tree(root, files.owned_dirs(), files.files());
}

/// A case that makes one mistake: crdgen refuses it with the expected message.
fn reports(name: &str) {
    let case = common::testdata("diagnostics").join(name);
    let groups = std::fs::read_to_string(case.join("groups")).unwrap();
    let mut opts = crdgen::Options::new(&case, "client", "apis", groups.trim()).unwrap();
    // A case written for one Kubernetes version names it.
    if let Ok(version) = std::fs::read_to_string(case.join("kube-version")) {
        opts.kube_version = version.trim().parse().unwrap();
    }
    let rendered = match crdgen::generate(&opts) {
        Ok(generation) => panic!(
            "expected an error, got {} warnings",
            generation.warnings.len()
        ),
        Err(e) => format!("{e}\n"),
    };
    bless::file(&case.join("expected.stderr"), &rendered);
}

/// One `#[test]` per case, named after it, calling `$check` with its name.
macro_rules! cases {
    ($check:ident: $($case:ident),* $(,)?) => {
        /// The cases, to check that every directory has its test.
        const CASES: &[&str] = &[$(stringify!($case)),*];
        $(
            #[test]
            fn $case() {
                super::$check(stringify!($case));
            }
        )*
    };
}

/// The cases under `testdata/` that generate (`common::cases`).
mod generation {
    cases!(generates: example, consumer, crds, rbac, webhook);

    #[test]
    fn every_case_has_its_test() {
        let names: Vec<&str> = crate::common::cases().iter().map(|c| c.name).collect();
        assert_eq!(names, CASES);
    }
}

/// The cases under `testdata/diagnostics/`, one mistake each.
mod diagnostics {
    cases!(reports:
        apply_configuration_clashes,
        bad_marker_argument,
        cel_old_self_in_a_list,
        cel_rule_does_not_parse,
        cel_rule_function_newer_than_the_version,
        cel_rule_not_a_bool,
        cel_rule_over_budget,
        cel_rule_overload_mismatch,
        cel_rule_reads_an_undeclared_kept_field,
        cel_rule_unknown_field,
        cel_rules_over_crd_budget,
        crd_enum_and_docs_misused,
        crd_jsonpath_names_no_field,
        crd_k8s_markers_misused,
        crd_marker_on_wrong_type,
        crd_metadata_not_key_value,
        crd_mixed_enum,
        crd_no_schema_for_type,
        crd_no_storage_version,
        crd_not_structural,
        crd_one_of_field_required,
        crd_one_of_nested_field,
        crd_recursive_type,
        crd_time_without_rfc3339,
        crd_unique_items,
        declared_module_missing,
        duplicate_kind,
        field_collisions,
        generated_name_collisions,
        group_go_name_collision,
        group_go_name_invalid,
        group_go_names_disagree,
        group_name_empty,
        group_name_is_a_path,
        group_name_not_dns,
        kind_without_metadata,
        kind_without_type_meta,
        kube_validation_not_a_rule,
        malformed_rust,
        marker_in_plain_comment,
        method_name_and_subresource,
        method_without_subresource,
        misplaced_marker,
        missing_group_directory,
        missing_group_name,
        missing_version_directory,
        names_not_dns,
        nesting_too_deep,
        pattern_and_bounds,
        plural_leaves_the_output,
        rbac_rules,
        resource_name_collisions,
        several_errors_at_once,
        two_group_names,
        undeclared_module,
        unknown_client_verb,
        unknown_marker,
        unreachable_type,
        webhook_markers,
    );

    #[test]
    fn every_case_has_its_test() {
        let root = crate::common::testdata("diagnostics");
        let mut dirs: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        dirs.sort();
        assert_eq!(
            dirs,
            CASES,
            "a directory of {} without its test, or the other way",
            root.display()
        );
    }
}
