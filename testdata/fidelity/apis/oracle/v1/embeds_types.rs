//! The Go kind of controller-gen's fidelity CRDs: every field a value, `+optional`
//! and `omitempty`, with no doc of its own. Here: `#[serde(default)]` on the spec.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::{Deserialize, Serialize};

/// Embeds is the root kind.
///
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:path=embeds,singular=embeds
#[derive(Debug, Serialize, Deserialize)]
pub struct Embeds {
    #[serde(flatten, default)]
    pub types: Option<kube::core::TypeMeta>,
    pub metadata: meta::ObjectMeta,
    #[serde(default)]
    pub spec: EmbedsSpec,
}

/// EmbedsSpec has one optional field per embedded type.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EmbedsSpec {
    pub pod_template_spec: api::core::v1::PodTemplateSpec,
    pub pod_spec: api::core::v1::PodSpec,
    pub container: api::core::v1::Container,
    pub container_port: api::core::v1::ContainerPort,
    pub env_var: api::core::v1::EnvVar,
    pub env_from_source: api::core::v1::EnvFromSource,
    pub resource_requirements: api::core::v1::ResourceRequirements,
    pub probe: api::core::v1::Probe,
    pub security_context: api::core::v1::SecurityContext,
    pub pod_security_context: api::core::v1::PodSecurityContext,
    pub volume: api::core::v1::Volume,
    pub volume_mount: api::core::v1::VolumeMount,
    pub persistent_volume_claim_spec: api::core::v1::PersistentVolumeClaimSpec,
    pub persistent_volume_claim_template: api::core::v1::PersistentVolumeClaimTemplate,
    pub affinity: api::core::v1::Affinity,
    pub toleration: api::core::v1::Toleration,
    pub topology_spread_constraint: api::core::v1::TopologySpreadConstraint,
    pub local_object_reference: api::core::v1::LocalObjectReference,
    pub object_reference: api::core::v1::ObjectReference,
    pub secret_key_selector: api::core::v1::SecretKeySelector,
    pub config_map_key_selector: api::core::v1::ConfigMapKeySelector,
    pub secret_reference: api::core::v1::SecretReference,
    pub service_spec: api::core::v1::ServiceSpec,
    pub service_port: api::core::v1::ServicePort,
    pub resource_list: BTreeMap<String, Quantity>,
    pub typed_local_object_reference: api::core::v1::TypedLocalObjectReference,
    pub job_template_spec: api::batch::v1::JobTemplateSpec,
    pub job_spec: api::batch::v1::JobSpec,
    pub cron_job_spec: api::batch::v1::CronJobSpec,
    pub deployment_spec: api::apps::v1::DeploymentSpec,
    pub stateful_set_spec: api::apps::v1::StatefulSetSpec,
    pub daemon_set_spec: api::apps::v1::DaemonSetSpec,
    pub ingress_spec: api::networking::v1::IngressSpec,
    pub network_policy_spec: api::networking::v1::NetworkPolicySpec,
    pub policy_rule: api::rbac::v1::PolicyRule,
    pub subject: api::rbac::v1::Subject,
    pub role_ref: api::rbac::v1::RoleRef,
    pub pod_disruption_budget_spec: api::policy::v1::PodDisruptionBudgetSpec,
    pub horizontal_pod_autoscaler_spec: api::autoscaling::v2::HorizontalPodAutoscalerSpec,
    pub condition: meta::Condition,
    pub label_selector: meta::LabelSelector,
    pub time: meta::Time,
    pub micro_time: meta::MicroTime,
    pub duration: kube::core::Duration,
    pub object_meta: meta::ObjectMeta,
    pub quantity: Quantity,
    pub int_or_string: IntOrString,
    pub raw_extension: RawExtension,
    pub bytes: ByteString,
    pub int: isize,
    pub float64: f64,
    pub int32: i32,
    pub int64: i64,
    pub uint32: u32,
}
