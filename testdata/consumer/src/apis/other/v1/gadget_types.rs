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
    /// A fixed-length list: exactly two ports.
    #[serde(default)]
    pub ports: [u16; 2],
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
