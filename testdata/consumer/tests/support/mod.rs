//! What the consumer's test suites share: where a check runs, and fixtures.
#![allow(dead_code)] // each test binary uses its own part

pub mod e2e;

use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use crdgen_consumer::client::applyconfigurations::bcrds::v1alpha1::{
    ExampleApplyConfiguration, ExampleSpecApplyConfiguration,
};
use crdgen_consumer::client::clientset::Clientset;
use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// Where a check runs: a clientset, a namespace of its own, and the in-memory server's
/// test hooks when there is one.
pub struct Env {
    pub cs: Clientset,
    pub ns: String,
    pub other_ns: String,
    pub server: Option<ApiServer>,
}

/// A fresh in-memory server serving this crate's kinds with the CRDs crdgen generated
/// for them, so that it defaults, prunes and validates as a cluster with those CRDs does.
pub fn in_memory() -> Env {
    let server = ApiServer::new();
    let cs = Clientset::in_memory(&server);
    for crd in crds() {
        server.register_crd(&crd);
    }
    Env {
        cs,
        ns: "test".into(),
        other_ns: "other".into(),
        server: Some(server),
    }
}

/// The CRDs crdgen generated for this crate (its build.rs writes them to OUT_DIR/crds).
pub fn crds() -> Vec<CustomResourceDefinition> {
    let dir = std::path::Path::new(env!("OUT_DIR")).join("crds");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| cluster::read_crd(f).unwrap())
        .collect()
}

/// What `example(name, replicas)` is, as an apply configuration of `namespace`.
pub fn example_config(name: &str, namespace: &str, replicas: i32) -> ExampleApplyConfiguration {
    ExampleApplyConfiguration::new(name, namespace).with_spec(
        ExampleSpecApplyConfiguration::default()
            .with_replicas(replicas)
            .with_worker_image("busybox"),
    )
}

pub fn example(name: &str, replicas: i32) -> Example {
    Example::new(
        name,
        ExampleSpec {
            replicas,
            worker_image: "busybox".into(),
        },
    )
}

/// Runs each check (an `async fn(&Env)` of the suite's root) as a test of its own, against
/// a fresh in-memory API server.
#[macro_export]
macro_rules! in_memory_tests {
    ($($check:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $check() {
                super::$check(&super::in_memory()).await;
            }
        )*
    };
}
