//! How long an informer's watch waits before it tries again after an error.
//!
//! kube-runtime's `default_backoff` (client-go's figures: 800 ms doubling to 30 s, with
//! jitter) starts over only when the stream yields an event. After an outage it sits at
//! its 30 s cap, and nothing but an event brings it down: a watch that restarted fine
//! and then met a 410 (its history compacted meanwhile) waited those 30 s before its
//! relist, with a stale cache all along (client-go relists about a second after a
//! 410). So here the backoff also starts over once a watch is known to have worked:
//! - an error that only a running watch meets (the stream failed, or the apiserver
//!   sent an error event such as 410 Expired);
//! - a stream that ran for [`WORKING`] since its last retry before failing: its
//!   watch was up meanwhile (a refused watch fails at once).

use std::time::Duration;

use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, DefaultBackoff};
use tokio::time::Instant;

/// How long a stream must run after a retry without an error for its watch to count
/// as having worked.
const WORKING: Duration = Duration::from_secs(10);

pub(super) struct WatchBackoff {
    backoff: DefaultBackoff,
    /// Whether a delay was taken since the last reset: resetting rebuilds the backoff
    /// (and its jitter's generator), so an event resets it only then, not every time.
    climbed: bool,
    /// When the stream was last polled again after a wait.
    resumed: Instant,
}

impl WatchBackoff {
    pub(super) fn new() -> Self {
        WatchBackoff {
            backoff: DefaultBackoff::default(),
            climbed: false,
            resumed: Instant::now(),
        }
    }

    /// The stream yielded an event: the apiserver answers.
    pub(super) fn reset(&mut self) {
        if self.climbed {
            self.backoff.reset();
            self.climbed = false;
        }
    }

    /// The stream is polled again after its wait.
    pub(super) fn resume(&mut self) {
        self.resumed = Instant::now();
    }

    /// How long to wait before the watcher tries again after `error`.
    pub(super) fn delay(&mut self, error: &watcher::Error) -> Duration {
        let watch_worked = matches!(
            error,
            watcher::Error::WatchFailed(_) | watcher::Error::WatchError(_)
        ) || self.resumed.elapsed() >= WORKING;
        if watch_worked {
            self.reset();
        }
        self.climbed = true;
        // The default backoff never runs out; its cap, should it ever.
        self.backoff.next().unwrap_or(Duration::from_secs(30))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start_failed() -> watcher::Error {
        watcher::Error::WatchStartFailed(kube::Error::LinesCodecMaxLineLengthExceeded)
    }

    fn gone() -> watcher::Error {
        watcher::Error::WatchError(Box::new(
            kube::core::Status::failure("too old", "Expired").with_code(410),
        ))
    }

    #[tokio::test(start_paused = true)]
    async fn climbs_while_watches_fail_to_start_and_starts_over_once_one_worked() {
        let mut backoff = WatchBackoff::new();
        let mut last = Duration::ZERO;
        for _ in 0..8 {
            last = backoff.delay(&start_failed());
            tokio::time::sleep(last).await;
            backoff.resume();
        }
        assert!(last >= Duration::from_secs(30), "at the cap: {last:?}");
        // A running watch's error event (410): the relist comes soon.
        let after_gone = backoff.delay(&gone());
        assert!(after_gone <= Duration::from_millis(1600), "{after_gone:?}");

        for _ in 0..8 {
            last = backoff.delay(&start_failed());
            tokio::time::sleep(last).await;
            backoff.resume();
        }
        assert!(last >= Duration::from_secs(30), "{last:?}");
        // A watch that ran a while before it failed to restart.
        tokio::time::sleep(WORKING).await;
        let after_working = backoff.delay(&start_failed());
        assert!(
            after_working <= Duration::from_millis(1600),
            "{after_working:?}"
        );
    }
}
