//! Work-queue throughput: keys per second through add → get → done, with 1, 2 and 8
//! workers over 10,000 distinct keys. Run with `hack/bench-controller.sh`.

use std::time::Instant;

use crdgen_runtime::workqueue::WorkQueue;

const KEYS: usize = 10_000;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let keys: Vec<String> = (0..KEYS)
        .map(|i| format!("namespace-{}/object-{i}", i % 100))
        .collect();
    for workers in [1, 2, 8] {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let seconds = runtime.block_on(run(&keys, workers));
            best = best.min(seconds);
        }
        println!(
            "{workers} worker(s): {:>10.0} keys/s  ({KEYS} keys, best of 5: {:.1} ms)",
            KEYS as f64 / best,
            best * 1e3
        );
    }
}

async fn run(keys: &[String], workers: usize) -> f64 {
    let queue = WorkQueue::<String>::new("bench");
    let start = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move {
                while let Some(key) = queue.get().await {
                    queue.done(&key);
                }
            })
        })
        .collect();
    for key in keys {
        queue.add(key.clone());
    }
    queue.shut_down_with_drain().await;
    for task in tasks {
        task.await.unwrap();
    }
    start.elapsed().as_secs_f64()
}
