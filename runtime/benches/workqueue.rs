//! Work-queue throughput: keys per second through add → get → done, with 1, 2 and 8
//! workers over 10,000 distinct keys; and through add_after(1 ms) → get → done (the path
//! of every retry), which the queue's one delay loop serves. Run with
//! `hack/bench-controller.sh`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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
    for delayed in [false, true] {
        let path = if delayed { "add_after(1 ms)" } else { "add" };
        for workers in [1, 2, 8] {
            let mut best = f64::MAX;
            for _ in 0..5 {
                let seconds = runtime.block_on(run(&keys, workers, delayed));
                best = best.min(seconds);
            }
            println!(
                "{path:>15}, {workers} worker(s): {:>10.0} keys/s  ({KEYS} keys, best of 5: {:.1} ms)",
                KEYS as f64 / best,
                best * 1e3
            );
        }
    }
}

async fn run(keys: &[String], workers: usize, delayed: bool) -> f64 {
    let queue = WorkQueue::<String>::new("bench");
    let processed = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, processed) = (queue.clone(), processed.clone());
            tokio::spawn(async move {
                while let Some(key) = queue.get().await {
                    queue.done(&key);
                    processed.fetch_add(1, Ordering::Relaxed);
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
    while processed.load(Ordering::Relaxed) < keys.len() {
        tokio::task::yield_now().await;
    }
    queue.shut_down_with_drain().await;
    for task in tasks {
        task.await.unwrap();
    }
    start.elapsed().as_secs_f64()
}
