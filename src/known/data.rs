//! `types.jsonl`, the facts `hack/update-known-types.sh` reads from the Kubernetes Go
//! source for every type of k8s-openapi and every Kubernetes version it supports, one
//! JSON value a line: the versions and sources, then k8s-openapi's paths, then one line
//! per Go type, `["<go type>",[<facts>…]]`, sorted by name. Each part is parsed when first
//! needed, and a Go type's line alone: a run that embeds no Kubernetes type reads none of
//! it, and one that does finds a type's line without parsing the 2.5 MB around it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::version::{KubeVersion, Versions};

const TEXT: &str = include_str!("types.jsonl");

#[derive(Deserialize)]
struct Header {
    versions: Vec<String>,
}

#[derive(Deserialize)]
struct Paths {
    /// k8s-openapi's Rust path → the Go type it is, by the versions it exists in.
    rust: BTreeMap<String, Vec<RustType>>,
}

/// The file's first line, its second, and the rest: each part is looked at only when
/// something needs it (the versions alone read the first line).
fn parts() -> (&'static str, &'static str, &'static str) {
    let (header, rest) = TEXT.split_once('\n').expect("types.jsonl has its header");
    let (paths, types) = rest.split_once('\n').expect("types.jsonl has its paths");
    (header, paths, types)
}

/// Each Go type's name and facts (the JSON of its runs of versions that agree), in name
/// order, found by line without parsing the facts.
fn types() -> &'static [(&'static str, &'static str)] {
    static TYPES: OnceLock<Vec<(&str, &str)>> = OnceLock::new();
    TYPES.get_or_init(|| {
        parts()
            .2
            .lines()
            .map(|line| {
                line.strip_prefix("[\"")
                    .and_then(|l| l.strip_suffix(']'))
                    .and_then(|l| l.split_once("\","))
                    .expect("a type line is [\"name\",facts]")
            })
            .collect()
    })
}

fn header() -> &'static Header {
    static HEADER: OnceLock<Header> = OnceLock::new();
    HEADER.get_or_init(|| serde_json::from_str(parts().0).expect("types.jsonl's header is valid"))
}

fn paths() -> &'static Paths {
    static PATHS: OnceLock<Paths> = OnceLock::new();
    PATHS.get_or_init(|| serde_json::from_str(parts().1).expect("types.jsonl's paths are valid"))
}

#[derive(Deserialize)]
pub struct RustType {
    pub go: String,
    #[serde(rename = "in")]
    pub versions: Versions,
}

/// The facts of one Go type over a run of versions.
#[derive(Deserialize)]
pub struct GoTypeFacts {
    #[serde(rename = "in")]
    pub versions: Versions,
    #[serde(default)]
    pub doc: String,
    /// Markers on the type, without their `+`.
    #[serde(default)]
    pub markers: Vec<String>,
    /// `MarshalJSON` / `MarshalText`, where the type has its own.
    #[serde(default)]
    pub marshals: Vec<String>,
    /// A struct's fields; absent for a type defined as another (`type Protocol string`).
    pub fields: Option<Vec<GoField>>,
    /// The Go type a non-struct type is defined as.
    #[serde(rename = "type")]
    pub underlying: Option<String>,
}

#[derive(Deserialize)]
pub struct GoField {
    /// The Go field name (an embedded field's is its type's).
    pub go: String,
    /// The `json:"..."` tag, absent where the field has none.
    pub json: Option<String>,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default)]
    pub doc: String,
    #[serde(default)]
    pub markers: Vec<String>,
}

impl KubeVersion {
    /// Every version crdgen has the types of, as `1.33, 1.34, …`.
    pub fn supported() -> String {
        let all: Vec<String> = versions().map(|v| v.to_string()).collect();
        all.join(", ")
    }

    /// Whether crdgen has this version's types.
    pub fn is_supported(self) -> bool {
        versions().any(|v| v == self)
    }
}

/// The Kubernetes versions the facts cover, oldest first.
pub fn versions() -> impl Iterator<Item = KubeVersion> {
    header()
        .versions
        .iter()
        .map(|v| v.parse().expect("types.jsonl names versions as 1.NN"))
}

/// The Go types a k8s-openapi path is, by version.
pub fn rust(path: &str) -> Option<&'static [RustType]> {
    paths().rust.get(path).map(Vec::as_slice)
}

/// Every k8s-openapi path.
pub fn rust_paths() -> impl Iterator<Item = &'static str> {
    paths().rust.keys().map(String::as_str)
}

/// Every run of versions of a Go type's facts; `None` for a type the data lacks.
pub fn go_type(name: &str) -> Option<Vec<GoTypeFacts>> {
    let types = types();
    let at = types.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    Some(serde_json::from_str(types[at].1).expect("src/known/types.jsonl is generated valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_supported_versions_are_k8s_openapis() {
        assert_eq!(KubeVersion::supported(), "1.33, 1.34, 1.35, 1.36, 1.37");
        assert_eq!(versions().last(), Some(KubeVersion::latest()));
        assert!(!"1.20".parse::<KubeVersion>().unwrap().is_supported());
    }

    #[test]
    fn every_go_type_parses_and_every_rust_type_has_its_go_type() {
        let names: Vec<&str> = types().iter().map(|(n, _)| *n).collect();
        assert!(names.is_sorted(), "type lines in name order");
        for name in &names {
            assert!(!go_type(name).unwrap().is_empty(), "{name}");
        }
        let without: Vec<&str> = rust_paths()
            .filter(|p| {
                rust(p)
                    .unwrap()
                    .iter()
                    .any(|r| !names.contains(&r.go.as_str()))
            })
            .collect();
        // k8s-openapi's 1.37 is from after the last snapshot of k8s.io/api read, which
        // lacks this one type (hack/update-known-types.sh says which Go types it missed).
        assert_eq!(
            without,
            [
                "k8s_openapi::api::resource::v1::DeviceDerivedAttribute",
                "k8s_openapi::api::resource::v1beta1::DeviceDerivedAttribute",
                "k8s_openapi::api::resource::v1beta2::DeviceDerivedAttribute",
            ]
        );
    }
}
