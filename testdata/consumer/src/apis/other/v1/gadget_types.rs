use std::collections::BTreeMap;

use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// kube-derive generates `Gadget`, which derives `Clone` and so needs `GadgetSpec:
/// Clone`; crdgen's clone generator provides it.
///
/// +genclient:method=GetStatus,verb=get,subresource=status
#[derive(CustomResource, Debug, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "other.example.com",
    version = "v1",
    kind = "Gadget",
    namespaced,
    status = "GadgetStatus",
    shortname = "gd",
    schema = "disabled",
    derive = "PartialEq"
)]
pub struct GadgetSpec {
    pub size: Size,
    #[serde(default)]
    pub labels: Labels,
    // ANCHOR: array
    /// A fixed-length list: exactly two ports.
    #[serde(default)]
    pub ports: [u16; PORTS],
    // ANCHOR_END: array
    /// Everyday Rust types, each in its JSON form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub everyday: Option<Everyday>,
}

/// One field of each Rust type the book's "Rust types in a CRD" lists.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Everyday {
    pub url: url::Url,
    pub created: chrono::DateTime<chrono::Utc>,
    pub day: chrono::NaiveDate,
    #[serde(with = "time::serde::rfc3339")]
    pub stamped: time::OffsetDateTime,
    pub id: uuid::Uuid,
    pub ip: std::net::IpAddr,
    pub ipv4: std::net::Ipv4Addr,
    pub ipv6: std::net::Ipv6Addr,
    pub listen: std::net::SocketAddr,
    pub replicas: std::num::NonZeroU32,
    pub offset: std::num::NonZeroI32,
    pub port: std::num::NonZero<u16>,
    pub tags: std::collections::BTreeSet<String>,
    pub hashed: std::collections::HashSet<String>,
    pub timeout: std::time::Duration,
    pub payload: bytes::Bytes,
    pub boxed: Box<str>,
    pub cow: std::borrow::Cow<'static, str>,
    pub extra: serde_json::Value,
    pub object: serde_json::Map<String, serde_json::Value>,
    pub ratio: ordered_float::OrderedFloat<f64>,
    pub weight: ordered_float::NotNan<f64>,
    pub endpoint: Endpoint,
    // ANCHOR: unknown
    /// A type crdgen does not know (E0018 without its markers): serde writes a path
    /// as a string.
    ///
    /// +kubebuilder:validation:Type=string
    /// +kubebuilder:validation:Pattern=`^/`
    pub path: std::path::PathBuf,
    // ANCHOR_END: unknown
}

// ANCHOR: array_len
/// The length of `ports`, as a const: the CRD reads it.
const PORTS: usize = 2;
// ANCHOR_END: array_len

// ANCHOR: into
/// A type of its own that serde writes as a string (`into`): the CRD has a string with
/// this type's pattern, not its fields.
///
/// +kubebuilder:validation:Pattern=`^https://`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Endpoint {
    pub url: url::Url,
}
// ANCHOR_END: into

impl From<Endpoint> for String {
    fn from(endpoint: Endpoint) -> String {
        endpoint.url.into()
    }
}

impl TryFrom<String> for Endpoint {
    type Error = url::ParseError;
    fn try_from(text: String) -> Result<Endpoint, url::ParseError> {
        Ok(Endpoint { url: text.parse()? })
    }
}

/// An alias: the CRD and the generated code see the map it names.
pub type Labels = BTreeMap<String, String>;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Size {
    Small,
    Large,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GadgetStatus {
    pub ready: bool,
}
