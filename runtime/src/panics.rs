//! Living with panics elsewhere: locking that survives them, and what they said.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the data even when another thread panicked while holding it:
/// every writer in this crate computes a change before it commits it, so what a panic
/// leaves behind is consistent, and one failed test or handler must not fail the rest.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a caught panic said, when it said it with a string.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}
