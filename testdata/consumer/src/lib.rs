//! A crate that generates its client code through crdgen's build.rs API; its tests
//! exercise what was generated. Warnings are errors: generated code must be clean.
//!
//! Verbs a `+genclient` marker filters out do not exist. `Doohickey` is
//! `+genclient:readonly`, so this compiles:
//!
//! ```no_run
//! # async fn f(cs: crdgen_consumer::client::clientset::Clientset) {
//! let _ = cs.bcrds_v1alpha1().doohickeys("ns").get("x").await;
//! # }
//! ```
//! and this does not:
//! ```compile_fail
//! # async fn f(cs: crdgen_consumer::client::clientset::Clientset) {
//! let _ = cs.bcrds_v1alpha1().doohickeys("ns").delete("x", &Default::default()).await;
//! # }
//! ```
//! `Gizmo` is `+genclient:noStatus`, and has no status verbs:
//! ```compile_fail
//! # async fn f(cs: crdgen_consumer::client::clientset::Clientset, g: crdgen_consumer::apis::bcrds::v1alpha1::variant_types::Gizmo) {
//! let _ = cs.bcrds_v1alpha1().gizmos("ns").update_status(&Default::default(), &g).await;
//! # }
//! ```
//! `Widget` skips `apply`; `Thingamajig` is `+genclient:noVerbs`:
//! ```compile_fail
//! # async fn f(cs: crdgen_consumer::client::clientset::Clientset, w: crdgen_consumer::apis::bcrds::v1alpha1::widget_types::Widget) {
//! let _ = cs.bcrds_v1alpha1().widgetz().apply(&w, &kube::api::PatchParams::apply("m")).await;
//! # }
//! ```
//! ```compile_fail
//! # async fn f(cs: crdgen_consumer::client::clientset::Clientset) {
//! let _ = cs.bcrds_v1alpha1().thingamajigs("ns").get("x").await;
//! # }
//! ```
#![deny(warnings)]

// ANCHOR: modules
pub mod apis;
/// Everything crdgen generated, included from `OUT_DIR`.
pub mod client {
    include!(concat!(env!("OUT_DIR"), "/crdgen.rs"));
}
// ANCHOR_END: modules
mod expansion;
