fn main() -> Result<(), crdgen::Error> {
    crdgen::Config::new()
        .apis_dir("src/apis") // relative to the crate root
        .apis_module("crate::apis") // the default: derived from apis_dir
        .output_module("crate::client") // where src/lib.rs's include! sits
        .group("bcrds", ["v1alpha1"])
        .group("other", ["v1"])
        .group("derived", ["v1"])
        .group("hyphens", ["v1"])
        .group("fleet", ["v1alpha1", "v1"])
        // Imported from testdata/import/features by `crdgen import` (tests/import.rs keeps it so).
        .group("shop", ["v1", "v1alpha1", "v1beta1"])
        // Every generator, the API reference (docs) among them, which `all` leaves out.
        .generators(crdgen::Generator::ALL)
        .generate()?;
    Ok(())
}
