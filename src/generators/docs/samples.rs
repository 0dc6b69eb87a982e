//! The samples under `config/samples`, shown beside their kinds in the reference, and
//! each first admitted as the apiserver would admit it (defaults, pruning, schema, CEL
//! rules): a sample the kind's CRD refuses is stale, and fails the run (E0048).

use serde_json::Value;

use super::reference::Sample;
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::known::KubeVersion;
use crate::source::SourceFile;

/// One document of a samples file.
pub struct Document {
    /// The file, as diagnostics show it (relative to the output base).
    file: String,
    /// Its first line in the file.
    line: usize,
    /// Its own text, without the `---` around it.
    text: String,
    value: Value,
}

impl Document {
    fn is(&self, api_version: &str, kind: &str) -> bool {
        self.value["apiVersion"] == api_version && self.value["kind"] == kind
    }
}

/// Every document of the samples files (read with the input), in file order.
pub fn documents_of(files: &[SourceFile], diags: &mut Diagnostics) -> Vec<Document> {
    let mut out = Vec::new();
    for file in files {
        documents(&file.path, &file.text, &mut out, diags);
    }
    out
}

fn documents(file: &str, text: &str, out: &mut Vec<Document>, diags: &mut Diagnostics) {
    let starts = crate::yaml::document_lines(text);
    let lines: Vec<&str> = text.lines().collect();
    for (i, document) in crate::yaml::parse_documents(text).into_iter().enumerate() {
        let line = starts.get(i).copied().unwrap_or(1);
        match document {
            Ok(value) if value.is_object() => {
                let own: Vec<&str> = lines
                    .iter()
                    .skip(line - 1)
                    .take_while(|l| !l.starts_with("---"))
                    .copied()
                    .collect();
                let own = own.join("\n");
                out.push(Document {
                    file: file.to_owned(),
                    line,
                    text: format!("{}\n", own.trim_end()),
                    value,
                });
            }
            Ok(_) => {}
            Err(e) => {
                let pos =
                    e.at.map_or(Pos { line, col: 1 }, |(line, col)| Pos { line, col });
                diags.push(
                    Diagnostic::error(
                        Code::BadSample,
                        format!("sample `{file}` is not valid YAML: {}", e.message),
                    )
                    .at(file, pos)
                    .hint("samples are YAML documents, `---` between them"),
                );
            }
        }
    }
}

/// The samples of one kind's version (`apiVersion` and `kind` as a manifest writes
/// them), each checked against that version's `schema` as Kubernetes `kube_version`
/// admits objects; what it refuses is an error at the field it names.
pub fn of_kind(
    samples: &[Document],
    (api_version, kind): (&str, &str),
    schema: &Value,
    kube_version: KubeVersion,
    diags: &mut Diagnostics,
) -> Vec<Sample> {
    let mine: Vec<&Document> = samples.iter().filter(|d| d.is(api_version, kind)).collect();
    if mine.is_empty() {
        return Vec::new();
    }
    let admit = admission(schema, kube_version);
    mine.into_iter()
        .map(|sample| {
            for (field, message) in admit(&sample.value) {
                let steps: Vec<crate::yaml::Step> = field
                    .split('.')
                    // A list's items are placed at the list.
                    .map_while(|step| (!step.contains('[')).then_some(step))
                    .map(crate::yaml::Step::Key)
                    .collect();
                let (line, col) = crate::yaml::place(&sample.text, 1, &steps);
                diags.push(
                    Diagnostic::error(Code::BadSample, format!("sample of {kind} {api_version}: {message}"))
                        .at(&sample.file, Pos { line: sample.line + line - 1, col })
                        .hint("update the sample to the kind's schema (or the schema, if the sample is right)"),
                );
            }
            Sample {
                file: sample.file.clone(),
                text: sample.text.clone(),
            }
        })
        .collect()
}

/// What the apiserver answers a create of an object with, by `schema`: each refusal's
/// field path and its words.
#[cfg(feature = "cli")]
fn admission(
    schema: &Value,
    kube_version: KubeVersion,
) -> impl Fn(&Value) -> Vec<(String, String)> {
    let validator =
        crdgen_runtime::crd::Validator::new(schema).for_kubernetes(kube_version.minor());
    move |object: &Value| match validator.validate(object, None) {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .iter()
            .map(|e| (e.field.to_string(), e.to_string()))
            .collect(),
    }
}

/// Without the command line's validator (a build script's crdgen), a sample cannot be
/// admitted: each is refused, saying so, rather than shown unchecked.
#[cfg(not(feature = "cli"))]
fn admission(_: &Value, _: KubeVersion) -> impl Fn(&Value) -> Vec<(String, String)> {
    |_: &Value| {
        vec![(
            String::new(),
            "samples are checked by the crdgen command line (its `cli` feature); run `crdgen generate-groups docs ...`".to_owned(),
        )]
    }
}
