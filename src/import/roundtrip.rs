//! The import's proof: its packages, written to a scratch directory, are generated back
//! into CRDs by crdgen's own CRD generator, and each is compared with the CRD it came
//! from, path by path. A path that differs is a warning (E0025) naming it, with the
//! value read and the value that comes back; a package crdgen cannot read is a bug.

use std::path::Path;

use serde_json::Value;

use super::read::Found;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::emit::OutputSet;

/// The most differences reported for one CRD version: past it, a line says how many
/// more there are.
const MAX_REPORTED: usize = 20;

/// Generates `output` back and warns of every difference from `found`.
pub fn check(
    output: &OutputSet,
    apis_pkg: &Path,
    groups: &[String],
    kube_version: Option<crate::KubeVersion>,
    found: &[Found],
    diags: &mut Diagnostics,
) -> Result<(), Diagnostic> {
    let scratch = tempfile::tempdir()
        .map_err(|e| Diagnostic::bug(format!("no scratch directory for the round trip: {e}")))?;
    for (rel, text) in &output.files {
        let path = scratch.path().join(rel);
        let written = std::fs::create_dir_all(path.parent().unwrap_or(scratch.path()))
            .and_then(|()| std::fs::write(&path, text));
        written.map_err(|e| {
            Diagnostic::bug(format!(
                "cannot write the round trip's `{}`: {e}",
                rel.display()
            ))
        })?;
    }
    let mut opts = crate::Options::new(scratch.path(), "client", apis_pkg, &groups.join(" "))
        .map_err(|e| Diagnostic::bug(format!("the round trip's options: {e}")))?;
    opts.generators = crate::Generator::parse_list("crd").map_err(Diagnostic::bug)?;
    if let Some(version) = kube_version {
        opts.kube_version = version;
    }
    // Each CRD that comes back, as the crd generator builds it (what it writes as YAML
    // reads back as the same: a test below holds it so), compared with the one it came
    // from as it is built, on all cores, and let go. What the generator refuses in a
    // package made from a CRD is what the CRD itself holds (a rule over the cost
    // budget, a pattern RE2 cannot compile), which the apiserver refuses too.
    let by_name: std::collections::HashMap<String, &Found> = found
        .iter()
        .map(|f| {
            (
                format!("{}.{}", f.crd.spec.names.plural, f.crd.spec.group),
                f,
            )
        })
        .collect();
    let compared = crate::pipeline::each_crd_value(&opts, |back| {
        let name = back["metadata"]["name"].as_str()?.to_owned();
        let mut found = Diagnostics::default();
        if let Some(f) = by_name.get(&name) {
            compare_crd(f, &back, &mut found);
        }
        Some((name, found))
    })
    .map_err(|e| {
        // The generator's own diagnostics, without its closing summary.
        let shown = e.to_string();
        let shown: Vec<&str> = shown
            .lines()
            .filter(|l| !l.starts_with("crdgen: ") && !l.starts_with("For more about"))
            .collect();
        Diagnostic::error(Code::NotACrd, format!("the CRDs hold what crdgen (and the apiserver) refuse:\n{}", shown.join("\n").trim_end()))
            .hint("fix the CRD and import it again; the paths above are those of the package it would have made")
    })?;
    let mut came_back = std::collections::HashSet::new();
    for (name, found) in compared.into_iter().flatten() {
        diags.extend(found.into_sorted());
        came_back.insert(name);
    }
    for name in by_name.keys().filter(|name| !came_back.contains(*name)) {
        diags.push(Diagnostic::bug(format!(
            "the CRD {name} did not come back from its package"
        )));
    }
    Ok(())
}

/// Warns of every path of `f` that `back` does not give back as read: of its spec
/// (each version matched by name) and of its own labels and annotations.
fn compare_crd(f: &Found, back: &Value, diags: &mut Diagnostics) {
    let mut differences = Vec::new();
    let without_versions = |spec: &Value| {
        let mut spec = spec.clone();
        if let Some(map) = spec.as_object_mut() {
            map.remove("versions");
        }
        spec
    };
    // The names the apiserver fills in when a CRD leaves them out, as crdgen writes them.
    let mut read = without_versions(&f.raw["spec"]);
    let kind = &f.crd.spec.names.kind;
    if let Some(names) = read["names"].as_object_mut() {
        names
            .entry("singular")
            .or_insert(kind.to_lowercase().into());
        names
            .entry("listKind")
            .or_insert(format!("{kind}List").into());
    }
    diff(
        "/spec",
        &read,
        &without_versions(&back["spec"]),
        &mut differences,
    );
    let versions = |crd: &Value| -> Vec<Value> {
        crd["spec"]["versions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let returned = versions(back);
    for mut version in versions(&f.raw) {
        let name = version["name"].as_str().unwrap_or_default().to_owned();
        let path = format!("/spec/versions[{name}]");
        // `subresources: {}` says what no subresources says.
        if version["subresources"]
            .as_object()
            .is_some_and(|m| m.is_empty())
            && let Some(map) = version.as_object_mut()
        {
            map.remove("subresources");
        }
        match returned.iter().find(|v| v["name"] == name) {
            Some(back) => diff(
                &path,
                &with_standard_fields(version, back),
                back,
                &mut differences,
            ),
            None => differences.push((path, "the version is missing".to_owned())),
        }
    }
    for key in ["labels", "annotations"] {
        let mut read = f.raw["metadata"][key].clone();
        if let Some(map) = read.as_object_mut() {
            map.remove("controller-gen.kubebuilder.io/version");
        }
        let read = if read.as_object().is_some_and(|m| m.is_empty()) {
            Value::Null
        } else {
            read
        };
        diff(
            &format!("/metadata/{key}"),
            &read,
            &back["metadata"][key],
            &mut differences,
        );
    }
    let total = differences.len();
    for (path, what) in differences.into_iter().take(MAX_REPORTED) {
        diags.push(
            Diagnostic::warning(Code::SchemaNotKept, format!("{kind}: at `{path}`, {what}"))
                .at(&f.file, f.pos)
                .hint("this form has no Rust type or marker that writes it; the book's import chapter lists them"),
        );
    }
    if total > MAX_REPORTED {
        diags.push(
            Diagnostic::warning(
                Code::SchemaNotKept,
                format!("{kind}: {} more paths differ", total - MAX_REPORTED),
            )
            .at(&f.file, f.pos),
        );
    }
}

/// `version` with the root properties every kind has (`apiVersion`, `kind`,
/// `metadata`), and their descriptions, as `back` writes them where it leaves them out:
/// a schema may, and the apiserver serves them all the same.
fn with_standard_fields(mut version: Value, back: &Value) -> Value {
    let standard = &back["schema"]["openAPIV3Schema"]["properties"];
    let properties = version["schema"]["openAPIV3Schema"]
        .as_object_mut()
        .map(|root| {
            root.entry("properties")
                .or_insert_with(|| Value::Object(Default::default()))
        });
    if let Some(Value::Object(properties)) = properties {
        for key in ["apiVersion", "kind", "metadata"] {
            let Some(field) = standard.get(key) else {
                continue;
            };
            match properties.get_mut(key) {
                None => {
                    properties.insert(key.to_owned(), field.clone());
                }
                // Their descriptions are TypeMeta's, which some tools leave out.
                Some(Value::Object(read)) if !read.contains_key("description") => {
                    if let Some(description) = field.get("description") {
                        read.insert("description".to_owned(), description.clone());
                    }
                }
                Some(_) => {}
            }
        }
    }
    version
}

/// Every difference between `old` and `new` below `path`: a key lost, added or changed.
/// `required` is compared as a set (its order means nothing).
pub fn diff(path: &str, old: &Value, new: &Value, out: &mut Vec<(String, String)>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{path}/{key}");
                match b.get(key) {
                    None => out.push((here, format!("`{}` is lost", short(value)))),
                    Some(other) if key == "required" => {
                        let set = |v: &Value| {
                            let mut items: Vec<String> = v
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(Value::to_string)
                                .collect();
                            items.sort();
                            items
                        };
                        if set(value) != set(other) {
                            out.push((
                                here,
                                format!("`{}` comes back as `{}`", short(value), short(other)),
                            ));
                        }
                    }
                    Some(other) => diff(&here, value, other, out),
                }
            }
            for (key, value) in b {
                if !a.contains_key(key) {
                    out.push((
                        format!("{path}/{key}"),
                        format!("`{}` is added", short(value)),
                    ));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}/{i}"), x, y, out);
            }
        }
        (a, b) if a == b => {}
        // Numbers that are one value in two forms (`1` and `1.0`).
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        (a, b) => out.push((
            path.to_owned(),
            format!("`{}` comes back as `{}`", short(a), short(b)),
        )),
    }
}

/// A value shown in a warning, cut to a line.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The round trip compares the JSON the crd generator builds, not the YAML it writes
    /// read back: the two must be one, for every CRD the real projects' packages make.
    #[test]
    fn the_crds_written_read_back_as_the_json_they_were_written_from() {
        let out = tempfile::tempdir().unwrap();
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/import/real");
        let imported = crate::import::import(&crate::import::ImportOptions {
            inputs: vec![crate::import::Input::Path(real)],
            output_base: out.path().to_owned(),
            apis_pkg: "pkg/apis".into(),
            header: crate::options::HeaderSource::Default,
            year: None,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let mut opts =
            crate::Options::new(out.path(), "client", "pkg/apis", &imported.groups.join(" "))
                .unwrap();
        opts.generators = crate::Generator::parse_list("crd").unwrap();
        if let Some(version) = imported.kube_version {
            opts.kube_version = version;
        }
        let by_name = |crds: Vec<Value>| -> std::collections::BTreeMap<String, Value> {
            crds.into_iter()
                .map(|crd| (crd["metadata"]["name"].as_str().unwrap().to_owned(), crd))
                .collect()
        };
        let built = by_name(crate::pipeline::each_crd_value(&opts, |crd| crd).unwrap());
        let generation = crate::generate(&opts).unwrap_or_else(|e| panic!("{e}"));
        let written = generation.manifests[&crate::Generator::Crd]
            .values()
            .map(|text| crate::yaml::parse(text).unwrap())
            .collect();
        let read_back = by_name(written);
        assert!(built.len() > 20, "{} CRDs", built.len());
        for (name, crd) in &built {
            assert!(
                read_back.get(name) == Some(crd),
                "{name} reads back otherwise"
            );
        }
        assert_eq!(built.len(), read_back.len());
    }

    #[test]
    fn differences_name_their_path_and_required_is_a_set() {
        let mut out = Vec::new();
        diff(
            "",
            &json!({"properties": {"a": {"type": "string", "maxLength": 3}}, "required": ["a", "b"], "items": [1, 2.0]}),
            &json!({"properties": {"a": {"type": "string", "minLength": 1}}, "required": ["b", "a"], "items": [1.0, 2]}),
            &mut out,
        );
        assert_eq!(
            out,
            [
                (
                    "/properties/a/maxLength".to_owned(),
                    "`3` is lost".to_owned()
                ),
                (
                    "/properties/a/minLength".to_owned(),
                    "`1` is added".to_owned()
                ),
            ]
        );
    }
}
