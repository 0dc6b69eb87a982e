//! The work queue's client-go semantics, alone and under many concurrent workers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdgen_runtime::ratelimit::ItemExponentialFailure;
use crdgen_runtime::workqueue::WorkQueue;

#[tokio::test]
async fn duplicates_collapse_and_a_key_in_processing_waits_for_done() {
    let queue = WorkQueue::<&str>::new("semantics");
    for _ in 0..3 {
        queue.add("a");
    }
    queue.add("b");
    assert_eq!(queue.len(), 2, "three adds of one key queue it once");
    assert_eq!(queue.get().await, Some("a"));

    // Added while being processed: not handed out (to anyone) until done.
    queue.add("a");
    assert_eq!(queue.get().await, Some("b"));
    assert!(queue.is_empty());
    queue.done(&"a");
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.get().await, Some("a"));
    queue.done(&"a");
    queue.done(&"b");
    assert!(queue.is_empty());
}

/// `done_then_get` is `done` then `get`: a key added while processed goes to the back
/// of the queue, an empty queue is waited on, a shut-down one answers `None`.
#[tokio::test(start_paused = true)]
async fn done_then_get_is_done_then_get() {
    let queue = WorkQueue::<&str>::new("fused");
    queue.add("a");
    queue.add("b");
    let a = queue.get().await.unwrap();
    queue.add("a");
    assert_eq!(queue.done_then_get(&a).await, Some("b"));
    assert_eq!(queue.done_then_get(&"b").await, Some("a"));
    let waiting = tokio::spawn({
        let queue = queue.clone();
        async move { queue.done_then_get(&"a").await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!waiting.is_finished(), "an empty queue is waited on");
    queue.add("c");
    let c = waiting.await.unwrap().unwrap();
    assert_eq!(c, "c");
    queue.add("d");
    queue.shut_down();
    assert_eq!(
        queue.done_then_get(&c).await,
        Some("d"),
        "queued items are still handed out"
    );
    assert_eq!(queue.done_then_get(&"d").await, None);
    tokio::time::timeout(Duration::from_secs(5), queue.shut_down_with_drain())
        .await
        .expect("nothing is left being processed");
}

/// Eight workers looping on `done_then_get` (as the controllers' do) under four
/// producers: no key is handed to two workers at once, and every key's last add is seen
/// by a processing after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_on_done_then_get_keep_the_guarantees() {
    const KEYS: usize = 50;
    let queue = WorkQueue::<usize>::new("fused-concurrency");
    let per_key = || Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect::<Vec<_>>());
    let (added, seen) = (per_key(), per_key());
    let busy: Arc<Vec<AtomicBool>> = Arc::new((0..KEYS).map(|_| AtomicBool::new(false)).collect());
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (queue, added, seen, busy) =
                (queue.clone(), added.clone(), seen.clone(), busy.clone());
            tokio::spawn(async move {
                let mut next = queue.get().await;
                while let Some(key) = next {
                    assert!(
                        !busy[key].swap(true, Ordering::SeqCst),
                        "key {key} handed to two workers"
                    );
                    seen[key].fetch_max(added[key].load(Ordering::SeqCst), Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    busy[key].store(false, Ordering::SeqCst);
                    next = queue.done_then_get(&key).await;
                }
            })
        })
        .collect();
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let (queue, added) = (queue.clone(), added.clone());
            let keys: Vec<usize> = (0..5_000).map(|i| (i * 7 + p * 13) % KEYS).collect();
            tokio::spawn(async move {
                for chunk in keys.chunks(64) {
                    for &key in chunk {
                        added[key].fetch_add(1, Ordering::SeqCst);
                        queue.add(key);
                    }
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for task in producers {
        task.await.unwrap();
    }
    queue.shut_down_with_drain().await;
    for task in workers {
        task.await.unwrap();
    }
    for key in 0..KEYS {
        let (added, seen) = (
            added[key].load(Ordering::SeqCst),
            seen[key].load(Ordering::SeqCst),
        );
        assert_eq!(seen, added, "key {key}: an add was never processed");
    }
}

#[tokio::test(start_paused = true)]
async fn delayed_and_rate_limited_adds() {
    let queue = WorkQueue::with_rate_limiter(
        "delays",
        ItemExponentialFailure::new(Duration::from_millis(5), Duration::from_secs(1)),
    );
    queue.add_after("later", Duration::from_secs(1));
    queue.add_after("soon", Duration::from_secs(5));
    queue.add_after("soon", Duration::from_millis(100)); // the earlier delay wins
    tokio::time::sleep(Duration::from_millis(99)).await;
    assert!(queue.is_empty());
    tokio::time::sleep(Duration::from_millis(2)).await;
    assert_eq!(queue.get().await, Some("soon"));
    queue.done(&"soon");
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(queue.get().await, Some("later"));
    queue.done(&"later");
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(
        queue.is_empty(),
        "a superseded delayed add does not fire again"
    );

    for expected in [5, 10, 20] {
        let start = tokio::time::Instant::now();
        queue.add_rate_limited("retry");
        assert_eq!(queue.get().await, Some("retry"));
        assert_eq!(start.elapsed(), Duration::from_millis(expected));
        queue.done(&"retry");
    }
    assert_eq!(queue.num_requeues(&"retry"), 3);
    queue.forget(&"retry");
    assert_eq!(queue.num_requeues(&"retry"), 0);
}

#[tokio::test]
async fn shutdown_hands_out_what_is_queued_then_none_and_drains() {
    let queue = WorkQueue::<u32>::new("shutdown");
    queue.add(1);
    queue.add(2);
    let first = queue.get().await.unwrap();
    let draining = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    tokio::task::yield_now().await;
    assert!(
        !draining.is_finished(),
        "drain waits for the item being processed"
    );
    queue.add(3);
    assert_eq!(
        queue.get().await,
        Some(2),
        "queued items are still handed out"
    );
    assert_eq!(
        queue.get().await,
        None,
        "then none: adds after shutdown are dropped"
    );
    queue.done(&first);
    queue.done(&2);
    tokio::time::timeout(Duration::from_secs(5), draining)
        .await
        .unwrap()
        .unwrap();
}

/// Eight workers, four producers, 100 keys added 20,000 times in all: no key is ever
/// processed by two workers at once, and every add is followed by a processing that saw
/// it (nothing lost), with far fewer syncs than adds (duplicates collapsed).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_concurrent_workers_keep_the_guarantees() {
    const KEYS: usize = 100;
    let queue = WorkQueue::<usize>::new("concurrency");
    let versions: Arc<Vec<AtomicU64>> = Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
    let seen: Arc<Mutex<HashMap<usize, u64>>> = Arc::default();
    let active: Arc<Mutex<HashSet<usize>>> = Arc::default();
    let syncs = Arc::new(AtomicU64::new(0));

    let mut workers = Vec::new();
    for _ in 0..8 {
        let (queue, versions, seen, active, syncs) = (
            queue.clone(),
            versions.clone(),
            seen.clone(),
            active.clone(),
            syncs.clone(),
        );
        workers.push(tokio::spawn(async move {
            while let Some(key) = queue.get().await {
                assert!(
                    active.lock().unwrap().insert(key),
                    "key {key} handed to two workers"
                );
                let version = versions[key].load(Ordering::SeqCst);
                {
                    let mut s = seen.lock().unwrap();
                    let entry = s.entry(key).or_default();
                    *entry = (*entry).max(version);
                }
                tokio::task::yield_now().await;
                syncs.fetch_add(1, Ordering::Relaxed);
                active.lock().unwrap().remove(&key);
                queue.done(&key);
            }
        }));
    }
    let mut producers = Vec::new();
    for p in 0..4 {
        let (queue, versions) = (queue.clone(), versions.clone());
        producers.push(tokio::spawn(async move {
            for i in 0..5_000 {
                let key = (i * 7 + p * 13) % KEYS;
                versions[key].fetch_add(1, Ordering::SeqCst);
                queue.add(key);
                if i % 64 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        }));
    }
    for p in producers {
        p.await.unwrap();
    }
    queue.shut_down_with_drain().await;
    for w in workers {
        w.await.unwrap();
    }
    let seen = seen.lock().unwrap();
    for key in 0..KEYS {
        assert_eq!(
            seen.get(&key).copied(),
            Some(versions[key].load(Ordering::SeqCst)),
            "key {key}: an add was never processed"
        );
    }
    let syncs = syncs.load(Ordering::Relaxed);
    assert!(
        syncs < 20_000,
        "duplicates collapse: {syncs} syncs for 20,000 adds"
    );
}

#[test]
fn metrics_use_client_go_names() {
    let recorder = metrics_util::debugging::DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let queue = WorkQueue::<&str>::new("measured");
        queue.add("a");
        queue.add("a");
        queue.add("b");
    });
    let snapshot = snapshotter.snapshot().into_hashmap();
    let value = |name: &str| {
        snapshot
            .iter()
            .find(|(k, _)| {
                k.key().name() == name
                    && k.key()
                        .labels()
                        .any(|l| l.key() == "name" && l.value() == "measured")
            })
            .map(|(_, (_, _, v))| format!("{v:?}"))
    };
    assert_eq!(value("workqueue_adds_total").as_deref(), Some("Counter(2)"));
    assert_eq!(value("workqueue_depth").as_deref(), Some("Gauge(2.0)"));
}

/// Delayed adds share one loop per queue (client-go's waiting heap), not a task each,
/// and it ends when no delay is left or the queue shuts down.
#[tokio::test(start_paused = true)]
async fn delayed_adds_share_one_task() {
    let tasks = || {
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks()
    };
    let before = tasks();
    let queue = WorkQueue::<u32>::new("one-loop");
    for i in 0..1000 {
        queue.add_after(i, Duration::from_secs(1000 - u64::from(i)));
    }
    assert_eq!(
        tasks(),
        before + 1,
        "one delay loop for 1,000 delayed items"
    );
    tokio::time::sleep(Duration::from_secs(1001)).await;
    assert_eq!(queue.len(), 1000, "every delayed item came due");
    tokio::task::yield_now().await;
    assert_eq!(tasks(), before, "the loop ends when no delay is left");
    queue.add_after(7, Duration::from_secs(5));
    assert_eq!(tasks(), before + 1);
    queue.shut_down();
    tokio::time::sleep(Duration::from_millis(1)).await;
    assert_eq!(tasks(), before, "and when the queue shuts down");
}

/// A worker stuck in a sync shows in the unfinished-work gauges without any get or
/// done: they are refreshed every 500 ms while items are processed (client-go).
#[tokio::test(start_paused = true)]
async fn a_stuck_worker_shows_in_the_unfinished_work_gauges() {
    static RECORDER: std::sync::OnceLock<metrics_util::debugging::Snapshotter> =
        std::sync::OnceLock::new();
    let snapshotter = RECORDER.get_or_init(|| {
        let recorder = metrics_util::debugging::DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        recorder.install().expect("the only global recorder");
        snapshotter
    });
    // A snapshot resets what it reads: read both gauges from one.
    let gauges = || {
        let snapshot = snapshotter.snapshot().into_vec();
        let gauge = |name: &str| {
            snapshot
                .iter()
                .find(|(k, _, _, _)| {
                    k.key().name() == name
                        && k.key()
                            .labels()
                            .any(|l| l.key() == "name" && l.value() == "stuck")
                })
                .map(|(_, _, _, v)| match v {
                    metrics_util::debugging::DebugValue::Gauge(g) => g.into_inner(),
                    other => panic!("{name} is a gauge, not {other:?}"),
                })
        };
        (
            gauge("workqueue_unfinished_work_seconds"),
            gauge("workqueue_longest_running_processor_seconds"),
        )
    };
    let tasks = || {
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks()
    };
    let before = tasks();
    let queue = WorkQueue::<&str>::new("stuck");
    queue.add("a");
    queue.add("b");
    let a = queue.get().await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let b = queue.get().await.unwrap();
    assert_eq!(tasks(), before + 1, "one refresh loop per queue");
    // Nobody calls get or done from here on.
    tokio::time::sleep(Duration::from_millis(2600)).await;
    assert_eq!(
        gauges(),
        (Some(3.5 + 2.5), Some(3.5)),
        "refreshed at 3.5 s, the last 500 ms tick: total and longest"
    );
    queue.done(&a);
    queue.done(&b);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(gauges(), (Some(0.0), Some(0.0)));
    assert_eq!(tasks(), before, "the loop ends when nothing is processed");
}
