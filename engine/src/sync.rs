//! Lock helpers shared by the engine's threads.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex; every update under the engine's locks is a single call, so a lock poisoned
/// by a panic elsewhere still guards consistent data.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
