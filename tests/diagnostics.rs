//! One user mistake per testdata/diagnostics case, and the exact message crdgen
//! renders for it. Each case holds `apis/` and a `groups` file (GROUPS_VERSIONS).

mod common;

#[test]
fn every_mistake_is_reported_with_place_code_and_hint() {
    let root = common::testdata("diagnostics");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 13, "diagnostics cases went missing");
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let groups = std::fs::read_to_string(case.join("groups")).unwrap();
        let opts = crdgen::Options::new(&case, "client", "apis", groups.trim()).unwrap();
        let rendered = match crdgen::generate(&opts) {
            Ok(generation) => panic!(
                "{name}: expected an error, got {} warnings",
                generation.warnings.len()
            ),
            Err(e) => e.to_string(),
        };
        insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(name, rendered);
        });
    }
}
