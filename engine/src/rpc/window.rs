//! The in-flight and unwritten windows of an RPC session (docs/contract/ash-protocol.md §7), shared by the
//! dispatcher, the request tasks and the writer.

use crate::sync::lock;
use std::sync::{Condvar, Mutex};

#[derive(Debug, Default)]
struct Counts {
    in_flight: usize,
    unwritten: usize,
    failed: bool,
}

/// Counters with a condition variable so the dispatcher can pause reading.
#[derive(Debug, Default)]
pub(crate) struct Window {
    counts: Mutex<Counts>,
    changed: Condvar,
}

impl Window {
    /// Takes an in-flight slot (and an unwritten one) if fewer than `cap` are running.
    pub fn try_start(&self, cap: usize) -> bool {
        let mut c = lock(&self.counts);
        if c.in_flight >= cap {
            return false;
        }
        c.in_flight += 1;
        c.unwritten += 1;
        true
    }

    /// Counts an ordered answer that needs no execution.
    pub fn queued(&self) {
        lock(&self.counts).unwritten += 1;
    }

    /// A request finished executing: `publish` hands its answer to the writer, and the slot
    /// is freed under the same lock. A client may send its next request the moment it reads
    /// the answer; freeing the slot after publishing without the lock let that request find
    /// the finished one still counted and be refused 602. Freeing it before publishing would
    /// let [`Window::wait_idle`] return with an answer not yet handed on.
    pub fn finish_with(&self, publish: impl FnOnce()) {
        let mut c = lock(&self.counts);
        publish();
        c.in_flight = c.in_flight.saturating_sub(1);
        self.changed.notify_all();
    }

    /// An ordered answer was written.
    pub fn written(&self) {
        let mut c = lock(&self.counts);
        c.unwritten = c.unwritten.saturating_sub(1);
        self.changed.notify_all();
    }

    /// Writing failed; wakes every waiter.
    pub fn fail(&self) {
        lock(&self.counts).failed = true;
        self.changed.notify_all();
    }

    /// Whether writing failed.
    pub fn failed(&self) -> bool {
        lock(&self.counts).failed
    }

    /// Blocks while `cap` answers are unwritten (transport backpressure); false if the writer
    /// failed.
    pub fn wait_for_room(&self, cap: usize) -> bool {
        let mut c = lock(&self.counts);
        while c.unwritten >= cap && !c.failed {
            c = self
                .changed
                .wait(c)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        !c.failed
    }

    /// Blocks until no request is executing.
    pub fn wait_idle(&self) {
        let mut c = lock(&self.counts);
        while c.in_flight > 0 {
            c = self
                .changed
                .wait(c)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}
