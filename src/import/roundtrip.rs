//! The import's proof: its packages, written to a scratch directory, are generated back
//! into CRDs by crdgen's own CRD generator, and each is compared with the CRD it came
//! from, path by path. A path that differs is a warning (E0025) naming it, with the
//! value read and the value that comes back; a package crdgen cannot read is a bug.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::read::Found;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::emit::OutputSet;

/// The most differences reported for one CRD version: past it, a line says how many
/// more there are.
const MAX_REPORTED: usize = 20;

/// The packages an import lays out, before they are written.
pub struct Package<'a> {
    pub output: &'a OutputSet,
    pub apis_pkg: &'a Path,
    pub groups: &'a [String],
    pub kube_version: Option<crate::KubeVersion>,
}

/// The API reference's directory and its files (by their path under the output base).
pub type Reference = (PathBuf, Vec<(PathBuf, String)>);

/// Why the round trip stopped the import.
pub enum Failed {
    /// The packages did not generate back (a bug, or a CRD the apiserver refuses too).
    Diagnostic(Diagnostic),
    /// The reference asked for did not generate (a stale sample).
    Reference(crate::Error),
}

/// Generates the package back and warns of every difference from `found`; with
/// `docs_dir`, also generates its API reference there, as `generate-groups docs` would
/// from the written package (the samples of `output_base` shown and checked), for its
/// directory and files.
pub fn check(
    package: &Package,
    found: &mut [Found],
    docs_dir: Option<&Path>,
    output_base: &Path,
    diags: &mut Diagnostics,
) -> Result<Option<Reference>, Failed> {
    let scratch = tempfile::tempdir().map_err(|e| {
        Failed::Diagnostic(Diagnostic::bug(format!(
            "no scratch directory for the round trip: {e}"
        )))
    })?;
    for (rel, text) in &package.output.files {
        let path = scratch.path().join(rel);
        let written = std::fs::create_dir_all(path.parent().unwrap_or(scratch.path()))
            .and_then(|()| std::fs::write(&path, text));
        written.map_err(|e| {
            Failed::Diagnostic(Diagnostic::bug(format!(
                "cannot write the round trip's `{}`: {e}",
                rel.display()
            )))
        })?;
    }
    let opts = options(scratch.path(), package, "crd").map_err(Failed::Diagnostic)?;
    compare_all(&opts, found, diags).map_err(Failed::Diagnostic)?;
    let Some(docs_dir) = docs_dir else {
        return Ok(None);
    };
    reference(scratch.path(), package, docs_dir, output_base)
        .map(|files| Some((docs_dir.to_owned(), files)))
        .map_err(Failed::Reference)
}

/// The options that generate the package written under `scratch` with `generators`.
fn options(
    scratch: &Path,
    package: &Package,
    generators: &str,
) -> Result<crate::Options, Diagnostic> {
    let mut opts = crate::Options::new(
        scratch,
        "client",
        package.apis_pkg,
        &package.groups.join(" "),
    )
    .map_err(|e| Diagnostic::bug(format!("the round trip's options: {e}")))?;
    opts.generators = crate::Generator::parse_list(generators).map_err(Diagnostic::bug)?;
    if let Some(version) = package.kube_version {
        opts.kube_version = version;
    }
    Ok(opts)
}

/// The API reference of the package written under `scratch`, its files by their path
/// under `output_base`, with the samples of `output_base` (copied beside it) checked.
fn reference(
    scratch: &Path,
    package: &Package,
    docs_dir: &Path,
    output_base: &Path,
) -> Result<Vec<(PathBuf, String)>, crate::Error> {
    let samples = crate::naming::docs::SAMPLES_DIR;
    if let Ok(entries) = std::fs::read_dir(output_base.join(samples)) {
        std::fs::create_dir_all(scratch.join(samples)).map_err(crate::Error::Io)?;
        for entry in entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
        {
            std::fs::copy(entry.path(), scratch.join(samples).join(entry.file_name()))
                .map_err(crate::Error::Io)?;
        }
    }
    let mut opts = options(scratch, package, "docs").map_err(crate::Error::diagnostic)?;
    opts.manifest_dirs
        .insert(crate::Generator::Docs, docs_dir.to_owned());
    let files = crate::generate(&opts)?.into_files(&opts)?;
    Ok(files
        .files()
        .iter()
        .filter(|(path, _)| path.starts_with(docs_dir))
        .map(|(path, text)| (path.clone(), text.clone()))
        .collect())
}

/// Generates the package back into CRDs and compares each with the CRD it came from.
fn compare_all(
    opts: &crate::Options,
    found: &mut [Found],
    diags: &mut Diagnostics,
) -> Result<(), Diagnostic> {
    // Each CRD that comes back, as the crd generator builds it (what it writes as YAML
    // reads back as the same: a test below holds it so), compared with the one it came
    // from as it is built, on all cores, and let go. What the generator refuses in a
    // package made from a CRD is what the CRD itself holds (a rule over the cost
    // budget, a pattern RE2 cannot compile), which the apiserver refuses too.
    // Each CRD read is compared once, and given up to it: its values are taken, not
    // copied (a CRD's schemas are most of the run's memory).
    let by_name: std::collections::HashMap<String, std::sync::Mutex<&mut Found>> = found
        .iter_mut()
        .map(|f| {
            let name = format!("{}.{}", f.crd.spec.names.plural, f.crd.spec.group);
            (name, std::sync::Mutex::new(f))
        })
        .collect();
    let compared = crate::pipeline::each_crd_value(opts, |back| {
        let name = back["metadata"]["name"].as_str()?.to_owned();
        let mut found = Diagnostics::default();
        if let Some(f) = by_name.get(&name) {
            let mut f = f.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let raw = std::mem::take(&mut f.raw);
            compare_crd(&f, raw, &back, &mut found);
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

/// Warns of every path of `raw`, `f` as read, that `back` does not give back: of its
/// spec (each version matched by name) and of its own labels and annotations.
fn compare_crd(f: &Found, mut raw: Value, back: &Value, diags: &mut Diagnostics) {
    let mut differences = Vec::new();
    let mut read_spec = raw["spec"].take();
    let read_versions = read_spec
        .as_object_mut()
        .and_then(|spec| spec.remove("versions"));
    // The names the apiserver fills in when a CRD leaves them out, as crdgen writes them.
    let kind = &f.crd.spec.names.kind;
    if let Some(names) = read_spec["names"].as_object_mut() {
        names
            .entry("singular")
            .or_insert(kind.to_lowercase().into());
        names
            .entry("listKind")
            .or_insert(format!("{kind}List").into());
    }
    // The conversion the apiserver fills in for a CRD that names none (as a CRD read
    // from a cluster has it): crdgen writes none.
    if read_spec["conversion"] == serde_json::json!({"strategy": "None"})
        && back["spec"].get("conversion").is_none()
        && let Some(spec) = read_spec.as_object_mut()
    {
        spec.remove("conversion");
    }
    Place::new("/spec").diff_except(&read_spec, &back["spec"], "versions", &mut differences);
    let returned = back["spec"]["versions"].as_array();
    let read_versions = match read_versions {
        Some(Value::Array(versions)) => versions,
        _ => Vec::new(),
    };
    for mut version in read_versions {
        let name = version["name"].as_str().unwrap_or_default().to_owned();
        let mut path = Place::new(&format!("/spec/versions[{name}]"));
        // `subresources: {}` says what no subresources says.
        if version["subresources"]
            .as_object()
            .is_some_and(|m| m.is_empty())
            && let Some(map) = version.as_object_mut()
        {
            map.remove("subresources");
        }
        match returned.into_iter().flatten().find(|v| v["name"] == name) {
            Some(back) => {
                with_standard_fields(&mut version, back);
                path.diff(&version, back, &mut differences);
            }
            None => differences.push((path.to_string(), "the version is missing".to_owned())),
        }
    }
    for key in ["labels", "annotations"] {
        let mut read = raw["metadata"][key].take();
        if let Some(map) = read.as_object_mut() {
            map.remove("controller-gen.kubebuilder.io/version");
        }
        if read.as_object().is_some_and(|m| m.is_empty()) {
            read = Value::Null;
        }
        Place::new(&format!("/metadata/{key}")).diff(
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

/// Adds to `version` the root properties every kind has (`apiVersion`, `kind`,
/// `metadata`), and their descriptions, as `back` writes them where it leaves them out:
/// a schema may, and the apiserver serves them all the same.
fn with_standard_fields(version: &mut Value, back: &Value) {
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
}

/// Where a comparison is: its start and the keys and indexes below it, made text only
/// for a difference (most places have none).
struct Place<'a> {
    start: String,
    steps: Vec<Step<'a>>,
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.start)?;
        for step in &self.steps {
            match step {
                Step::Key(key) => write!(f, "/{key}")?,
                Step::Index(i) => write!(f, "/{i}")?,
            }
        }
        Ok(())
    }
}

impl<'a> Place<'a> {
    fn new(start: &str) -> Place<'a> {
        Place {
            start: start.to_owned(),
            steps: Vec::new(),
        }
    }

    /// Every difference between `old` and `new` here and below: a key lost, added or
    /// changed. `required` is compared as a set (its order means nothing).
    fn diff(&mut self, old: &'a Value, new: &'a Value, out: &mut Vec<(String, String)>) {
        self.diff_except(old, new, "", out);
    }

    /// [`Place::diff`], but for the key `skipped` of `new`, which `old` does not hold.
    fn diff_except(
        &mut self,
        old: &'a Value,
        new: &'a Value,
        skipped: &str,
        out: &mut Vec<(String, String)>,
    ) {
        match (old, new) {
            (Value::Object(a), Value::Object(b)) => {
                for (key, value) in a {
                    self.steps.push(Step::Key(key));
                    match b.get(key) {
                        None => out.push((self.to_string(), format!("`{}` is lost", short(value)))),
                        Some(other) if key == "required" => {
                            if as_set(value) != as_set(other) {
                                out.push((
                                    self.to_string(),
                                    format!("`{}` comes back as `{}`", short(value), short(other)),
                                ));
                            }
                        }
                        Some(other) => self.diff(value, other, out),
                    }
                    self.steps.pop();
                }
                for (key, value) in b {
                    if key != skipped && !a.contains_key(key) {
                        self.steps.push(Step::Key(key));
                        out.push((self.to_string(), format!("`{}` is added", short(value))));
                        self.steps.pop();
                    }
                }
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.steps.push(Step::Index(i));
                    self.diff(x, y, out);
                    self.steps.pop();
                }
            }
            (a, b) if a == b => {}
            // Numbers that are one value in two forms (`1` and `1.0`).
            (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
            (a, b) => out.push((
                self.to_string(),
                format!("`{}` comes back as `{}`", short(a), short(b)),
            )),
        }
    }
}

/// A list's items as a sorted set of their JSON texts.
fn as_set(list: &Value) -> Vec<String> {
    let mut items: Vec<String> = list
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    items.sort();
    items
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
            docs_dir: None,
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
        Place::new("").diff(
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
