use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// +genclient
/// +kubebuilder:subresource:status
#[derive(Debug, Serialize, Deserialize)]
pub struct Validated {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ValidatedSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ValidatedStatus>,
}

/// Every validation marker, once.
///
/// +kubebuilder:validation:XValidation:rule="self.name != 'forbidden'",message="that name is taken",reason=FieldValueForbidden,fieldPath=".name"
/// +kubebuilder:validation:MinProperties=1
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatedSpec {
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=10
    /// +kubebuilder:validation:ExclusiveMaximum=true
    /// +kubebuilder:validation:MultipleOf=2
    pub min_replicas: i32,
    /// +kubebuilder:validation:Minimum=0.5
    /// +kubebuilder:validation:ExclusiveMinimum=true
    pub ratio: f64,
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=63
    /// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
    pub name: String,
    /// +kubebuilder:validation:Enum=Always;Never;IfNotPresent
    /// +kubebuilder:default=Always
    pub policy: String,
    /// +kubebuilder:validation:Enum=1;2;3
    pub level: i32,
    /// +kubebuilder:validation:Format=email
    /// +kubebuilder:example="ops@example.com"
    pub contact: String,
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:MaxItems=5
    /// +kubebuilder:validation:UniqueItems=false
    /// +listType=set
    /// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
    /// +kubebuilder:validation:items:MaxLength=10
    pub tags: Vec<String>,
    /// +listType=map
    /// +listMapKey=name
    /// +listMapKey=protocol
    pub ports: Vec<Port>,
    /// +listType=atomic
    pub args: Vec<String>,
    /// +kubebuilder:validation:MinProperties=1
    /// +kubebuilder:validation:MaxProperties=3
    /// +mapType=atomic
    pub selector: BTreeMap<String, String>,
    /// +structType=atomic
    pub primary: Port,
    /// +nullable
    /// +optional
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// +kubebuilder:validation:Nullable
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// +kubebuilder:validation:XIntOrString
    pub max_surge: String,
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:pruning:PreserveUnknownFields
    pub raw: Opaque,
    /// An embedded object of any kind, as controller-gen writes runtime.RawExtension.
    ///
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:validation:Type=object
    /// +kubebuilder:validation:XEmbeddedResource
    /// +kubebuilder:validation:XPreserveUnknownFields
    pub template: Opaque,
    /// +kubebuilder:validation:EmbeddedResource
    /// +kubebuilder:pruning:PreserveUnknownFields
    pub resource: Embedded,
    /// +kubebuilder:validation:Type=string
    /// +kubebuilder:validation:Format=date-time
    pub since: i64,
    /// +kubebuilder:title=Weight
    /// +kubebuilder:default=5
    /// +kubebuilder:validation:Optional
    pub weight: i32,
    /// +required
    #[serde(default)]
    pub owner: String,
    /// +kubebuilder:validation:Required
    #[serde(default)]
    pub team: String,
    /// +kubebuilder:default={name: http, port: 80, protocol: TCP}
    #[serde(default)]
    pub fallback: Option<Port>,
    /// Strings that a YAML 1.1 reader (kubectl, the apiserver) takes for booleans unless
    /// the CRD quotes them.
    /// +kubebuilder:validation:Enum=on;off
    /// +kubebuilder:default=on
    #[serde(default)]
    pub switch: Option<String>,
    /// String validations on an int-or-string value, as on Kubernetes' resource limits.
    /// +kubebuilder:validation:Pattern=`^[0-9]+(Mi|Gi)?$`
    /// +kubebuilder:validation:MaxLength=8
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    /// Enum items are strings as written, quoted or not: `*` as Gateway API allows it.
    /// +kubebuilder:validation:items:Enum=GET;POST;"*"
    #[serde(default)]
    pub methods: Vec<String>,
    /// +kubebuilder:validation:Enum="1.10";1e3;0x1F
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// metav1.Condition, validated as its Go source's markers say (src/known/validations.json).
    ///
    /// +listType=map
    /// +listMapKey=type
    #[serde(default)]
    pub conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,
}

/// A port, keyed by name and protocol.
#[derive(Debug, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=65535
    pub port: i32,
    /// +kubebuilder:default=TCP
    #[serde(default)]
    pub protocol: String,
}

/// An embedded Kubernetes object.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Embedded {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
}

/// Anything: crdgen has no schema for it, Schemaless says it needs none.
#[derive(Debug, Serialize, Deserialize)]
pub struct Opaque(pub std::collections::HashMap<String, std::rc::Rc<String>>);

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatedStatus {
    pub observed_generation: Option<i64>,
}
