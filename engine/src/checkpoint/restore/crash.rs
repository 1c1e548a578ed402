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
        pub(super) static MOVED: std::cell::RefCell<Option<Moved>> =
            const { std::cell::RefCell::new(None) };
    }

    pub(super) use crate::txn::crash::hook::hit;

    /// What a test runs with each path a restore moves away.
    pub(super) type Moved = Box<dyn FnMut(&str)>;
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

/// The restore moved `path` away into its journal (a test's concurrent writer acts here).
pub(crate) fn moved_away(path: &str) {
    #[cfg(feature = "crash-points")]
    hook::MOVED.with(|h| {
        if let Some(f) = h.borrow_mut().as_mut() {
            f(path);
        }
    });
    #[cfg(not(feature = "crash-points"))]
    let _ = path;
}

/// Runs `f` on this thread with each path the restores it runs move away into their journal,
/// right after the move (tests of a writer creating a path again during a restore).
#[cfg(feature = "crash-points")]
pub fn on_moved_away(f: impl FnMut(&str) + 'static) {
    hook::MOVED.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}

/// Forgets the hook [`on_moved_away`] set.
#[cfg(feature = "crash-points")]
pub fn clear_moved_away() {
    hook::MOVED.with(|h| *h.borrow_mut() = None);
}

/// Runs `f` on this thread right after the next restore journal it publishes, before any
/// path of the workspace changes (tests of the per-path checks against `now`).
#[cfg(feature = "crash-points")]
pub fn on_published(f: impl FnOnce() + 'static) {
    hook::PUBLISHED.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}
