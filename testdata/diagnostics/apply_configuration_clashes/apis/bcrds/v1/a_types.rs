use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub labels: BTreeMap<String, String>,
    pub spec: Settings,
    pub other: super::b_types::Settings,
}

pub struct Settings {
    pub replicas: i32,
}
