//! A validating webhook under load on loopback: requests per second and latency
//! percentiles, with C keep-alive TLS connections each sending AdmissionReviews one
//! after another (as the apiserver's connections do). Prints figures; asserts nothing.
//!
//! `hack/bench-webhook.sh` (or `cargo bench -p crdgen-runtime --features envtest,webhook
//! --bench webhook`).

use std::time::{Duration, Instant};

use bytes::Bytes;
use crdgen_runtime::testing::envtest;
use crdgen_runtime::webhook::{Denial, Validator, Warnings, Webhooks};
use http_body_util::{BodyExt, Full};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The kind the bench's webhook validates.
#[derive(kube::CustomResource, Clone, Debug, Serialize, Deserialize)]
#[kube(
    group = "bench.crdgen.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    schema = "disabled"
)]
struct WidgetSpec {
    replicas: i64,
    image: String,
}

struct Rules;

impl Validator<Widget> for Rules {
    async fn validate_create(&self, widget: &Widget) -> Result<Warnings, Denial> {
        if widget.spec.replicas > 10 {
            return Err(Denial::new("too many"));
        }
        Ok(Warnings::new())
    }
}

fn review() -> Bytes {
    let labels: serde_json::Map<String, serde_json::Value> = (0..10)
        .map(|i| (format!("label-{i}"), json!("value")))
        .collect();
    Bytes::from(
        serde_json::to_vec(&json!({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "kind": {"group": "bench.crdgen.dev", "version": "v1", "kind": "Widget"},
                "resource": {"group": "bench.crdgen.dev", "version": "v1", "resource": "widgets"},
                "name": "w", "namespace": "default", "operation": "CREATE",
                "userInfo": {"username": "admin", "groups": ["system:masters"]},
                "object": {"apiVersion": "bench.crdgen.dev/v1", "kind": "Widget",
                           "metadata": {"name": "w", "namespace": "default", "labels": labels},
                           "spec": {"replicas": 3, "image": "registry.example.com/app:1.2.3"}},
                "oldObject": null, "dryRun": false
            }
        }))
        .unwrap(),
    )
}

/// One keep-alive connection sending reviews until `until`; the latency of each.
async fn client(
    connector: tokio_rustls::TlsConnector,
    port: u16,
    body: Bytes,
    until: Instant,
) -> Vec<Duration> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    tcp.set_nodelay(true).unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let tls = connector.connect(name, tcp).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
            .await
            .unwrap();
    tokio::spawn(connection);
    let mut latencies = Vec::new();
    while Instant::now() < until {
        let request = hyper::Request::post("/validate")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .body(Full::new(body.clone()))
            .unwrap();
        let started = Instant::now();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.status(), 200);
        let answer = response.into_body().collect().await.unwrap().to_bytes();
        latencies.push(started.elapsed());
        assert!(answer.len() > 20);
    }
    latencies
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "bench").unwrap();
        let server = Webhooks::new()
            .validator::<Widget, _>("/validate", Rules)
            .bind("127.0.0.1:0".parse().unwrap(), dir.path())
            .await
            .unwrap();
        let port = server.local_addr().unwrap().port();
        let stop = CancellationToken::new();
        let running = tokio::spawn(server.run(stop.clone()));
        let (connector, body) = (envtest::trusting(&ca).unwrap(), review());
        println!("validating webhook, {} byte reviews, TLS on loopback, {} cores:", body.len(), std::thread::available_parallelism().map_or(1, |n| n.get()));
        for connections in [1, 4, 16, 64] {
            let seconds = 3.0;
            let until = Instant::now() + Duration::from_secs_f64(seconds);
            let tasks: Vec<_> = (0..connections)
                .map(|_| tokio::spawn(client(connector.clone(), port, body.clone(), until)))
                .collect();
            let mut all = Vec::new();
            for task in tasks {
                all.extend(task.await.unwrap());
            }
            all.sort();
            println!(
                "  {connections:>3} connections: {:>8.0} requests/s   p50 {:>7.1} µs   p99 {:>7.1} µs   max {:>8.1} µs",
                all.len() as f64 / seconds,
                percentile(&all, 0.50).as_secs_f64() * 1e6,
                percentile(&all, 0.99).as_secs_f64() * 1e6,
                all.last().unwrap().as_secs_f64() * 1e6,
            );
        }
        stop.cancel();
        running.await.unwrap().unwrap();
    });
}
