use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: ExampleSpec,
}

pub struct ExampleSpec {
    /// Written in RFC 3339: a `date-time`.
    #[serde(with = "time::serde::rfc3339")]
    pub started: time::OffsetDateTime,
    /// Written in time's own form, which no Kubernetes format is.
    pub finished: time::OffsetDateTime,
}
