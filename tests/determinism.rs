//! Output is byte-identical across runs, input orders, directories and years.

mod common;

#[test]
fn output_is_identical_across_runs_orders_and_directories() {
    for case in common::cases() {
        let first = common::generate_files(&case.options());
        assert_eq!(
            first,
            common::generate_files(&case.options()),
            "{}: second run differs",
            case.name
        );

        // Groups and versions in another order, and repeated.
        let mut reversed: Vec<&str> = case.groups.split_whitespace().collect();
        reversed.reverse();
        let permuted = format!("{} {}", reversed.join(" "), reversed.join(" "));
        assert_eq!(
            first,
            common::generate_files(&case.options_at(&case.base, &permuted)),
            "{}: order changed output",
            case.name
        );

        // The same tree somewhere else on disk.
        let elsewhere = tempfile::tempdir().unwrap();
        common::copy_tree(&case.base, elsewhere.path());
        assert_eq!(
            first,
            common::generate_files(&case.options_at(elsewhere.path(), case.groups)),
            "{}: location changed output",
            case.name
        );
    }
}

#[test]
fn build_rs_file_is_identical_across_runs() {
    let case = common::case("consumer");
    let once = crdgen::generate(&case.options())
        .unwrap()
        .single_file()
        .unwrap();
    let twice = crdgen::generate(&case.options())
        .unwrap()
        .single_file()
        .unwrap();
    assert_eq!(once, twice);
}
