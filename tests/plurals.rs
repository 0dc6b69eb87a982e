//! Marker-style kinds get controller-gen's plurals: 522 kind names from Kubernetes and
//! public CRDs (testdata/plurals/kinds.txt, each with the plural flect gave it), each a
//! kind of a generated group, whose CRD is named for its plural.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write as _;

#[test]
fn kinds_are_pluralized_as_controller_gen_pluralizes_them() {
    let text = std::fs::read_to_string(common::testdata("plurals/kinds.txt")).unwrap();
    let expected: Vec<(&str, &str)> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once(' ').unwrap())
        .collect();
    assert!(expected.len() >= 200, "{} kinds", expected.len());

    // Kinds of one group need plurals of their own (`Data` and `Datum` are both
    // `data`): each goes to the first group where its plural is free.
    let mut groups: Vec<(BTreeSet<&str>, String)> = Vec::new();
    for (kind, plural) in &expected {
        let at = match groups.iter().position(|(taken, _)| !taken.contains(plural)) {
            Some(at) => at,
            None => {
                let name = format!("names{}", groups.len());
                let source = format!(
                    "//! +groupName={name}.crdgen.dev\nuse k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n"
                );
                groups.push((BTreeSet::new(), source));
                groups.len() - 1
            }
        };
        let (taken, source) = &mut groups[at];
        taken.insert(plural);
        write!(
            source,
            "/// +kubebuilder:object:root=true\n#[derive(serde::Serialize, serde::Deserialize)]\npub struct {kind} {{ #[serde(flatten, default)] pub types: Option<kube::core::TypeMeta>, pub metadata: ObjectMeta }}\n"
        )
        .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, (_, source)) in groups.iter().enumerate() {
        let version = dir.path().join(format!("apis/names{i}/v1"));
        std::fs::create_dir_all(&version).unwrap();
        std::fs::write(version.join("mod.rs"), source).unwrap();
    }
    let names: Vec<String> = (0..groups.len()).map(|i| format!("names{i}:v1")).collect();
    let mut opts = crdgen::Options::new(dir.path(), "client", "apis", &names.join(" ")).unwrap();
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    let files: BTreeSet<String> = common::generate_files(&opts)
        .into_iter()
        .filter_map(|(path, _)| {
            let name = path
                .strip_prefix("config/crd/bases/")?
                .strip_suffix(".yaml")?;
            Some(name.split_once('_')?.1.to_owned())
        })
        .collect();
    let wrong: Vec<String> = expected
        .iter()
        .filter(|(_, plural)| !files.contains(*plural))
        .map(|(kind, plural)| format!("{kind}: no CRD for controller-gen's `{plural}`"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        expected.len(),
        wrong.join("\n")
    );
}
