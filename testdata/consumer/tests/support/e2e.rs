//! The real-cluster side of the suites: runs against CRDGEN_E2E_KUBECONFIG, else envtest
//! (see `cluster::connect`), in namespaces of its own, with the CRDs crdgen generated for
//! this crate, and removes all of it afterwards.

use crdgen_runtime::testing::cluster;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, PostParams};

use super::{Env, crds};
use crdgen_consumer::client::clientset::Clientset;

const MANAGER: &str = "crdgen-e2e";

/// Connects and installs the CRDs, or says why the real-cluster run is skipped.
pub async fn connect() -> Option<kube::Client> {
    let client = cluster::connect("real_cluster").await?.client;
    if let Err(e) = cluster::install_crds(&client, &crds(), MANAGER).await {
        uninstall(&client).await;
        panic!("installing the CRDs: {e}");
    }
    Some(client)
}

/// A fresh pair of namespaces for one check.
pub async fn env(client: &kube::Client) -> Env {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let (ns, other_ns) = (
        format!("crdgen-e2e-{stamp}"),
        format!("crdgen-e2e-{stamp}-other"),
    );
    let namespaces: Api<Namespace> = Api::all(client.clone());
    for name in [&ns, &other_ns] {
        let namespace = Namespace {
            metadata: kube::api::ObjectMeta {
                name: Some(name.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        namespaces
            .create(&PostParams::default(), &namespace)
            .await
            .unwrap();
    }
    Env {
        cs: Clientset::new(client.clone()),
        ns,
        other_ns,
        server: None,
    }
}

/// Deletes a check's namespaces (and with them what it made in them).
pub async fn clean_up(env: &Env) {
    let namespaces: Api<Namespace> = Api::all(env.cs.client().clone());
    for name in [&env.ns, &env.other_ns] {
        let _ = namespaces.delete(name, &DeleteParams::default()).await;
    }
}

/// Removes the CRDs, and with them every object of theirs, and waits until they are
/// gone, so that the next suite can install them again.
pub async fn uninstall(client: &kube::Client) {
    let crds = crds();
    let names = crds.iter().map(|crd| crd.metadata.name.as_deref().unwrap());
    if let Err(e) = cluster::uninstall_crds(client, names).await {
        eprintln!("real_cluster: removing the CRDs: {e}");
    }
}

/// Runs each check against the real cluster in namespaces of its own, cleans up after
/// every one, and fails with the first failure once all have run.
#[macro_export]
macro_rules! real_cluster_checks {
    ($($check:ident),* $(,)?) => {
        #[tokio::test]
        async fn real_cluster() {
            let Some(client) = support::e2e::connect().await else { return };
            let mut failures = Vec::new();
            $(
                let env = support::e2e::env(&client).await;
                let outcome = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe($check(&env))).await;
                support::e2e::clean_up(&env).await;
                if let Err(panic) = outcome {
                    failures.push((stringify!($check), panic));
                }
            )*
            support::e2e::uninstall(&client).await;
            if let Some((check, panic)) = failures.into_iter().next() {
                eprintln!("real_cluster: {check} failed");
                std::panic::resume_unwind(panic);
            }
        }
    };
}
