//! What `crdgen import` reads: YAML or JSON files, the YAML files of a directory, or
//! standard input, each a stream of documents. A document is a CRD, a `List` of them
//! (`kubectl get crd -o yaml`), or something else, which is passed over with a warning.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::crd::{API_VERSION, Crd, KIND};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos, Sources};

/// The most crdgen reads of one CRD file: Kubernetes stores a CRD in an etcd value of
/// at most 1.5 MiB, and a file of many is rarely over a few MiB.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Where CRDs come from.
#[derive(Clone, Debug)]
pub enum Input {
    /// A file, or a directory whose `.yaml`, `.yml` and `.json` files are read in name
    /// order, its subdirectories too.
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Text read already (a cluster's answer), shown in diagnostics as `name`.
    #[cfg(feature = "cluster")]
    Text { name: String, text: String },
}

/// A CRD as read, with where it starts, for diagnostics.
pub struct Found {
    pub crd: Crd,
    /// The CRD as read, which the round trip compares with what comes back.
    pub raw: Value,
    pub file: String,
    pub pos: Pos,
}

impl Found {
    /// The `openAPIV3Schema` of the version at `index` of `spec.versions`, as read.
    pub fn schema(&self, index: usize) -> Option<&Value> {
        self.raw
            .pointer(&format!("/spec/versions/{index}/schema/openAPIV3Schema"))
    }

    /// The CRD's name: its `metadata.name`, else PLURAL.GROUP as the apiserver requires.
    pub fn crd_name(&self) -> String {
        match self.raw.pointer("/metadata/name").and_then(Value::as_str) {
            Some(name) => name.to_owned(),
            None => format!("{}.{}", self.crd.spec.names.plural, self.crd.spec.group),
        }
    }
}

/// Every CRD of `inputs`, in the order read. Text read is kept in `sources`, so that
/// diagnostics show the line.
pub fn read(inputs: &[Input], sources: &mut Sources, diags: &mut Diagnostics) -> Vec<Found> {
    let mut found = Vec::new();
    for input in inputs {
        match input {
            Input::Stdin => {
                let mut text = String::new();
                use std::io::Read as _;
                let read = std::io::stdin()
                    .take(MAX_INPUT_BYTES + 1)
                    .read_to_string(&mut text);
                match read {
                    Ok(_) if text.len() as u64 > MAX_INPUT_BYTES => diags.push(
                        Diagnostic::error(
                            Code::Limit,
                            format!("standard input is larger than {MAX_INPUT_BYTES} bytes"),
                        )
                        .at_path("<stdin>")
                        .hint("split the CRDs over files and give their directory"),
                    ),
                    Ok(_) => documents("<stdin>", &text, &mut found, diags),
                    Err(e) => diags.push(
                        Diagnostic::error(Code::Io, format!("cannot read standard input: {e}"))
                            .at_path("<stdin>")
                            .hint("pipe UTF-8 YAML or JSON into `crdgen import -`"),
                    ),
                }
                sources.insert("<stdin>".to_owned(), text);
            }
            #[cfg(feature = "cluster")]
            Input::Text { name, text } => {
                documents(name, text, &mut found, diags);
                sources.insert(name.clone(), text.clone());
            }
            Input::Path(path) => {
                // Each file read on all cores (YAML is most of a large import's reading),
                // and taken in file order.
                let read = crate::parallel::map(&files(path, diags), |file| {
                    let shown = file.display().to_string();
                    let (mut found, mut diags) = (Vec::new(), Diagnostics::default());
                    let text = match crate::source::read_text(file, MAX_INPUT_BYTES) {
                        Ok(text) => {
                            documents(&shown, &text, &mut found, &mut diags);
                            Some(text)
                        }
                        Err(e) => {
                            diags.push(
                                Diagnostic::error(
                                    e.code(Code::Io),
                                    format!("cannot read `{shown}`: {e}"),
                                )
                                .at_path(shown.clone())
                                .hint("crdgen import reads UTF-8 YAML or JSON files"),
                            );
                            None
                        }
                    };
                    (shown, text, found, diags)
                });
                for (shown, text, mut file_found, file_diags) in read {
                    found.append(&mut file_found);
                    diags.extend(file_diags.into_sorted());
                    if let Some(text) = text {
                        sources.insert(shown, text);
                    }
                }
            }
        }
    }
    found
}

/// `path` itself, or the YAML and JSON files below it, sorted.
pub fn files(path: &Path, diags: &mut Diagnostics) -> Vec<PathBuf> {
    if !path.is_dir() {
        if !path.exists() {
            diags.push(
                Diagnostic::error(
                    Code::MissingDirectory,
                    format!("`{}` does not exist", path.display()),
                )
                .at_path(path.display().to_string())
                .hint("give CRD files, a directory of them, or `-` for standard input"),
            );
            return Vec::new();
        }
        return vec![path.to_owned()];
    }
    let yaml = |p: &Path| {
        matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        )
    };
    let files: Vec<PathBuf> = walkdir::WalkDir::new(path)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && yaml(e.path()))
        .map(walkdir::DirEntry::into_path)
        .collect();
    if files.is_empty() {
        diags.push(
            Diagnostic::error(
                Code::MissingDirectory,
                format!("`{}` holds no .yaml, .yml or .json file", path.display()),
            )
            .at_path(path.display().to_string())
            .hint("give the directory the CRDs are in"),
        );
    }
    files
}

/// The CRDs of one file's documents.
pub fn documents(file: &str, text: &str, found: &mut Vec<Found>, diags: &mut Diagnostics) {
    let lines = crate::yaml::document_lines(text);
    for (i, document) in crate::yaml::parse_documents(text).into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let pos = Pos { line, col: 1 };
        match document {
            Ok(Value::Null) => {}
            Ok(value) => objects(file, pos, value, found, diags),
            Err(e) => {
                let pos = e.at.map_or(pos, |(line, col)| Pos { line, col });
                diags.push(
                    Diagnostic::error(
                        Code::NotACrd,
                        format!("`{file}` is not valid YAML: {}", e.message),
                    )
                    .at(file, pos)
                    .hint("crdgen import reads YAML or JSON documents, `---` between them"),
                );
            }
        }
    }
}

/// A document: a CRD, a `List` of CRDs, or (with a warning) something else.
fn objects(file: &str, pos: Pos, value: Value, found: &mut Vec<Found>, diags: &mut Diagnostics) {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    if kind == "List" || kind.ends_with("List") && value.get("items").is_some_and(Value::is_array) {
        if let Value::Object(mut list) = value
            && let Some(Value::Array(items)) = list.remove("items")
        {
            for item in items {
                objects(file, pos, item, found, diags);
            }
        }
        return;
    }
    if kind != KIND {
        let what = if kind.is_empty() {
            "an object without a kind".to_owned()
        } else {
            format!("a {kind}")
        };
        diags.push(
            Diagnostic::warning(
                Code::NotACrd,
                format!("skipped {what}: `crdgen import` reads CustomResourceDefinitions"),
            )
            .at(file, pos)
            .hint("give only CRD manifests, or ignore this for a directory of mixed manifests"),
        );
        return;
    }
    if api_version != API_VERSION {
        diags.push(
            Diagnostic::error(Code::NotACrd, format!("a CustomResourceDefinition of `{api_version}`, which crdgen import does not read"))
                .at(file, pos)
                .hint(format!("crdgen reads `{API_VERSION}` CRDs: apply the old one to a cluster and read it back with `kubectl get crd NAME -o yaml`")),
        );
        return;
    }
    // Read from the value, not a copy of it: schemas, most of a CRD, are not taken.
    match <Crd as serde::Deserialize>::deserialize(&value) {
        Ok(crd) => found.push(Found {
            crd,
            raw: value,
            file: file.to_owned(),
            pos,
        }),
        Err(e) => diags.push(
            Diagnostic::error(
                Code::NotACrd,
                format!("not a valid CustomResourceDefinition: {e}"),
            )
            .at(file, pos)
            .hint("a CRD has spec.group, spec.names (kind, plural), spec.scope and spec.versions"),
        ),
    }
}
