//! What an operator serves beside its controllers: `/metrics` in the Prometheus text
//! format with the work-queue and reconcile metrics of a running controller, and the
//! `/healthz` and `/readyz` probes, and readiness that fails for good when an informer
//! dies.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::{
    Action, Controller, ObjectKey, QueueController, SyncError, SyncHandler,
};
use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
use crdgen_runtime::manager::{
    Readiness, install_prometheus, serve_metrics, serve_probes, stop_on_informer_failure,
};
use crdgen_runtime::testing::ApiServer;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::PostParams;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` over HTTP/1.0: the status code and the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

/// Probes served from `readiness` on a free loopback port until `shutdown`.
async fn probes(
    readiness: &Readiness,
    shutdown: &CancellationToken,
) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let any = SocketAddr::from(([127, 0, 0, 1], 0));
    let (addr, server) = serve_probes(any, readiness.clone(), shutdown.clone())
        .await
        .unwrap();
    (addr, tokio::spawn(server))
}

/// Succeeds for `good`, fails once then succeeds for `flaky`, panics on `bad` once.
struct Sync {
    calls: AtomicUsize,
}

impl SyncHandler for Sync {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        match key.name {
            "flaky" if call < 3 => Err("not yet".into()),
            "bad" if call < 3 => panic!("a bug"),
            // A success that asks to come back in an hour: no error.
            "polled" => Ok(Action::RequeueAfter(Duration::from_secs(3600))),
            _ => Ok(Action::Done),
        }
    }
}

#[tokio::test]
async fn metrics_and_probes_are_served() {
    let metrics = install_prometheus().unwrap();
    let shutdown = CancellationToken::new();
    let readiness = Readiness::new();
    let any = SocketAddr::from(([127, 0, 0, 1], 0));
    let (probes, probe_server) = serve_probes(any, readiness.clone(), shutdown.clone())
        .await
        .unwrap();
    let (scrape, metrics_server) = serve_metrics(any, metrics, shutdown.clone()).await.unwrap();
    let servers = tokio::spawn(async move { tokio::join!(probe_server, metrics_server) });

    assert_eq!(get(probes, "/healthz").await, (200, "ok".to_owned()));
    assert_eq!(
        get(probes, "/readyz").await.0,
        503,
        "not ready before the caches sync"
    );
    readiness.set_ready();
    assert_eq!(get(probes, "/readyz").await, (200, "ok".to_owned()));
    assert_eq!(get(probes, "/metrics").await.0, 404);

    let controller = QueueController::new(
        "served",
        Sync {
            calls: AtomicUsize::new(0),
        },
    );
    for key in ["good", "flaky", "bad", "polled"] {
        controller.queue().add(key.to_owned());
    }
    let stop = CancellationToken::new();
    let run = controller.run(2, stop.clone());
    let watch = async {
        // Two failures (one error, one panic), retried after 5 ms backoff: six syncs.
        while controller.handler().calls.load(Ordering::SeqCst) < 6 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        stop.cancel();
    };
    tokio::join!(run, watch);

    let (status, text) = get(scrape, "/metrics").await;
    assert_eq!(status, 200);
    let sample = |line: &str| text.lines().any(|l| l == line);
    for line in [
        r#"controller_runtime_reconcile_total{controller="served",result="success"} 3"#,
        r#"controller_runtime_reconcile_total{controller="served",result="error"} 2"#,
        r#"controller_runtime_reconcile_total{controller="served",result="requeue_after"} 1"#,
        r#"controller_runtime_reconcile_errors_total{controller="served"} 2"#,
        r#"controller_runtime_reconcile_panics_total{controller="served"} 1"#,
        r#"controller_runtime_reconcile_time_seconds_count{controller="served"} 6"#,
        r#"controller_runtime_max_concurrent_reconciles{controller="served"} 2"#,
        r#"controller_runtime_active_workers{controller="served"} 0"#,
        r#"workqueue_adds_total{name="served"} 6"#,
        r#"workqueue_retries_total{name="served"} 2"#,
        r#"workqueue_depth{name="served"} 0"#,
    ] {
        assert!(sample(line), "{line} in\n{text}");
    }
    assert!(
        text.contains(
            r#"controller_runtime_reconcile_time_seconds_bucket{controller="served",le="0.005"}"#
        ),
        "histograms with buckets:\n{text}"
    );
    assert!(text.contains("workqueue_work_duration_seconds_bucket{name=\"served\""));

    shutdown.cancel();
    servers.await.unwrap();
}

/// An informer task that panics after the caches synced (here in a transform) leaves a
/// frozen cache: `/readyz` turns 503 naming it, for good, and the manager's shutdown is
/// cancelled with the failure as the reason to exit non-zero (issue 31). A clean
/// shutdown is no failure.
#[tokio::test]
async fn a_dead_informer_fails_readiness_and_stops_the_manager() {
    let server = ApiServer::new();
    server.register::<ConfigMap>();
    let factory = InformerFactory::new(server.client(), FactoryOptions::default());
    let informer = factory.informer_for::<ConfigMap>(|client, _| Api::all(client));
    informer.set_transform(|object: &mut ConfigMap| {
        if object.metadata.name.as_deref() == Some("poison") {
            panic!("a transform bug");
        }
    });
    let shutdown = CancellationToken::new();
    let readiness = Readiness::new();
    let (probes, probe_server) = probes(&readiness, &shutdown).await;
    factory.start(&shutdown);
    factory.ensure_cache_sync().await.unwrap();
    readiness.set_ready();
    assert_eq!(get(probes, "/readyz").await, (200, "ok".to_owned()));

    let watchdog = stop_on_informer_failure(&factory, &readiness, &shutdown);
    let poison = async {
        let api: Api<ConfigMap> = Api::namespaced(server.client(), "default");
        let mut object = ConfigMap::default();
        object.metadata.name = Some("poison".into());
        api.create(&PostParams::default(), &object).await.unwrap();
    };
    let (failure, ()) = tokio::join!(watchdog, poison);
    let failure = failure.expect("the informer's death is reported");
    assert_eq!(failure.resource, "configmaps.v1");
    assert!(failure.reason.contains("a transform bug"), "{failure}");
    assert!(shutdown.is_cancelled(), "the manager stops");
    assert!(!readiness.is_ready());
    readiness.set_ready();
    assert!(!readiness.is_ready(), "a failure stays");
    probe_server.await.unwrap();
    factory.shutdown().await;

    // A clean stop is no failure.
    let (server, shutdown) = (ApiServer::new(), CancellationToken::new());
    server.register::<ConfigMap>();
    let factory = InformerFactory::new(server.client(), FactoryOptions::default());
    factory.informer_for::<ConfigMap>(|client, _| Api::all(client));
    factory.start(&shutdown);
    factory.ensure_cache_sync().await.unwrap();
    let (readiness, stopper) = (Readiness::new(), async { shutdown.cancel() });
    let (failure, ()) = tokio::join!(
        stop_on_informer_failure(&factory, &readiness, &shutdown),
        stopper
    );
    assert!(failure.is_none());
    factory.shutdown().await;
}

/// `/readyz` says why it fails.
#[tokio::test]
async fn readyz_names_the_failure() {
    let shutdown = CancellationToken::new();
    let readiness = Readiness::new();
    let (probes, server) = probes(&readiness, &shutdown).await;
    readiness.set_ready();
    readiness.set_failed("the configmaps.v1 informer stopped");
    assert_eq!(
        get(probes, "/readyz").await,
        (503, "the configmaps.v1 informer stopped".to_owned())
    );
    assert_eq!(get(probes, "/healthz").await.0, 200);
    shutdown.cancel();
    server.await.unwrap();
}
