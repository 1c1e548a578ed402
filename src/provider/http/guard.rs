//! Bounding one await: the cancel flag, a per-step timeout and the attempt's deadline.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// How often the cancel flag is polled while waiting.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// Why a guarded wait stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The cancel flag was raised.
    Cancelled,
    /// The step's own timeout passed.
    Timeout,
    /// The attempt's deadline passed.
    Deadline,
}

/// `now + after`, or a far-future instant when that overflows.
pub(crate) fn deadline_after(after: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(after)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// Resolves once `flag` is raised (checked at once, then every [`CANCEL_POLL`]).
pub(crate) async fn raised(flag: &AtomicBool) {
    loop {
        if flag.load(Ordering::Acquire) {
            return;
        }
        tokio::time::sleep(CANCEL_POLL).await;
    }
}

/// Runs `fut` unless it is cancelled, takes longer than `timeout`, or reaches `deadline`.
pub(crate) async fn guard<F: Future>(
    fut: F,
    cancel: &AtomicBool,
    timeout: Duration,
    deadline: Instant,
) -> Result<F::Output, Stop> {
    let step = deadline_after(timeout);
    tokio::select! {
        biased;
        () = raised(cancel) => Err(Stop::Cancelled),
        () = tokio::time::sleep_until(deadline) => Err(Stop::Deadline),
        () = tokio::time::sleep_until(step) => Err(Stop::Timeout),
        out = fut => Ok(out),
    }
}

/// Sleeps `delay` unless cancelled first (then `Err`).
pub(crate) async fn sleep(delay: Duration, cancel: &AtomicBool) -> Result<(), Stop> {
    tokio::select! {
        biased;
        () = raised(cancel) => Err(Stop::Cancelled),
        () = tokio::time::sleep_until(deadline_after(delay)) => Ok(()),
    }
}
