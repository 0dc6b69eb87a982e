use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{LocalObjectReference, ObjectReference, PodTemplateSpec, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
#[derive(Debug, Serialize, Deserialize)]
pub struct Mapped {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: MappedSpec,
}

/// Every Rust type crdgen maps, once.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappedSpec {
    pub text: String,
    pub flag: bool,
    pub small: i8,
    pub int32: i32,
    pub int64: i64,
    pub unsigned: u32,
    pub big: u64,
    pub size: usize,
    pub float: f32,
    pub double: f64,
    pub maybe: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absent_when_none: Option<i32>,
    pub list: Vec<String>,
    pub set: BTreeSet<String>,
    pub map: BTreeMap<String, i32>,
    pub hash: HashMap<String, Nested>,
    pub nested: Nested,
    pub boxed: Box<Nested>,
    pub mode: Mode,
    pub action: Action,
    pub shape: Shape,
    pub reference: Reference,
    pub id: Id,
    pub any: serde_json::Value,
    #[serde(flatten)]
    pub extra: Extra,
    #[serde(default)]
    pub defaulted: i32,
    #[serde(skip)]
    pub skipped: i32,
    #[serde(rename = "RENAMED")]
    pub renamed: i32,
    pub pair: Pair<i64>,
    pub timeout: kube::core::Duration,
    pub template: PodTemplateSpec,
    pub quantity: Quantity,
    pub target_port: IntOrString,
    pub since: Time,
    pub renewed: MicroTime,
    pub conditions: Vec<Condition>,
    pub selector: LabelSelector,
    pub owner: ObjectReference,
    pub secret: LocalObjectReference,
    pub resources: ResourceRequirements,
    pub tolerations: Vec<Toleration>,
    pub bytes: ByteString,
    pub fixed: [u8; 4],
    pub replicas: Replicas,
    pub pairs: Pairs<i32>,
    /// An alias's bound and the field's own, both kept.
    /// +kubebuilder:validation:MaxItems=4
    pub few_pairs: Pairs<i64>,
    pub replica_counts: Vec<Replicas>,
    pub nested_aliases: Option<Labels>,
    /// A type crdgen does not know, its JSON form declared.
    /// +kubebuilder:validation:Type=string
    /// +kubebuilder:validation:Format=date-time
    pub declared: std::time::SystemTime,
    /// A `with` module crdgen does not know: what the markers say.
    /// +kubebuilder:validation:Type=integer
    #[serde(with = "my_crate::as_seconds")]
    pub written_with: std::time::Duration,
}

// Aliases: fields of these types are fields of the types they name, with the alias's
// docs and markers.

/// How many copies run: at least one.
/// +kubebuilder:validation:Minimum=1
pub type Replicas = i32;
pub type Labels = BTreeMap<String, String>;
/// +kubebuilder:validation:MaxItems=8
pub type Pairs<T> = Vec<Pair<T>>;

/// A nested object.
#[derive(Debug, Serialize, Deserialize)]
pub struct Nested {
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
}

/// A unit enum: a string enum of the renamed variants.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    FastPath,
    #[serde(rename = "careful")]
    SafeMode,
    #[serde(skip)]
    Internal,
}

/// Internally tagged.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Action {
    Scale { replicas: i32 },
    Restart { reason: String },
}

/// Externally tagged, with data.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Shape {
    Circle { radius: f64 },
    Square(Side),
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Side {
    pub length: f64,
}

/// Untagged objects.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reference {
    ByName { name: String },
    ById { id: i64 },
}

/// A newtype.
#[derive(Debug, Serialize, Deserialize)]
pub struct Id(pub String);

/// Fields flattened into the spec.
#[derive(Debug, Serialize, Deserialize)]
pub struct Extra {
    pub flattened: String,
}

/// A generic type, used as `Pair<i64>`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pair<T> {
    pub left: T,
    pub right: T,
}
