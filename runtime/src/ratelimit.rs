//! client-go's work-queue rate limiters: how long an item waits before it is retried.
//! Time is tokio's, so tests run them under a paused clock.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::panics::lock;

/// Decides when an item may be retried.
pub trait RateLimiter<T>: Send + Sync {
    /// How long `item` must wait now; counts as one more failure.
    fn when(&self, item: &T) -> Duration;
    /// Forgets `item`'s failures (it succeeded).
    fn forget(&self, item: &T);
    /// How many times `item` has been retried since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

/// Per-item exponential backoff: `base * 2^failures`, capped at `max`.
///
/// ```
/// use std::time::Duration;
/// use crdgen_runtime::ratelimit::{ItemExponentialFailure, RateLimiter};
///
/// let limiter = ItemExponentialFailure::new(Duration::from_millis(5), Duration::from_secs(1));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(10));
/// limiter.forget(&"a");
/// assert_eq!(limiter.num_requeues(&"a"), 0);
/// ```
pub struct ItemExponentialFailure<T> {
    base: Duration,
    max: Duration,
    failures: Mutex<HashMap<T, u32>>,
}

impl<T: Eq + Hash> ItemExponentialFailure<T> {
    /// Delays of `base` doubling per failure, capped at `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        ItemExponentialFailure {
            base,
            max,
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Eq + Hash + Clone + Send> RateLimiter<T> for ItemExponentialFailure<T> {
    fn when(&self, item: &T) -> Duration {
        let mut failures = lock(&self.failures);
        let count = failures.entry(item.clone()).or_insert(0);
        let exp = *count;
        *count += 1;
        let factor = 2u32.checked_pow(exp).unwrap_or(u32::MAX);
        self.base
            .checked_mul(factor)
            .map_or(self.max, |d| d.min(self.max))
    }

    fn forget(&self, item: &T) {
        lock(&self.failures).remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        lock(&self.failures).get(item).copied().unwrap_or(0)
    }
}

/// A token bucket shared by all items: `qps` tokens a second, up to `burst` saved.
pub struct Bucket {
    qps: f64,
    burst: f64,
    /// Tokens available (negative: owed) as of the instant.
    state: Mutex<(f64, Instant)>,
}

impl Bucket {
    /// `qps` items a second on average, `burst` at once.
    pub fn new(qps: f64, burst: u32) -> Self {
        Bucket {
            qps,
            burst: f64::from(burst),
            state: Mutex::new((f64::from(burst), Instant::now())),
        }
    }
}

impl<T> RateLimiter<T> for Bucket {
    fn when(&self, _: &T) -> Duration {
        let mut state = lock(&self.state);
        let now = Instant::now();
        let (tokens, last) = *state;
        let tokens =
            (tokens + now.duration_since(last).as_secs_f64() * self.qps).min(self.burst) - 1.0;
        *state = (tokens, now);
        if tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-tokens / self.qps)
        }
    }

    fn forget(&self, _: &T) {}

    fn num_requeues(&self, _: &T) -> u32 {
        0
    }
}

/// The longest wait of several limiters.
pub struct MaxOf<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> MaxOf<T> {
    /// Each item waits the longest delay any of `limiters` gives it.
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        MaxOf { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOf<T> {
    fn when(&self, item: &T) -> Duration {
        self.limiters
            .iter()
            .map(|l| l.when(item))
            .max()
            .unwrap_or_default()
    }

    fn forget(&self, item: &T) {
        self.limiters.iter().for_each(|l| l.forget(item));
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.limiters
            .iter()
            .map(|l| l.num_requeues(item))
            .max()
            .unwrap_or_default()
    }
}

/// `fast` for the first `max_fast_attempts` retries of an item, `slow` after.
pub struct ItemFastSlow<T> {
    fast: Duration,
    slow: Duration,
    max_fast_attempts: u32,
    attempts: Mutex<HashMap<T, u32>>,
}

impl<T: Eq + Hash> ItemFastSlow<T> {
    /// `fast` for the first `max_fast_attempts` failures of an item, `slow` after.
    pub fn new(fast: Duration, slow: Duration, max_fast_attempts: u32) -> Self {
        ItemFastSlow {
            fast,
            slow,
            max_fast_attempts,
            attempts: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Eq + Hash + Clone + Send> RateLimiter<T> for ItemFastSlow<T> {
    fn when(&self, item: &T) -> Duration {
        let mut attempts = lock(&self.attempts);
        let count = attempts.entry(item.clone()).or_insert(0);
        *count += 1;
        if *count <= self.max_fast_attempts {
            self.fast
        } else {
            self.slow
        }
    }

    fn forget(&self, item: &T) {
        lock(&self.attempts).remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        lock(&self.attempts).get(item).copied().unwrap_or(0)
    }
}

/// client-go's `DefaultControllerRateLimiter`: per-item exponential backoff from 5 ms to
/// 1000 s, and an overall 10 qps / burst 100 bucket, whichever waits longer.
pub fn default_controller_rate_limiter<T: Eq + Hash + Clone + Send + 'static>() -> MaxOf<T> {
    MaxOf::new(vec![
        Box::new(ItemExponentialFailure::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(Bucket::new(10.0, 100)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> u128 {
        d.as_millis()
    }

    #[tokio::test(start_paused = true)]
    async fn exponential_backoff_doubles_to_its_cap_and_forgets() {
        let limiter =
            ItemExponentialFailure::new(Duration::from_millis(5), Duration::from_secs(1000));
        let waits: Vec<u128> = (0..4).map(|_| ms(limiter.when(&"a"))).collect();
        assert_eq!(waits, [5, 10, 20, 40]);
        assert_eq!(limiter.num_requeues(&"a"), 4);
        assert_eq!(ms(limiter.when(&"b")), 5, "items back off independently");
        for _ in 0..30 {
            limiter.when(&"a");
        }
        assert_eq!(limiter.when(&"a"), Duration::from_secs(1000));
        limiter.forget(&"a");
        assert_eq!((limiter.num_requeues(&"a"), ms(limiter.when(&"a"))), (0, 5));
    }

    #[tokio::test(start_paused = true)]
    async fn the_bucket_allows_a_burst_then_its_rate() {
        let bucket = Bucket::new(10.0, 100);
        let waits: Vec<Duration> = (0..102)
            .map(|_| RateLimiter::<&str>::when(&bucket, &"x"))
            .collect();
        assert!(waits[..100].iter().all(|w| w.is_zero()));
        assert_eq!((ms(waits[100]), ms(waits[101])), (100, 200));
        tokio::time::advance(Duration::from_secs(1)).await;
        // A second refills ten tokens; two were owed.
        assert_eq!(ms(RateLimiter::<&str>::when(&bucket, &"x")), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn the_default_controller_limiter_takes_the_longer_wait() {
        let limiter = default_controller_rate_limiter::<&str>();
        assert_eq!(ms(limiter.when(&"a")), 5);
        assert_eq!(ms(limiter.when(&"a")), 10);
        for _ in 0..98 {
            limiter.when(&"b");
            limiter.forget(&"b");
        }
        // The bucket is empty now: a fresh item waits for it, not for its 5 ms.
        assert_eq!(ms(limiter.when(&"c")), 100);
        assert_eq!(limiter.num_requeues(&"a"), 2);
    }

    #[test]
    fn fast_then_slow() {
        let limiter = ItemFastSlow::new(Duration::from_millis(1), Duration::from_secs(1), 2);
        let waits: Vec<u128> = (0..4).map(|_| ms(limiter.when(&1))).collect();
        assert_eq!(waits, [1, 1, 1000, 1000]);
        limiter.forget(&1);
        assert_eq!(ms(limiter.when(&1)), 1);
    }
}
