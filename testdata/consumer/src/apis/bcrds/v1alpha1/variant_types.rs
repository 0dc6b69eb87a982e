//! One kind per `+genclient` verb filter.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// Only create, get and list; a status, but no status verbs. Its plural is set, as a Go
/// project sets it where flect's (`gizmoes`) is not the one wanted.
///
/// +genclient
/// +genclient:onlyVerbs=create,get,list
/// +genclient:noStatus
/// +kubebuilder:resource:path=gizmos
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gizmo {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

/// Read-only: get, list and watch.
///
/// +genclient
/// +genclient:readonly
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Doohickey {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: Option<String>,
}

/// No verbs at all: a client to extend by hand.
///
/// +genclient
/// +genclient:noVerbs
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Thingamajig {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
}
