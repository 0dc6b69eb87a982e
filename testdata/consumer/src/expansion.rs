//! Methods of our own on generated clients, without touching generated files:
//! code-generator's `<Kind>Expansion` interfaces are a plain `impl` block in Rust.

use kube::api::{Patch, PatchParams};

use crate::apis::bcrds::v1alpha1::Example;
use crate::client::clientset::bcrds::v1alpha1::ExampleClient;

// ANCHOR: expansion
impl ExampleClient {
    /// Sets `spec.replicas` of `name` with a merge patch.
    pub async fn scale_to(&self, name: &str, replicas: i32) -> kube::Result<Example> {
        let patch = Patch::Merge(serde_json::json!({"spec": {"replicas": replicas}}));
        self.patch(name, &PatchParams::default(), &patch).await
    }
}
// ANCHOR_END: expansion
