use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// controller-tools' `wrong_annotation_format`: `key:value` where `key=value` belongs.
///
/// +genclient
/// +kubebuilder:metadata:annotations="api-approved.kubernetes.io:https://github.com/kubernetes-sigs/controller-tools";"cert-manager.io/inject-ca-from-secret=cert-manager/cert-manager-webhook-ca"
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

pub struct ExampleSpec {
    pub replicas: Option<i32>,
}
