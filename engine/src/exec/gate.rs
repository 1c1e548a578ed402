//! The process governor (docs/contract/ash-protocol.md §1, §7): at most C child processes per session at once.
//! Waiters wake on a release, on cancellation (through a token watcher) or at their deadline.

use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::sync::lock;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

/// Why a permit was not granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateStop {
    /// The request was cancelled while queued.
    Cancelled,
    /// The deadline passed while queued.
    TimedOut,
}

#[derive(Debug)]
struct State {
    held: Mutex<usize>,
    freed: Condvar,
}

/// A counting gate.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    state: Arc<State>,
    /// Set by [`Gate::new`]; for [`Gate::host`], read from the host at the first acquire.
    capacity: OnceLock<usize>,
}

/// A held permit; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct Permit {
    state: Arc<State>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut held = lock(&self.state.held);
        *held = held.saturating_sub(1);
        self.state.freed.notify_all();
    }
}

impl Gate {
    /// A gate with `capacity` slots (at least one).
    #[cfg(test)]
    pub fn new(capacity: usize) -> Gate {
        Gate {
            state: Arc::new(State {
                held: Mutex::new(0),
                freed: Condvar::new(),
            }),
            capacity: OnceLock::from(capacity.max(1)),
        }
    }

    /// A gate with a slot per CPU the host lets this process use, counted at the first
    /// acquire: a session that never runs a process never asks.
    pub fn host() -> Gate {
        Gate {
            state: Arc::new(State {
                held: Mutex::new(0),
                freed: Condvar::new(),
            }),
            capacity: OnceLock::new(),
        }
    }

    fn capacity(&self) -> usize {
        *self
            .capacity
            .get_or_init(|| crate::compute::host_parallelism().max(1))
    }

    /// Takes a free slot, or waits for one unless `cancel` is set or `deadline` passes first.
    pub fn acquire(&self, cancel: &CancelToken, deadline: Deadline) -> Result<Permit, GateStop> {
        let state = Arc::clone(&self.state);
        let _watch = cancel.on_cancel(move || {
            // Take the lock so the wake-up cannot fall between a waiter's check and its wait.
            let _held = lock(&state.held);
            state.freed.notify_all();
        });
        let mut held = lock(&self.state.held);
        loop {
            // A free slot wins: a request stopped before it queued answers like exec does.
            if *held < self.capacity() {
                *held += 1;
                return Ok(Permit {
                    state: Arc::clone(&self.state),
                });
            }
            if cancel.is_cancelled() {
                return Err(GateStop::Cancelled);
            }
            let left = deadline
                .instant()
                .saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(GateStop::TimedOut);
            }
            held = self
                .state
                .freed
                .wait_timeout(held, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_gate_queues_until_release_cancel_or_deadline() {
        let gate = Gate::new(1);
        let token = CancelToken::new();
        let first = gate
            .acquire(&token, Deadline::after_ms(1000))
            .expect("free slot");
        assert_eq!(
            gate.acquire(&token, Deadline::after_ms(20)).err(),
            Some(GateStop::TimedOut)
        );
        let cancel = CancelToken::new();
        let c2 = cancel.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            c2.cancel();
        });
        assert_eq!(
            gate.acquire(&cancel, Deadline::after_ms(10_000)).err(),
            Some(GateStop::Cancelled)
        );
        t.join().expect("canceller");
        drop(first);
        assert!(gate.acquire(&token, Deadline::after_ms(1000)).is_ok());
    }

    #[test]
    fn a_host_gate_counts_cpus_at_its_first_acquire() {
        let gate = Gate::host();
        assert!(gate.capacity.get().is_none());
        let token = CancelToken::new();
        let permits: Vec<Permit> = (0..crate::compute::host_parallelism())
            .map(|_| {
                gate.acquire(&token, Deadline::after_ms(1000))
                    .expect("a slot per CPU")
            })
            .collect();
        assert_eq!(gate.capacity.get(), Some(&permits.len()));
        assert_eq!(
            gate.acquire(&token, Deadline::after_ms(20)).err(),
            Some(GateStop::TimedOut)
        );
    }
}
