//! Numbered cut points of a restore, for crash tests.
//!
//! Only with the `crash-points` cargo feature (test builds): the process SIGKILLs itself when
//! the n-th forward cut point of a restore equals `ASH_CRASH_RESTORE_AT=n`, or the n-th cut
//! point of a restore's rollback or recovery equals `ASH_CRASH_RESTORE_RECOVERY_AT=n`.
//! Without the feature these functions are empty and compile away. One in-process hook,
//! [`on_published`], lets a test act as a concurrent writer right after the journal is
//! published.

#[cfg(feature = "crash-points")]
mod hook {
    use std::sync::atomic::AtomicU64;

    pub(super) static FORWARD: AtomicU64 = AtomicU64::new(0);
    pub(super) static RECOVERY: AtomicU64 = AtomicU64::new(0);

    thread_local! {
        pub(super) static PUBLISHED: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
            const { std::cell::RefCell::new(None) };
    }

    pub(super) use crate::txn::crash::hook::hit;
}

/// A forward cut point (staging, each step of apply, commit, cleanup).
pub(crate) fn forward() {
    #[cfg(feature = "crash-points")]
    hook::hit(&hook::FORWARD, "ASH_CRASH_RESTORE_AT");
}

/// A rollback or recovery cut point.
pub(crate) fn recovery() {
    #[cfg(feature = "crash-points")]
    hook::hit(&hook::RECOVERY, "ASH_CRASH_RESTORE_RECOVERY_AT");
}

/// The journal was published and nothing in the workspace changed yet.
pub(crate) fn published() {
    #[cfg(feature = "crash-points")]
    if let Some(f) = hook::PUBLISHED.with(|h| h.borrow_mut().take()) {
        f();
    }
}

/// Runs `f` on this thread right after the next restore journal it publishes, before any
/// path of the workspace changes (tests of the per-path checks against `now`).
#[cfg(feature = "crash-points")]
pub fn on_published(f: impl FnOnce() + 'static) {
    hook::PUBLISHED.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}
