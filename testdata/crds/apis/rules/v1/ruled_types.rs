use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +genclient
/// +kubebuilder:subresource:status
/// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 20",message="a Ruled's name is at most 20 characters"
#[derive(Debug, Serialize, Deserialize)]
pub struct Ruled {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: RuledSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RuledStatus>,
}

/// Rules on an object, a one-of group of each kind, and rules below it on scalars,
/// list items and map values.
///
/// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",fieldPath=".minReplicas"
/// +kubebuilder:validation:ExactlyOneOf=image;build
/// +kubebuilder:validation:AtMostOneOf=cpu;gpu
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuledSpec {
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// A transition rule: checked on updates only.
    ///
    /// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="replicas may not shrink",reason=FieldValueForbidden
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// +k8s:immutable
    pub class_name: String,
    /// Immutable and optional: it may not change, nor be taken away once set.
    ///
    /// +k8s:immutable
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// A rule on every item.
    ///
    /// +kubebuilder:validation:MaxItems=16
    /// +kubebuilder:validation:items:MaxLength=256
    /// +kubebuilder:validation:items:XValidation:rule="self.startsWith('/')",message="paths must be absolute"
    #[serde(default)]
    pub paths: Vec<String>,
    /// A rule on every value (the Limit type's).
    ///
    /// +kubebuilder:validation:MaxProperties=8
    #[serde(default)]
    pub limits: BTreeMap<String, Limit>,
    /// A message computed from the value.
    ///
    /// +kubebuilder:validation:MaxItems=10
    /// +kubebuilder:validation:items:MaxLength=63
    /// +kubebuilder:validation:XValidation:rule="self.size() <= 3",messageExpression="'at most 3 owners; the first is ' + self[0]"
    #[serde(default)]
    pub owners: Vec<String>,
    /// A map list: each port is matched with its old self by name, so its own
    /// transition rule runs.
    ///
    /// +listType=map
    /// +listMapKey=name
    /// +kubebuilder:validation:MaxItems=8
    #[serde(default)]
    pub ports: Vec<Port>,
    /// A rule that runs on creates too (`optionalOldSelf`), with `oldSelf` none there.
    ///
    /// +kubebuilder:validation:MaxLength=16
    /// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self != 'gold'",message="a Ruled is not created gold",optionalOldSelf=true
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Port {
    /// +kubebuilder:validation:MaxLength=15
    pub name: String,
    /// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="a port's number may only grow"
    pub number: i32,
}

/// +kubebuilder:validation:XValidation:rule="self.min <= self.max",message="min must not exceed max"
#[derive(Debug, Serialize, Deserialize)]
pub struct Limit {
    pub min: i64,
    pub max: i64,
}

/// Rules on status are checked on writes to the status subresource.
///
/// +kubebuilder:validation:XValidation:rule="self.ready <= self.total",message="ready must not exceed total"
#[derive(Debug, Serialize, Deserialize)]
pub struct RuledStatus {
    pub ready: i32,
    pub total: i32,
}
