//! The operator's binary: its health and metrics endpoints need non-resource URLs.
//!
//! +kubebuilder:rbac:urls=/metrics,verbs=get

mod apis;
mod controller;

/// Serves /healthz and /readyz.
///
/// +kubebuilder:rbac:urls=/healthz;/readyz,verbs=get
fn serve_health() {}

fn main() {
    // A note, not a marker: no `+` right after the slashes.
    serve_health();
}
