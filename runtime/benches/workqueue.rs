//! Work-queue throughput: keys per second through add → get → done, with 1, 2 and 8
//! workers, in batches of 10,000 distinct keys; and through add_after(1 ms) → get →
//! done (the path of every retry), which the queue's one delay loop serves. The queue
//! and its workers live across the batches, as an operator's do (a queue made per
//! batch measured its table's first growth and page faults, not its steady state); the
//! workers loop as the controllers' do, with `done_then_get`. Metrics are on: the
//! Prometheus recorder an operator's manager installs records every queue metric. Run
//! with `hack/bench-controller.sh`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crdgen_runtime::workqueue::WorkQueue;
use tokio::sync::Notify;

const KEYS: usize = 10_000;
const RUNS: usize = 9;

fn main() {
    metrics_exporter_prometheus::PrometheusBuilder::new()
        .install_recorder()
        .expect("the bench's recorder");
    // The adds come from this thread and the workers run on one runtime thread: two
    // busy threads on a two-core machine, as Go's GOMAXPROCS=2 has for client-go. With
    // a second runtime thread, three threads share two cores and runs of the same code
    // split into fast ones and ones 2-3x slower, by where the OS puts the threads.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // Every batch adds keys of its own: a key of the batch before may still be between
    // its last count and its `done`.
    let batches: Vec<Vec<String>> = (0..RUNS)
        .map(|run| {
            (0..KEYS)
                .map(|i| format!("namespace-{}/object-{run}-{i}", i % 100))
                .collect()
        })
        .collect();
    for delayed in [false, true] {
        let path = if delayed { "add_after(1 ms)" } else { "add" };
        for workers in [1, 2, 8] {
            let mut runs = runtime.block_on(measure(&batches, workers, delayed));
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

/// Seconds each batch took to go through one queue and its `workers`.
async fn measure(batches: &[Vec<String>], workers: usize, delayed: bool) -> Vec<f64> {
    let queue = WorkQueue::<String>::new("bench");
    let processed = Arc::new(AtomicUsize::new(0));
    let batch_through = Arc::new(Notify::new());
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, processed, through) =
                (queue.clone(), processed.clone(), batch_through.clone());
            tokio::spawn(async move {
                let mut next = queue.get().await;
                while let Some(key) = next {
                    if (processed.fetch_add(1, Ordering::Relaxed) + 1) % KEYS == 0 {
                        through.notify_one();
                    }
                    next = queue.done_then_get(&key).await;
                }
            })
        })
        .collect();
    let mut runs = Vec::with_capacity(batches.len());
    for batch in batches {
        let keys = batch.clone();
        let through = batch_through.notified();
        let start = Instant::now();
        for key in keys {
            match delayed {
                true => queue.add_after(key, Duration::from_millis(1)),
                false => queue.add(key),
            }
        }
        through.await;
        runs.push(start.elapsed().as_secs_f64());
    }
    queue.shut_down_with_drain().await;
    for task in tasks {
        task.await.unwrap();
    }
    runs
}
