use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// A rule built by a function crdgen cannot read: it must say so, not drop the rule.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[kube(
    group = "bcrds.example.com",
    version = "v1",
    kind = "Example",
    validation = replicas_rule()
)]
pub struct ExampleSpec {
    pub replicas: i32,
}
