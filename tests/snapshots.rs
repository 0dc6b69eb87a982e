//! Snapshots of the model and of every generated file, for each testdata case.
//! Review changes with `cargo insta review`; CI fails on any pending snapshot.

mod common;

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

#[test]
fn model_and_generated_files() {
    for case in common::cases() {
        let opts = case.options();
        let generation = crdgen::generate(&opts).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        // The crds case's Mapped kind embeds a PodTemplateSpec on purpose: its CRD is too
        // large for a client-side apply (tests/crds.rs checks that warning).
        let unexpected = generation
            .warnings
            .iter()
            .filter(|w| !(case.name == "crds" && w.code == crdgen::diag::Code::LargeCrd))
            .count();
        assert_eq!(
            unexpected,
            0,
            "{}: {}",
            case.name,
            generation.render_warnings()
        );
        settings().bind(|| {
            insta::assert_yaml_snapshot!(format!("{}__model", case.name), generation.model());
            for (path, text) in common::generate_files(&opts) {
                let name = format!("{}__{}", case.name, path.replace('/', "__"));
                insta::assert_snapshot!(name, text);
            }
        });
    }
}

#[test]
fn build_rs_single_file() {
    let case = common::case("consumer");
    let generation = crdgen::generate(&case.options()).unwrap();
    settings()
        .bind(|| insta::assert_snapshot!("consumer__crdgen.rs", generation.single_file().unwrap()));
}
