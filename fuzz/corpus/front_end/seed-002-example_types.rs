use k8s_openapi::apimachinery::pkg::apis::meta::v1::{self as metav1, Condition};
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

/// An Example, named through a module alias (`metav1::ObjectMeta`).
///
/// +genclient
/// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
/// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: metav1::ObjectMeta,
    pub spec: ExampleSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ExampleStatus>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleSpec {
    pub replicas: i32,
    pub worker_image: String,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExampleStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Replicas running, as `/scale` reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// The label selector of what runs them, as `/scale` reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}
