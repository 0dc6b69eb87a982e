//! `types.jsonl`, the facts `hack/update-known-types.sh` reads from the Kubernetes Go
//! source for every type of k8s-openapi and every Kubernetes version it supports, one
//! JSON value a line: the versions and sources, then k8s-openapi's paths, then one line
//! per Go type, `["<go type>",[<facts>…]]`, sorted by name. Each part is parsed when first
//! needed, and a Go type's line alone: a run that embeds no Kubernetes type reads none of
//! it, and one that does finds a type's line by a binary search over the text, reading
//! a few lines of the 2.5 MB around it (its pages are mapped from the binary, and only
//! those touched are read in).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock, PoisonError};

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
    static PARTS: OnceLock<(&str, &str, &str)> = OnceLock::new();
    *PARTS.get_or_init(|| {
        let (header, rest) = TEXT.split_once('\n').expect("types.jsonl has its header");
        let (paths, types) = rest.split_once('\n').expect("types.jsonl has its paths");
        (header, paths, types)
    })
}

/// A type line's name and facts (the JSON of its runs of versions that agree).
fn type_line(line: &str) -> (&str, &str) {
    line.strip_prefix("[\"")
        .and_then(|l| l.strip_suffix(']'))
        .and_then(|l| l.split_once("\","))
        .expect("a type line is [\"name\",facts]")
}

/// The facts of the type line named `name`, by a binary search over the lines' bytes:
/// each probe reads the line its midpoint falls in.
fn find_type(name: &str) -> Option<&'static str> {
    let text = parts().2;
    let (mut low, mut high) = (0, text.len());
    while low < high {
        let middle = low + (high - low) / 2;
        // The line around `middle`: from the byte after the newline before it.
        let start = text[..middle].rfind('\n').map_or(0, |i| i + 1).max(low);
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let (line_name, facts) = type_line(&text[start..end]);
        match line_name.cmp(name) {
            std::cmp::Ordering::Equal => return Some(facts),
            std::cmp::Ordering::Less => low = end + 1,
            std::cmp::Ordering::Greater => high = start,
        }
    }
    None
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

/// The Go types a k8s-openapi path is, by version: its entry found in the paths' line by
/// its key, and only that entry parsed (the line is 110 KB), once a process: every field
/// of a Kubernetes type asks.
pub fn rust(path: &str) -> Option<Vec<RustType>> {
    type Found = HashMap<String, Option<&'static str>>;
    static FOUND: OnceLock<Mutex<Found>> = OnceLock::new();
    let mut found = FOUND
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let entry = *found.entry(path.to_owned()).or_insert_with(|| {
        let line = parts().1;
        let key = format!("{}:[", serde_json::to_string(path).ok()?);
        line.find(&key).map(|at| &line[at + key.len() - 1..])
    });
    drop(found);
    let mut entries = serde_json::Deserializer::from_str(entry?).into_iter();
    Some(
        entries
            .next()?
            .expect("src/known/types.jsonl is generated valid"),
    )
}

/// Every k8s-openapi path.
pub fn rust_paths() -> impl Iterator<Item = &'static str> {
    paths().rust.keys().map(String::as_str)
}

/// Every run of versions of a Go type's facts; `None` for a type the data lacks.
pub fn go_type(name: &str) -> Option<Vec<GoTypeFacts>> {
    let facts = find_type(name)?;
    Some(serde_json::from_str(facts).expect("src/known/types.jsonl is generated valid"))
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
        let names: Vec<&str> = parts().2.lines().map(|l| type_line(l).0).collect();
        assert!(names.is_sorted(), "type lines in name order");
        for name in &names {
            assert!(!go_type(name).unwrap().is_empty(), "{name}");
        }
        // Each path's entry, found by its key alone, is the one the whole line has.
        let described = |types: &[RustType]| -> Vec<String> {
            types
                .iter()
                .map(|t| format!("{} in {}", t.go, t.versions))
                .collect()
        };
        for (path, types) in &paths().rust {
            assert_eq!(described(&rust(path).unwrap()), described(types), "{path}");
        }
        assert!(rust("k8s_openapi::api::core::v1::Po").is_none());
        // Between, before and after the names: none.
        for absent in ["", "a", "k8s.io/api/core/v1.Pod0", "zzz"] {
            assert!(find_type(absent).is_none(), "{absent}");
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
