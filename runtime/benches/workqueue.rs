//! Work-queue throughput: keys per second through add → get → done, with 1, 2 and 8
//! workers over 10,000 distinct keys (the workers loop as the controller's do, with
//! `done_then_get`); and through add_after(1 ms) → get → done (the path
//! of every retry), which the queue's one delay loop serves. Metrics are on: the
//! Prometheus recorder an operator's manager installs records every queue metric. Run
//! with `hack/bench-controller.sh`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crdgen_runtime::workqueue::WorkQueue;

const KEYS: usize = 10_000;
const RUNS: usize = 9;

fn main() {
    metrics_exporter_prometheus::PrometheusBuilder::new()
        .install_recorder()
        .expect("the bench's recorder");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let keys: Vec<String> = (0..KEYS)
        .map(|i| format!("namespace-{}/object-{i}", i % 100))
        .collect();
    for delayed in [false, true] {
        let path = if delayed { "add_after(1 ms)" } else { "add" };
        for workers in [1, 2, 8] {
            let mut runs: Vec<f64> = (0..RUNS)
                .map(|_| runtime.block_on(run(&keys, workers, delayed)))
                .collect();
            runs.sort_by(f64::total_cmp);
            let median = runs[RUNS / 2];
            // The range shows how much this machine's load moved the runs.
            println!(
                "{path:>15}, {workers} worker(s): {:>10.0} keys/s  ({KEYS} keys, median of {RUNS}: {:.1} ms, range {:.1}-{:.1} ms)",
                KEYS as f64 / median,
                median * 1e3,
                runs[0] * 1e3,
                runs[RUNS - 1] * 1e3
            );
        }
    }
}

async fn run(keys: &[String], workers: usize, delayed: bool) -> f64 {
    let queue = WorkQueue::<String>::new("bench");
    let processed = Arc::new(AtomicUsize::new(0));
    let all_processed = Arc::new(tokio::sync::Notify::new());
    let start = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, processed, all) = (queue.clone(), processed.clone(), all_processed.clone());
            let total = keys.len();
            tokio::spawn(async move {
                // The controller's worker loop: done and the next get in one step.
                let mut next = queue.get().await;
                while let Some(key) = next {
                    if processed.fetch_add(1, Ordering::Relaxed) + 1 == total {
                        all.notify_one();
                    }
                    next = queue.done_then_get(&key).await;
                }
            })
        })
        .collect();
    for key in keys {
        match delayed {
            true => queue.add_after(key.clone(), Duration::from_millis(1)),
            false => queue.add(key.clone()),
        }
    }
    // Shutting down drops what is still delayed: wait until every key went through.
    all_processed.notified().await;
    queue.shut_down_with_drain().await;
    for task in tasks {
        task.await.unwrap();
    }
    start.elapsed().as_secs_f64()
}
