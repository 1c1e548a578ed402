//! Why a restore was refused or failed.

use super::{RollbackConflict, SourceError};

/// Why a restore was refused or did not complete. Every variant but `Recovery` leaves the
/// workspace exactly as it was before the restore.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// A manifest is malformed (unsorted, a bad path, a child without its directory …).
    #[error("the {which} manifest is invalid at {path:?}: {reason}; nothing was changed")]
    InvalidManifest {
        /// `target` or `now`.
        which: &'static str,
        /// The offending path.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The plan does not describe the difference of the two manifests it is applied with.
    #[error(
        "the plan does not match the checkpoints it is applied with (at {path}); make a new plan; nothing was changed"
    )]
    StalePlan {
        /// The first path that differs.
        path: String,
    },
    /// A kept content could not be read or failed its digest check.
    #[error("the checkpoint's copy of {path} cannot be used: {error}; nothing was changed")]
    Object {
        /// The workspace path whose content it is.
        path: String,
        /// What the store said.
        error: SourceError,
    },
    /// The workspace (or a directory of the restore) is on a read-only file system.
    #[error("cannot restore: {reason}; nothing was changed")]
    ReadOnly {
        /// Which file system and how that was found out.
        reason: String,
    },
    /// A path of the restore lies on another file system than `.ash`, so it cannot be
    /// renamed into place atomically.
    #[error(
        "cannot restore {path}: it is on another file system than the workspace's .ash directory; nothing was changed"
    )]
    CrossDevice {
        /// The path.
        path: String,
    },
    /// Another process changed `path` after the plan was made; everything was rolled back and
    /// its write is where it put it.
    #[error(
        "{path} was changed by another process during the restore; everything was rolled back, nothing was lost; make a new plan"
    )]
    Concurrent {
        /// The path found changed.
        path: String,
    },
    /// Other processes wrote paths during the restore and created some of them again after
    /// the restore had moved them away: everything was rolled back, each such path keeps the
    /// other process's version, and the version it had before the restore is set aside next
    /// to it. Nothing was lost and no journal is left.
    #[error("{}", conflicted(path, conflicts))]
    Conflicted {
        /// The path the restore first found changed.
        path: String,
        /// Each path holding a writer's version, with where the other version went.
        conflicts: Vec<RollbackConflict>,
    },
    /// `.ash` exists but is not the engine's state directory.
    #[error("{0}")]
    ForeignStateDir(String),
    /// Another mutation held the workspace for too long.
    #[error("the workspace is busy with another change; try again")]
    Busy,
    /// An I/O failure; anything changed was rolled back.
    #[error("restore failed: {0}; everything was rolled back")]
    Io(String),
    /// The rollback of a failed restore could not be proven: the journal in `.ash/restore` and
    /// the files are left as they are for inspection; the next session open retries.
    #[error(
        "restore could not be rolled back: {0}; the files it had moved are in .ash/restore/removed, and the next session open retries the rollback"
    )]
    Recovery(String),
}

fn conflicted(path: &str, conflicts: &[RollbackConflict]) -> String {
    let shown: Vec<String> = conflicts
        .iter()
        .take(10)
        .map(|c| {
            format!(
                "{} (its version from before the restore is now {})",
                c.path, c.set_aside
            )
        })
        .collect();
    let more = match conflicts.len() {
        n if n > 10 => format!(" and {} more", n - 10),
        _ => String::new(),
    };
    format!(
        "{path} was changed by another process during the restore; everything was rolled back, and where that process created a path again its version stays: {}{more}; nothing was lost; compare the versions, then make a new plan",
        shown.join(", ")
    )
}
