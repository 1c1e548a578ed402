//! The flag a worker thread raises to abandon a call.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by the caller (Ctrl+C) to cancel a running `McpHub::call`; cheap to clone and share.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A lowered flag.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the call to stop: it sends `notifications/cancelled` and returns `Cancelled`.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether `cancel` was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Wraps an existing flag (e.g. the turn's), so one Ctrl+C reaches every layer.
    pub fn from_arc(flag: Arc<AtomicBool>) -> Self {
        Self(flag)
    }
}
