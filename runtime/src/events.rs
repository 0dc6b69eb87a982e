//! Kubernetes Events about the objects a controller syncs, with kube-runtime's
//! `Recorder` (events.k8s.io/v1, repeated events folded into a series).

use kube::runtime::events::Reporter;

pub use kube::runtime::events::{Event, EventType, Recorder};

/// A recorder for `controller`, naming this replica (its pod, from `HOSTNAME`) as the
/// reporting instance, as client-go's broadcaster does.
pub fn recorder(client: kube::Client, controller: &str) -> Recorder {
    let reporter = Reporter {
        controller: controller.to_owned(),
        instance: std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()),
    };
    Recorder::new(client, reporter)
}
