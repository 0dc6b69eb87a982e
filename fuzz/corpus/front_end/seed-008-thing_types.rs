use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A thing, described by kube-derive and by crdgen.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "derived.example.com",
    version = "v1",
    kind = "Thing",
    namespaced,
    status = "ThingStatus",
    shortname = "th",
    printcolumn = r#"{"name":"Size","type":"string","jsonPath":".spec.size"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ThingSpec {
    /// How many.
    pub replicas: i32,
    /// Its name.
    pub display_name: String,
    pub paused: Option<bool>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    pub size: ThingSize,
    pub part: Part,
}

/// How big.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum ThingSize {
    Small,
    Large,
}

/// One part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Part {
    pub name: String,
    pub weight: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThingStatus {
    pub observed_generation: Option<i64>,
    pub ready: bool,
}
