//! Requests per second through the generated clientset against the in-memory API
//! server: get, list (100 and 1,000 objects) and create. Run with
//! `hack/bench-clientset.sh`.

use std::time::Instant;

use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use crdgen_consumer::client::clientset::Clientset;
use crdgen_runtime::testing::ApiServer;
use kube::api::{ListParams, PostParams};

fn example(name: String) -> Example {
    Example::new(
        &name,
        ExampleSpec {
            replicas: 3,
            worker_image: "registry.example.com/worker:1.2.3".into(),
        },
    )
}

/// Runs `op` `n` times and prints requests per second.
async fn measure<F, Fut>(label: &str, n: usize, mut op: F)
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let start = Instant::now();
    for i in 0..n {
        op(i).await;
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{label:<22} {:>9.0} req/s  ({n} requests, {:.3} ms each)",
        n as f64 / seconds,
        seconds * 1e3 / n as f64
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = ApiServer::new();
        let cs = Clientset::in_memory(&server);
        let v1 = cs.bcrds_v1alpha1();
        let pp = PostParams::default();
        let (small, large, created) = (
            v1.examples("hundred"),
            v1.examples("thousand"),
            v1.examples("created"),
        );
        for i in 0..100 {
            small.create(&pp, &example(format!("e{i}"))).await.unwrap();
        }
        for i in 0..1000 {
            large.create(&pp, &example(format!("e{i}"))).await.unwrap();
        }

        measure("get", 20_000, |i| {
            let small = &small;
            async move {
                small.get(&format!("e{}", i % 100)).await.unwrap();
            }
        })
        .await;
        measure("list (100 objects)", 2_000, |_| async {
            assert_eq!(
                small
                    .list(&ListParams::default())
                    .await
                    .unwrap()
                    .items
                    .len(),
                100
            )
        })
        .await;
        measure("list (1,000 objects)", 200, |_| async {
            assert_eq!(
                large
                    .list(&ListParams::default())
                    .await
                    .unwrap()
                    .items
                    .len(),
                1000
            )
        })
        .await;
        measure("create", 20_000, |i| {
            let (created, pp) = (&created, &pp);
            async move {
                created.create(pp, &example(format!("c{i}"))).await.unwrap();
            }
        })
        .await;
    });
}
