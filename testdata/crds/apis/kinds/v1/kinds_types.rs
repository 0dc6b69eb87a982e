use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use kube::core::Rule;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// A cluster-scoped kind with every kind-level marker.
///
/// +genclient
/// +genclient:nonNamespaced
/// +kubebuilder:resource:path=clusterthings,singular=clusterthing,shortName=ct;cts,categories=crdgen;all,scope=Cluster
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
/// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas",description="desired replicas",priority=1
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
/// +kubebuilder:selectablefield:JSONPath=".spec.tier"
/// +kubebuilder:metadata:annotations="crdgen.dev/owner=ops",labels="tier=core"
#[derive(Debug, Serialize, Deserialize)]
pub struct ClusterThing {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ThingStatus>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThingSpec {
    pub replicas: i32,
    pub tier: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThingStatus {
    pub replicas: i32,
    pub selector: String,
}

/// The same effects through kube-derive's attributes.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[kube(
    group = "kinds.crdgen.dev",
    version = "v1",
    kind = "Derived",
    namespaced,
    status = "ThingStatus",
    shortname = "dv",
    category = "crdgen",
    printcolumn = r#"{"name":"Tier","type":"string","jsonPath":".spec.tier"}"#,
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas", priority = 1),
    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"),
    selectable = ".spec.tier",
    annotation("crdgen.dev/style", "derive"),
    label("tier", "core"),
    validation = "self.spec.replicas >= 0",
    validation = Rule::new("self.spec.tier != ''").message("a tier is required"),
    doc = "A thing, declared through kube-derive.",
    deprecated = "use ClusterThing"
)]
pub struct DerivedSpec {
    pub replicas: i32,
    pub tier: String,
}
