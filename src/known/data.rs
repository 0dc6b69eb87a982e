//! `types.json`, the facts `hack/update-known-types.sh` reads from the Kubernetes Go
//! source for every type of k8s-openapi and every Kubernetes version it supports. A type
//! is parsed from its raw JSON the first time a schema needs it: a run touches a few
//! dozen of the thousand.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::version::{KubeVersion, Versions};

#[derive(Deserialize)]
struct Data {
    versions: Vec<String>,
    /// k8s-openapi's Rust path → the Go type it is, by the versions it exists in.
    rust: BTreeMap<String, Vec<RustType>>,
    /// Go type (`k8s.io/api/core/v1.PodSpec`) → its facts, one entry per run of
    /// versions that agree; borrowed from the embedded text, read when first needed.
    #[serde(borrow)]
    types: BTreeMap<&'static str, &'static RawValue>,
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

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        serde_json::from_str(include_str!("types.json"))
            .expect("src/known/types.json is generated valid")
    })
}

/// The Kubernetes versions the facts cover, oldest first.
pub fn versions() -> impl Iterator<Item = KubeVersion> {
    data()
        .versions
        .iter()
        .map(|v| v.parse().expect("types.json names versions as 1.NN"))
}

/// The Go types a k8s-openapi path is, by version.
pub fn rust(path: &str) -> Option<&'static [RustType]> {
    data().rust.get(path).map(Vec::as_slice)
}

/// Every k8s-openapi path.
pub fn rust_paths() -> impl Iterator<Item = &'static str> {
    data().rust.keys().map(String::as_str)
}

/// Every run of versions of a Go type's facts; `None` for a type the data lacks.
pub fn go_type(name: &str) -> Option<Vec<GoTypeFacts>> {
    let raw = data().types.get(name)?;
    Some(serde_json::from_str(raw.get()).expect("src/known/types.json is generated valid"))
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
        for name in data().types.keys() {
            assert!(!go_type(name).unwrap().is_empty(), "{name}");
        }
        let without: Vec<&str> = rust_paths()
            .filter(|p| {
                rust(p)
                    .unwrap()
                    .iter()
                    .any(|r| !data().types.contains_key(r.go.as_str()))
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
