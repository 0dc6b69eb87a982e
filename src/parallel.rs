//! Work spread over the machine's cores: parsing files, running generators and writing
//! CRDs as YAML are independent per item, and the results come back in item order, so
//! that output never depends on which thread finished first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The stack every worker runs on (and the pipeline's own thread): syn, the model, the
/// generators and the schema builder recurse once per level of nesting, and `parse`
/// lets files nest up to `MAX_NESTING` levels, which in a debug build takes more than
/// a main thread's 8 MiB. Only the pages touched are used.
pub(crate) const STACK_BYTES: usize = 256 << 20;

/// `f` of every item, in item order, computed on as many threads as there are cores
/// (the calling thread is one of them). Each thread takes the next item not yet taken,
/// so a slow item does not hold up the rest.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    spread(items, 1, f)
}

/// The items per thread below which [`map_light`] starts no more threads: starting one
/// costs about what reading, hashing or writing this many small files does.
const LIGHT_ITEMS_PER_THREAD: usize = 64;

/// [`map`] for items that take microseconds each (one file to read, hash or write): a
/// small run, such as a two-kind API's, stays on the calling thread.
pub(crate) fn map_light<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    spread(items, LIGHT_ITEMS_PER_THREAD, f)
}

/// `f` of every item on at most one thread per `per_thread` items, and per core.
fn spread<T: Sync, R: Send>(items: &[T], per_thread: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // One slot per item, each written once, by the thread that took the item.
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let result = f(item);
            *results[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        }
    };
    let cores = cores();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..cores.min(items.len().div_ceil(per_thread)))
            .filter_map(|n| {
                std::thread::Builder::new()
                    .name(format!("crdgen-{n}"))
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        work();
        for helper in helpers {
            if let Err(panic) = helper.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    // Every slot is set: the loop above ends only when every index was taken, and a
    // thread that panicked while computing one has been resumed above.
    results
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

/// The cores the process may use, asked once: the answer reads cgroup files each time.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// [`map`] over owned items: each is moved into `f`.
pub(crate) fn map_owned<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    // `map` takes each slot once, so every `take` finds its item.
    map(&slots, |slot| {
        slot.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .map(&f)
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_item_order() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work, so that threads finish out of order.
        let squares = super::map(&items, |&n| {
            if n % 7 == 0 {
                std::thread::yield_now();
            }
            n * n
        });
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |_| 0).is_empty());
        assert_eq!(super::map_light(&items, |&n| n + 1)[999], 1000);
        let owned: Vec<String> = items.iter().map(u64::to_string).collect();
        assert_eq!(super::map_owned(owned.clone(), |s| s + "!")[999], "999!");
        assert_eq!(super::map_owned(owned, |s| s).len(), 1000);
    }
}
