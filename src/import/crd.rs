//! The parts of a CustomResourceDefinition that `crdgen import` turns into Rust and
//! markers, read from its JSON form. Schemas stay JSON: they are walked, not typed.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// The apiVersion and kind of what `crdgen import` reads.
pub const API_VERSION: &str = "apiextensions.k8s.io/v1";
pub const KIND: &str = "CustomResourceDefinition";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Crd {
    #[serde(default)]
    pub metadata: Metadata,
    pub spec: Spec,
}

#[derive(Default, Deserialize)]
pub struct Metadata {
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    pub group: String,
    pub names: Names,
    pub scope: String,
    pub versions: Vec<Version>,
    pub conversion: Option<Conversion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    pub kind: String,
    pub plural: String,
    pub singular: Option<String>,
    #[serde(default)]
    pub short_names: Vec<String>,
    #[serde(default)]
    pub categories: Vec<String>,
    pub list_kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    #[serde(default)]
    pub deprecated: bool,
    pub deprecation_warning: Option<String>,
    pub schema: Option<Schema>,
    #[serde(default)]
    pub subresources: Subresources,
    #[serde(default)]
    pub additional_printer_columns: Vec<Column>,
    #[serde(default)]
    pub selectable_fields: Vec<SelectableField>,
}

/// That a version has a schema: the schema itself is read where the CRD as read has it
/// ([`super::read::Found::schema`]), not copied.
#[derive(Deserialize)]
pub struct Schema {
    #[serde(rename = "openAPIV3Schema")]
    _present: serde::de::IgnoredAny,
}

#[derive(Default, Deserialize)]
pub struct Subresources {
    pub status: Option<Value>,
    pub scale: Option<Scale>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
    pub label_selector_path: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub json_path: String,
    pub description: Option<String>,
    pub format: Option<String>,
    pub priority: Option<i32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectableField {
    pub json_path: String,
}

#[derive(Deserialize)]
pub struct Conversion {
    pub strategy: String,
}
