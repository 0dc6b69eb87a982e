//! Locking that survives a panic elsewhere.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the data even when another thread panicked while holding it:
/// every writer in this crate computes a change before it commits it, so what a panic
/// leaves behind is consistent, and one failed test or handler must not fail the rest.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
