//! The events a running exec waits on, under one lock and condition variable: the child exiting,
//! its output pipes closing, and cancellation. Waiting sleeps; every event notifies.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

/// What has happened so far.
#[derive(Debug, Default)]
pub(crate) struct Events {
    /// The child has exited (not yet reaped).
    pub(crate) exited: bool,
    /// Output pipes whose pump is still running.
    pub(crate) open_pipes: u8,
    /// The request's token was cancelled.
    pub(crate) cancelled: bool,
}

impl Events {
    /// The child is gone and both output pumps have finished.
    pub(crate) fn settled(&self) -> bool {
        self.exited && self.open_pipes == 0
    }
}

#[derive(Debug, Default)]
pub(crate) struct Monitor {
    events: Mutex<Events>,
    changed: Condvar,
}

impl Monitor {
    pub(crate) fn new(open_pipes: u8) -> Monitor {
        Monitor {
            events: Mutex::new(Events {
                open_pipes,
                ..Events::default()
            }),
            changed: Condvar::new(),
        }
    }

    /// Records an event and wakes the waiter.
    pub(crate) fn update(&self, change: impl FnOnce(&mut Events)) {
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut events);
        self.changed.notify_all();
    }

    /// Sleeps until `decide` returns a value, or `until` passes (`None`).
    pub(crate) fn wait_until<T>(
        &self,
        until: Option<Instant>,
        mut decide: impl FnMut(&Events) -> Option<T>,
    ) -> Option<T> {
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(found) = decide(&events) {
                return Some(found);
            }
            events = match until {
                None => self
                    .changed
                    .wait(events)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let now = Instant::now();
                    if now >= at {
                        return None;
                    }
                    self.changed
                        .wait_timeout(events, at - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}
