//! Cooperative cancellation: a cheap clonable token that the transport sets (the `k` cancel
//! operation, a fatal session error) and that running work observes or waits on.
//!
//! Waiting never polls: work that must wake on cancellation registers a watcher (a small
//! callback run by `cancel()`), which lets a waiter combine cancellation with its own events
//! (a child exiting, pipes closing) on one condition variable.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

type Watcher = Arc<dyn Fn() + Send + Sync>;

/// A shared cancellation flag; clones observe and set the same flag.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    watchers: Mutex<Watchers>,
}

#[derive(Default)]
struct Watchers {
    next_id: u64,
    list: Vec<(u64, Watcher)>,
}

/// A registered cancellation watcher; dropping it unregisters the callback.
#[must_use = "dropping the watch unregisters it at once"]
pub struct CancelWatch {
    inner: Arc<Inner>,
    id: u64,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl std::fmt::Debug for CancelWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelWatch").field("id", &self.id).finish()
    }
}

impl CancelToken {
    /// A fresh, not yet cancelled token.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Sets the flag and wakes every watcher; true only for the call that flipped it (cancel's `z`).
    pub fn cancel(&self) -> bool {
        if self.inner.cancelled.swap(true, Ordering::SeqCst) {
            return false;
        }
        // Run callbacks outside the lock so that a callback may itself touch the token.
        let callbacks: Vec<Watcher> = self
            .inner
            .watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .iter()
            .map(|(_, w)| Arc::clone(w))
            .collect();
        for callback in callbacks {
            callback();
        }
        true
    }

    /// Whether the token has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Runs `callback` once the token is cancelled (at once if it already is) until the returned
    /// watch is dropped. The callback must be quick and must not block: it runs on the
    /// cancelling thread, typically to notify a condition variable.
    pub fn on_cancel(&self, callback: impl Fn() + Send + Sync + 'static) -> CancelWatch {
        let callback: Watcher = Arc::new(callback);
        let id = {
            let mut watchers = self
                .inner
                .watchers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let id = watchers.next_id;
            watchers.next_id += 1;
            watchers.list.push((id, Arc::clone(&callback)));
            id
        };
        // Registered before this check, so a concurrent cancel() either sees the watcher or
        // set the flag before we read it: the callback runs at least once either way.
        if self.is_cancelled() {
            callback();
        }
        CancelWatch {
            inner: Arc::clone(&self.inner),
            id,
        }
    }

    /// Blocks until the token is cancelled (true) or `until` passes (false); `None` waits
    /// without a time limit.
    pub fn wait_until(&self, until: Option<Instant>) -> bool {
        let wake = Arc::new((Mutex::new(()), Condvar::new()));
        let notify = Arc::clone(&wake);
        let _watch = self.on_cancel(move || {
            // Taking the lock orders the notification after the waiter's flag check.
            let _guard = notify.0.lock().unwrap_or_else(PoisonError::into_inner);
            notify.1.notify_all();
        });
        let mut guard = wake.0.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if self.is_cancelled() {
                return true;
            }
            guard = match until {
                None => wake.1.wait(guard).unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let now = Instant::now();
                    if now >= at {
                        return false;
                    }
                    wake.1
                        .wait_timeout(guard, at - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

impl Drop for CancelWatch {
    fn drop(&mut self) {
        self.inner
            .watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .retain(|(id, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn only_the_first_cancel_flips_the_token_and_clones_share_it() {
        let token = CancelToken::new();
        let clone = token.clone();
        assert!(!clone.is_cancelled());
        assert!(token.cancel());
        assert!(!clone.cancel());
        assert!(clone.is_cancelled());
    }

    #[test]
    fn watchers_run_once_on_cancel_and_at_once_when_already_cancelled() {
        let token = CancelToken::new();
        let hits = Arc::new(AtomicUsize::new(0));
        let h = Arc::clone(&hits);
        let watch = token.on_cancel(move || {
            h.fetch_add(1, Ordering::SeqCst);
        });
        let dropped = {
            let h = Arc::clone(&hits);
            token.on_cancel(move || {
                h.fetch_add(100, Ordering::SeqCst);
            })
        };
        drop(dropped);
        token.cancel();
        token.cancel();
        assert_eq!(hits.load(Ordering::SeqCst), 1, "dropped watches do not run");
        let h = Arc::clone(&hits);
        let _late = token.on_cancel(move || {
            h.fetch_add(10, Ordering::SeqCst);
        });
        assert_eq!(hits.load(Ordering::SeqCst), 11);
        drop(watch);
    }

    #[test]
    fn waiting_ends_on_cancel_from_another_thread_or_at_the_time_limit() {
        let token = CancelToken::new();
        let start = Instant::now();
        assert!(!token.wait_until(Some(start + Duration::from_millis(30))));
        assert!(start.elapsed() >= Duration::from_millis(30));

        let other = token.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            other.cancel()
        });
        let start = Instant::now();
        assert!(token.wait_until(Some(start + Duration::from_secs(30))));
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!(canceller.join().ok(), Some(true));
        assert!(
            token.wait_until(None),
            "an already cancelled token returns at once"
        );
    }
}
