fn main() -> Result<(), crdgen::Error> {
    crdgen::Config::new()
        .apis_dir("src/apis")
        .apis_module("crate::apis")
        .output_module("crate::client")
        .groups_versions("bcrds:v1alpha1 other:v1 derived:v1")
        .generators("all")
        .generate()?;
    Ok(())
}
