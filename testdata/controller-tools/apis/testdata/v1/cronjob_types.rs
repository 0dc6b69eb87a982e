use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize, Serializer};

/// CronJob is the Schema for the cronjobs API
///
/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct CronJob {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: CronJobSpec,
}

/// CronJobSpec defines the desired state of CronJob
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
    pub schedule: String,

    /// Optional deadline in seconds for starting the job if it misses scheduled
    /// time for any reason.  Missed jobs executions will be counted as failed ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// Specifies how to treat concurrent executions of a Job.
    /// Valid values are:
    /// - "Allow" (default): allows CronJobs to run concurrently;
    /// - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
    /// - "Replace": cancels currently running job and replaces it with a new one
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// Specifies how to treat concurrent executions of a Job.
    /// Valid values are:
    /// - "Allow" (default): allows CronJobs to run concurrently;
    /// - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
    /// - "Replace": cancels currently running job and replaces it with a new one
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k8s_concurrency_policy: Option<K8sConcurrencyPolicy>,

    /// This flag tells the controller to suspend subsequent executions, it does
    /// not apply to already started executions.  Defaults to false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// This tests that non-serialized fields aren't included in the schema.
    #[serde(skip)]
    pub internal_data: String,

    /// This flag is like suspend, but for when you really mean it.
    /// It helps test the +kubebuilder:validation:Type marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_really_suspend: Option<TotallyABool>,

    /// This tests byte slice schema generation.
    pub binary_name: ByteString,

    /// This tests that nullable works correctly
    /// +nullable
    pub can_be_null: String,

    /// The number of successful finished jobs to retain.
    /// This is a pointer to distinguish between explicit zero and not specified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// The number of failed finished jobs to retain.
    /// This is a pointer to distinguish between explicit zero and not specified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,

    /// This tests byte slices are allowed as map values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub byte_slice_data: BTreeMap<String, ByteString>,

    /// This tests string slices are allowed as map values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub string_slice_data: BTreeMap<String, Vec<String>>,

    /// This tests pointers are allowed as map values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ptr_data: BTreeMap<String, Option<String>>,

    /// This tests that markers that are allowed on both fields and types are applied to fields
    /// +kubebuilder:validation:MinLength=4
    pub two_of_a_kind_part0: String,

    /// This tests that markers that are allowed on both fields and types are applied to types
    pub two_of_a_kind_part1: LongerString,

    /// This tests that primitive defaulting can be performed.
    /// +kubebuilder:default=forty-two
    /// +kubebuilder:example=forty-two
    /// +kubebuilder:title=DefaultedString
    pub defaulted_string: String,

    /// This tests that slice defaulting can be performed.
    /// +kubebuilder:default={a,b}
    /// +kubebuilder:example={a,b}
    /// +kubebuilder:title=DefaultedSlice
    pub defaulted_slice: Vec<String>,

    /// This tests that slice and object defaulting can be performed.
    /// +kubebuilder:default={{nested: {foo: "baz", bar: true}},{nested: {foo: "qux", bar: false}}}
    /// +kubebuilder:example={{nested: {foo: "baz", bar: true}},{nested: {foo: "qux", bar: false}}}
    /// +kubebuilder:title="124"
    pub defaulted_object: Vec<RootObject>,

    /// This tests that empty slice defaulting can be performed.
    /// +kubebuilder:default={}
    /// +kubebuilder:title="{}"
    pub defaulted_empty_slice: Vec<String>,

    /// This tests that an empty object defaulting can be performed on a map.
    /// +kubebuilder:default={}
    pub defaulted_empty_map: BTreeMap<String, String>,

    /// This tests that an empty object defaulting can be performed on an object.
    /// +kubebuilder:default={}
    pub defaulted_empty_object: EmpiableObject,

    /// This tests that kubebuilder defaulting takes precedence.
    /// +kubebuilder:default="kubebuilder-default"
    /// +default="kubernetes-default"
    pub double_defaulted_string: String,

    /// This tests that primitive defaulting can be performed.
    /// +default="forty-two"
    pub kubernetes_defaulted_string: String,

    /// This tests that slice defaulting can be performed.
    /// +default=["a","b"]
    pub kubernetes_defaulted_slice: Vec<String>,

    /// This tests that slice and object defaulting can be performed.
    /// +default=[{"nested": {"foo": "baz", "bar": true}},{"nested": {"foo": "qux", "bar": false}}]
    pub kubernetes_defaulted_object: Vec<RootObject>,

    /// This tests that empty slice defaulting can be performed.
    /// +default=[]
    pub kubernetes_defaulted_empty_slice: Vec<String>,

    /// This tests that an empty object defaulting can be performed on a map.
    /// +default={}
    pub kubernetes_defaulted_empty_map: BTreeMap<String, String>,

    /// This tests that an empty object defaulting can be performed on an object.
    /// +default={}
    pub kubernetes_defaulted_empty_object: EmpiableObject,

    /// This tests that use of +default=ref(...) doesn't break generation
    /// +default=ref(DefaultRefValue)
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kubernetes_defaulted_ref: String,

    /// This tests that pattern validator is properly applied.
    /// +kubebuilder:validation:Pattern=`^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$`
    pub pattern_object: String,
}

/// ConcurrencyPolicy describes how the job will be handled.
/// Only one of the following concurrent policies may be specified.
/// If none of the following policies is specified, the default one
/// is AllowConcurrent.
/// +kubebuilder:validation:Enum=Allow;Forbid;Replace
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConcurrencyPolicy(pub String);

/// +k8s:enum
#[derive(Serialize, Deserialize)]
pub enum K8sConcurrencyPolicy {
    /// AllowK8sConcurrencyPolicy allows CronJobs to run concurrently.
    Allow,
    /// ForbidK8sConcurrencyPolicy forbids concurrent runs, skipping next run if previous
    /// hasn't finished yet.
    Forbid,
    /// ReplaceK8sConcurrencyPolicy cancels currently running job and replaces it with a new one.
    Replace,
}

/// +kubebuilder:validation:MinLength=4
/// This tests that markers that are allowed on both fields and types are applied to types
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct LongerString(pub String);

/// +kubebuilder:validation:Type=string
/// TotallyABool is a bool that serializes as a string.
#[derive(Deserialize)]
pub struct TotallyABool(pub bool);

impl Serialize for TotallyABool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(if self.0 { "true" } else { "false" })
    }
}

#[derive(Serialize, Deserialize)]
pub struct RootObject {
    pub nested: NestedObject,
}

#[derive(Serialize, Deserialize)]
pub struct NestedObject {
    pub foo: String,
    pub bar: bool,
}

#[derive(Serialize, Deserialize)]
pub struct EmpiableObject {
    /// +kubebuilder:default=forty-two
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub foo: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bar: String,
}
