//! Numbered cut points for crash tests.
//!
//! Only with the `crash-points` cargo feature (enabled for test builds through the crate's
//! self dev-dependency): the process SIGKILLs itself when the n-th forward cut point equals
//! `ASH_CRASH_AT=n`, the n-th recovery cut point equals `ASH_CRASH_RECOVERY_AT=n`, or the
//! n-th state directory creation reaches its cut point with `ASH_CRASH_STATE_DIR_AT=n`.
//! Without the feature both functions are empty and compile away.
//!
//! The same feature offers one in-process hook for tests: [`on_published`] runs a closure on
//! the calling thread right after the next journal this thread publishes, before anything is
//! applied, so a test can change the workspace exactly between preflight and apply.

#[cfg(feature = "crash-points")]
pub(crate) mod hook {
    use std::sync::atomic::{AtomicU64, Ordering};

    pub(super) static FORWARD: AtomicU64 = AtomicU64::new(0);
    pub(super) static RECOVERY: AtomicU64 = AtomicU64::new(0);
    pub(super) static STATE_DIR: AtomicU64 = AtomicU64::new(0);

    thread_local! {
        pub(super) static PUBLISHED: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
            const { std::cell::RefCell::new(None) };
    }

    /// Counts one cut point on `counter` and SIGKILLs the process when the count is the number
    /// in the environment variable `var` (shared by the restore's cut points).
    pub(crate) fn hit(counter: &AtomicU64, var: &str) {
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        let wanted = std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok());
        if wanted == Some(n) {
            // A real kill, not an unwind: nothing after this point may run.
            let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// A forward cut point (preparation, apply, commit).
pub(crate) fn forward() {
    #[cfg(feature = "crash-points")]
    hook::hit(&hook::FORWARD, "ASH_CRASH_AT");
}

/// A recovery or rollback cut point.
pub(crate) fn recovery() {
    #[cfg(feature = "crash-points")]
    hook::hit(&hook::RECOVERY, "ASH_CRASH_RECOVERY_AT");
}

/// The state directory is built under its private name and not yet renamed to `.ash`.
pub(crate) fn state_dir() {
    #[cfg(feature = "crash-points")]
    hook::hit(&hook::STATE_DIR, "ASH_CRASH_STATE_DIR_AT");
}

/// The journal was published and nothing is applied yet.
pub(crate) fn published() {
    #[cfg(feature = "crash-points")]
    if let Some(f) = hook::PUBLISHED.with(|h| h.borrow_mut().take()) {
        f();
    }
}

/// Runs `f` on this thread right after the next journal it publishes, before any action is
/// applied (tests of the apply-time re-checks).
#[cfg(feature = "crash-points")]
pub fn on_published(f: impl FnOnce() + 'static) {
    hook::PUBLISHED.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}
