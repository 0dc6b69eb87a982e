use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize, Serializer};

use super::corev1::IPFamilyPolicyType;

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:singular=mycronjob
/// +kubebuilder:storageversion
/// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=https://github.com/kubernetes-sigs/controller-tools";"cert-manager.io/inject-ca-from-secret=cert-manager/cert-manager-webhook-ca"
/// +kubebuilder:selectablefield:JSONPath=`.spec.selectableFieldString`
///
/// CronJob is the Schema for the cronjobs API
#[derive(Serialize, Deserialize)]
pub struct CronJob {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<CronJobSpec>,
    #[serde(default)]
    pub status: CronJobStatus,
}

/// CronJobSpec defines the desired state of CronJob
/// +kubebuilder:validation:XValidation:rule="has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",message="forbiddenInt is not allowed",fieldPath=".forbiddenInt",reason="FieldValueForbidden"
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

    /// Specifies the job that will be created when executing a CronJob.
    pub job_template: JobTemplateSpec,

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
    /// +kubebuilder:validation:EmbeddedResource
    pub embedded_resource: RawExtension,

    /// +kubebuilder:pruning:PreserveUnknownFields
    #[serde(rename = "unprunedJSON")]
    pub unpruned_json: NestedObject,

    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +kubebuilder:validation:EmbeddedResource
    pub unpruned_embedded_resource: RawExtension,

    /// This tests that a type-level pruning marker works.
    #[serde(rename = "unprunedFomType")]
    pub unpruned_from_type: Preserved,

    /// This tests that a type-level pruning marker combined with a field-level pruning marker works.
    /// +kubebuilder:pruning:PreserveUnknownFields
    #[serde(rename = "unprunedFomTypeAndField")]
    pub unpruned_from_type_and_field: Preserved,

    /// This tests that associative lists work.
    /// +listType=map
    /// +listMapKey=name
    /// +listMapKey=secondary
    pub associative_list: Vec<AssociativeType>,

    /// This tests that associative lists work using the +k8s:listType alias.
    /// +k8s:listType=map
    /// +k8s:listMapKey=name
    pub k8s_associative_list: Vec<AssociativeType>,

    /// This tests that +k8s:listType=set works.
    /// +k8s:listType=set
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub k8s_set_list: Vec<String>,

    /// This tests that +k8s:listType=atomic works.
    /// +k8s:listType=atomic
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub k8s_atomic_list: Vec<String>,

    /// This tests that associative lists work via a nested type.
    #[serde(rename = "nestedassociativeList")]
    pub nested_associative_list: NestedAssociativeList,

    /// This tests that associative lists work via a nested type using the +k8s:listType alias.
    pub k8s_nested_associative_list: K8sNestedAssociativeList,

    /// A map that allows different actors to manage different fields
    /// +mapType=granular
    pub map_of_info: BTreeMap<String, ByteString>,

    /// A map that allows different actors to manage different fields via a nested type.
    pub nested_map_of_info: NestedMapOfInfo,

    /// A struct that can only be entirely replaced
    /// +structType=atomic
    pub struct_with_several_fields: NestedObject,

    /// A struct that can only be entirely replaced via a nested type.
    pub nested_struct_with_several_fields: NestedStructWithSeveralFields,

    /// A struct that can only be entirely replaced via a nested type and
    /// field markers.
    /// +structType=atomic
    pub nested_struct_with_several_fields_double_marked: NestedStructWithSeveralFields,

    /// This tests that type references are properly flattened
    #[serde(skip_serializing_if = "Option::is_none")]
    pub just_nested_object: Option<JustNestedObject>,

    /// This tests explicitly optional kubebuilder fields
    /// +kubebuilder:validation:Optional
    pub explicitly_optional_kubebuilder: String,

    /// This tests explicitly optional kubernetes fields
    /// +optional
    pub explicitly_optional_kubernetes: String,

    /// This tests explicitly optional k8s fields
    /// +k8s:optional
    pub explicitly_optional_k8s: String,

    /// This tests explicitly required kubebuilder fields
    /// +kubebuilder:validation:Required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explicitly_required_kubebuilder: String,

    /// This tests explicitly required kubernetes fields
    /// +required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explicitly_required_kubernetes: String,

    /// This tests explicitly required k8s fields
    /// +k8s:required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explicitly_required_k8s: String,
    /// This tests that min/max properties work
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_max_properties: Option<MinMaxObject>,

    /// This tests that the schemaless marker works
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:validation:Type=string
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schemaless: Option<ByteString>,

    /// This tests that an IntOrString can also have string validation.
    /// This can be useful if you want to limit the string to a percentage or integer.
    /// The XIntOrString marker is a requirement for having a pattern on this type.
    /// +kubebuilder:validation:XIntOrString
    /// +kubebuilder:validation:MaxLength=11
    /// +kubebuilder:validation:MinLength=2
    /// +kubebuilder:validation:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int_or_string_with_a_pattern: Option<IntOrString>,

    /// This tests that an IntOrString can have enum validation.
    /// The XIntOrString marker is required for applying enum to IntOrString.
    /// +kubebuilder:validation:XIntOrString
    /// +kubebuilder:validation:Enum=1;2;"foo";"bar"
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int_or_string_with_enum: Option<IntOrString>,

    /// Checks that nested maps work
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested_map: BTreeMap<String, BTreeMap<String, String>>,

    /// Checks that multiply-nested maps work
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested_nested_map: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>,

    /// Checks that maps containing types that contain maps work
    #[serde(rename = "nestedMapInStruct", default, skip_serializing_if = "BTreeMap::is_empty")]
    pub contains_nested_map_map: BTreeMap<String, ContainsNestedMap>,

    /// Maps of arrays of things-that-aren’t-strings are permitted
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub map_of_arrays_of_floats: BTreeMap<String, Vec<bool>>,

    /// Maps keyed by a type that implements encoding.TextMarshaler are permitted,
    /// since such keys serialize to strings (just like TextMarshaler fields do).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub map_of_text_marshaler_keys: BTreeMap<url::Url, String>,

    /// +kubebuilder:validation:Minimum=-0.5
    /// +kubebuilder:validation:Maximum=1.5
    /// +kubebuilder:validation:MultipleOf=0.5
    pub float_with_validations: f64,

    /// +kubebuilder:validation:Minimum=-0.5
    /// +kubebuilder:validation:Maximum=1.5
    /// +kubebuilder:validation:MultipleOf=0.5
    pub float64_with_validations: f64,

    /// +kubebuilder:validation:Minimum=-2
    /// +kubebuilder:validation:Maximum=2
    /// +kubebuilder:validation:MultipleOf=2
    pub int_with_validations: isize,

    /// +kubebuilder:validation:Minimum=-2
    /// +kubebuilder:validation:Maximum=2
    /// +kubebuilder:validation:MultipleOf=2
    pub int32_with_validations: i32,

    /// This tests that unexported fields are skipped in the schema generation
    #[serde(skip)]
    unexported_field: String,

    /// This tests that both unexported and exported inline fields are not skipped in the schema generation
    #[serde(flatten)]
    unexported_struct: UnexportedStruct,
    #[serde(flatten)]
    pub exported_struct: ExportedStruct,

    /// Test of the expression-based validation rule marker, with optional message.
    /// +kubebuilder:validation:XValidation:rule="self.size() % 2 == 0",message="must have even length"
    /// +kubebuilder:validation:XValidation:rule="true"
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_with_even_length: String,

    /// Test of the expression-based validation with messageExpression marker.
    /// Due to a bug in the cost calculation we can not include the lenght in the message expression:
    /// https://github.com/kubernetes/kubernetes/issues/124234
    ///
    /// +kubebuilder:validation:XValidation:rule="self.size() % 2 == 0",messageExpression="self + ' has odd length, must be even'"
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_with_even_length_and_message_expression: String,

    /// Test of the expression-based validation on both field and type.
    /// +kubebuilder:validation:XValidation:rule="self.startsWith('good-')",message="must have good prefix"
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_with_even_length_and_good_prefix: Option<StringEvenType>,

    /// Test that we can add a forbidden field using XValidation Reason and FieldPath.
    /// The validation is applied to the spec struct itself and not the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forbidden_int: Option<isize>,

    /// Checks that fixed-length arrays work
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<[isize; 3]>,

    /// Checks that arrays work when the type contains a composite literal
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_using_composite_literal: Option<[String; COMPOSITE_LEN]>,

    /// This tests string slice item validation.
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:items:MinLength=1
    /// +kubebuilder:validation:items:MaxLength=255
    /// +kubebuilder:validation:items:Pattern=^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
    /// +listType=set
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,

    /// This tests slice item validation with enum
    /// +kubebuilder:validation:items:Enum=0;1;3
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enum_slice: Vec<isize>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_alias: Option<Hosts>,

    /// This tests that alias imported from a package is handled correctly. The
    /// corev1.IPFamilyPolicyType is just reused since it's available from
    /// imported package. We can create our own in a separate package if needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_from_package: Option<IPFamilyPolicyType>,

    /// This tests that string alias is handled correctly.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_alias: StringAlias,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_alias_ptr: Option<StringAlias>,

    /// This tests that validation on a string alias type is handled correctly.
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=255
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_alias_added_validation: StringAlias,

    /// This tests that validation on a string alias type itself is handled correctly.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_alias_already_validated: StringAliasWithValidation,

    /// These test that title works on both a type and field, with field taking precedence.
    /// +kubebuilder:title="title on field"
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_alias_with_added_title: StringAliasWithTitle,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub string_alias_with_title: StringAliasWithTitle,

    /// This tests string slice validation.
    /// +kubebuilder:validation:MinItems=2
    /// +kubebuilder:validation:MaxItems=2
    pub string_pair: Vec<String>,

    /// This tests string alias slice item validation.
    /// +kubebuilder:validation:MinItems=3
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub longer_string_array: Vec<LongerString>,
    /// This tests that a slice of IntOrString can also have string validation.
    /// This can be useful if you want to limit the string to a percentage or integer.
    /// The XIntOrString marker is a requirement for having a pattern on this type.
    /// +kubebuilder:validation:items:XIntOrString
    /// +kubebuilder:validation:items:MaxLength=10
    /// +kubebuilder:validation:items:MinLength=1
    /// +kubebuilder:validation:items:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub int_or_string_array_with_a_pattern: Vec<Option<IntOrString>>,

    /// This tests that a slice of  IntOrString can also have enum validation.
    /// The XIntOrString marker is required for applying enum to IntOrString.
    /// +kubebuilder:validation:items:XIntOrString
    /// +kubebuilder:validation:items:MaxLength=3
    /// +kubebuilder:validation:items:MinLength=1
    /// +kubebuilder:validation:items:Enum=1;2;"foo";"bar"
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub int_or_string_with_enum_slice: Vec<IntOrString>,

    /// This tests that we can embed protocol correctly (without ending up with allOf).
    /// Context: https://github.com/kubernetes-sigs/controller-tools/issues/1027
    /// Defaults to "TCP".
    /// +optional
    /// +default="TCP"
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub protocol: String,

    /// This tests that selectable field.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub selectable_field_string: String,

    /// This tests that embedded struct, which is an alias type, is handled correctly.
    #[serde(flatten)]
    pub inline_alias: InlineAlias,

    /// Tests pointer embedded struct with inline tag.
    #[serde(flatten)]
    pub inline_pointer_struct: Option<Box<InlinePointerStruct>>,

    /// Test that we can add a field that can only be set to a non-default value on updates using XValidation OptionalOldSelf.
    /// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self == 0",message="must be set to 0 on creation. can be set to any value on an update.",optionalOldSelf=true
    #[serde(default, skip_serializing_if = "is_zero")]
    pub only_allow_setting_on_update: i32,

    /// This tests that unmarkered types are handled correctly.
    /// When markers are applied at the field level instead of the type level.
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=10
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locally_bounded_integer: Option<UnmarkeredInteger>,

    /// This tests that unmarkered types are handled correctly.
    /// When markers are applied at the field level instead of the type level.
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=10
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locally_bounded_string: Option<UnmarkeredString>,

    /// This tests that field-level overrides are handled correctly
    /// for local type aliases.
    /// +kubebuilder:validation:MinLength=10
    /// +kubebuilder:validation:MaxLength=10
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field_level_alias_override: StringAliasWithValidation,

    /// This tests that field-level overrides are handled correctly
    /// for local type declarations.
    /// +kubebuilder:validation:MinLength=10
    /// +kubebuilder:validation:MaxLength=10
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_level_local_declaration_override: Option<LongerString>,
}

/// The length of `arrayUsingCompositeLiteral`, which Go computes with a composite
/// literal (`len(struct{ X [3]int }{}.X)`): in Rust a const.
const COMPOSITE_LEN: usize = 3;

fn is_zero(n: &i32) -> bool {
    *n == 0
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

/// +kubebuilder:validation:Type=object
/// +kubebuilder:pruning:PreserveUnknownFields
#[derive(Deserialize)]
pub struct Preserved {
    pub concrete_field: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, serde_json::Value>,
}

impl Serialize for Preserved {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut full = self.rest.clone();
        full.insert("concreteField".into(), self.concrete_field.clone().into());
        full.serialize(serializer)
    }
}

#[derive(Serialize, Deserialize)]
pub struct AssociativeType {
    pub name: String,
    pub secondary: isize,
    pub foo: String,
}

/// +listType=map
/// +listMapKey=name
/// +listMapKey=secondary
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct NestedAssociativeList(pub Vec<AssociativeType>);

/// +k8s:listType=map
/// +k8s:listMapKey=name
/// +k8s:listMapKey=secondary
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct K8sNestedAssociativeList(pub Vec<AssociativeType>);

/// +mapType=granular
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct NestedMapOfInfo(pub BTreeMap<String, ByteString>);

/// +structType=atomic
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct NestedStructWithSeveralFields(pub NestedObject);

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct JustNestedObject(pub NestedObject);

/// +kubebuilder:validation:MinProperties=1
/// +kubebuilder:validation:MaxProperties=2
#[derive(Serialize, Deserialize)]
pub struct MinMaxObject {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub foo: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bar: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub baz: String,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainsNestedMap {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inner_map: BTreeMap<String, String>,
}

/// This tests string slice item validation.
/// +kubebuilder:validation:MinItems=1
/// +kubebuilder:validation:items:MinLength=1
/// +kubebuilder:validation:items:MaxLength=255
/// +kubebuilder:validation:items:Pattern=^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
/// +listType=set
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct Hosts(pub Vec<String>);

pub type InlineAlias = EmbeddedStruct;

pub type StringAlias = String;

/// +kubebuilder:title="title on type"
pub type StringAliasWithTitle = String;

/// +kubebuilder:validation:MinLength=1
/// +kubebuilder:validation:MaxLength=255
pub type StringAliasWithValidation = String;

/// EmbeddedStruct is for testing that embedded struct is handled correctly when it is used through an alias type.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedStruct {
    /// FromEmbedded is a field from the embedded struct that was used through an alias type.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub from_embedded: String,
}

/// InlinePointerStruct tests pointer embedded struct with inline tag.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InlinePointerStruct {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub from_pointer: String,
}

/// This tests that unmarkered types are handled correctly.
/// When markers are applied at the field level instead of the type level.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnmarkeredInteger(pub i32);

/// This tests that unmarkered types are handled correctly.
/// When markers are applied at the field level instead of the type level.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnmarkeredString(pub String);

#[derive(Serialize, Deserialize)]
struct UnexportedStruct {
    /// This tests that exported fields are not skipped in the schema generation
    foo: String,

    /// This tests that unexported fields are skipped in the schema generation
    #[serde(skip)]
    bar: String,
}

#[derive(Serialize, Deserialize)]
pub struct ExportedStruct {
    /// This tests that exported fields are not skipped in the schema generation
    pub baz: String,

    /// This tests that unexported fields are skipped in the schema generation
    #[serde(skip)]
    qux: String,
}

/// StringEvenType is a type that includes an expression-based validation.
/// +kubebuilder:validation:XValidation:rule="self.size() % 2 == 0",message="must have even length"
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct StringEvenType(pub String);

/// CronJobStatus defines the observed state of CronJob
#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// A list of pointers to currently running jobs.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,

    /// Information when was the last time the job was successfully scheduled.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,

    /// Information when was the last time the job was successfully scheduled.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time2: Option<Time2>,

    /// Information about the last time the job was successfully scheduled,
    /// with microsecond precision.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_micro_time: Option<MicroTime>,

    /// LastActiveLogURL specifies the logging url for the last started job
    /// +optional
    #[serde(rename = "lastActiveLogURL", default, skip_serializing_if = "Option::is_none")]
    pub last_active_log_url: Option<Url>,

    /// LastActiveLogURL2 specifies the logging url for the last started job
    /// +optional
    #[serde(rename = "lastActiveLogURL2", default, skip_serializing_if = "Option::is_none")]
    pub last_active_log_url2: Option<Url2>,

    /// LastActiveLogURL3 specifies the logging url for the last started job
    /// +optional
    #[serde(rename = "lastActiveLogURL3", default, skip_serializing_if = "Option::is_none")]
    pub last_active_log_url3: Option<Url3>,

    /// LastActiveLogURL4 specifies the logging url for the last started job
    /// +optional
    #[serde(rename = "lastActiveLogURL4", default, skip_serializing_if = "Option::is_none")]
    pub last_active_log_url4: Option<Url4>,

    #[serde(rename = "duration", default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Duration>,
}

/// +kubebuilder:validation:Type=string
/// URL wraps url.URL.
/// It has custom json marshal methods that enable it to be used in K8s CRDs
/// such that the CRD resource will have the URL but operator code can can work with url.URL struct
pub struct Url {
    pub url: url::Url,
}

impl Serialize for Url {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.url)
    }
}

/// +kubebuilder:validation:Type=string
/// URL2 is an alias of url.URL.
/// It has custom json marshal methods that enable it to be used in K8s CRDs
/// such that the CRD resource will have the URL but operator code can can work with url.URL struct
pub struct Url2(pub url::Url);

impl Serialize for Url2 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// URL3 wraps [net/url.URL]. It implements [encoding.TextMarshaler] so that it
/// can be used in K8s CRDs such that the CRD resource will have the URL but
/// operator code can can work with the URL struct.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Url3 {
    pub url: url::Url,
}

impl From<Url3> for String {
    fn from(u: Url3) -> String {
        u.url.into()
    }
}

impl TryFrom<String> for Url3 {
    type Error = url::ParseError;
    fn try_from(text: String) -> Result<Url3, url::ParseError> {
        Ok(Url3 { url: text.parse()? })
    }
}

/// URL4 is newtype around [net/url.URL]. It implements [encoding.TextMarshaler]
/// so that it can be used in K8s CRDs such that the CRD resource will have the
/// URL but operator code can can work with the URL struct.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Url4(pub url::Url);

impl From<Url4> for String {
    fn from(u: Url4) -> String {
        u.0.into()
    }
}

impl TryFrom<String> for Url4 {
    type Error = url::ParseError;
    fn try_from(text: String) -> Result<Url4, url::ParseError> {
        Ok(Url4(text.parse()?))
    }
}

/// +kubebuilder:validation:Type=integer
/// +kubebuilder:validation:Format=int64
/// Time2 is a newtype around [metav1.Time].
/// It implements both [encoding.TextMarshaler] and [json.Marshaler].
/// The latter is authoritative for the CRD generation.
pub struct Time2(pub std::time::SystemTime);

impl Serialize for Time2 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let since = self.0.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        serializer.serialize_u128(since.as_millis())
    }
}

/// Duration has a custom Marshaler but no markers.
/// We want the CRD generation to infer type information
/// from the go types and ignore the presense of the Marshaler.
#[derive(Serialize, Deserialize)]
pub struct Duration {
    /// A Duration represents the elapsed time between two instants
    /// as an int64 nanosecond count. The representation limits the
    /// largest representable duration to approximately 290 years.
    pub value: i64,
}
