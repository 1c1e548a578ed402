//! Process-wide fsync counters, so benchmarks can report the durability share of a commit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static CALLS: AtomicU64 = AtomicU64::new(0);
static NANOS: AtomicU64 = AtomicU64::new(0);

/// fsync calls made by transactions so far, and the time spent in them.
pub fn fsync_totals() -> (u64, Duration) {
    (
        CALLS.load(Ordering::Relaxed),
        Duration::from_nanos(NANOS.load(Ordering::Relaxed)),
    )
}

/// Records one fsync call that took `took`.
pub(crate) fn record(took: Duration) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
    NANOS.fetch_add(nanos, Ordering::Relaxed);
}
