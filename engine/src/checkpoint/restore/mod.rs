//! Restore: puts the workspace back to a checkpoint's manifest.
//!
//! [`plan`] compares the checkpoint (`target`) with a manifest of the workspace as it is
//! (`now`) and says what would change, with +/− line counts and the paths something other than
//! this session changed (conflicts). [`apply`] then makes exactly that change as one
//! all-or-nothing transaction through a restore journal in the workspace's `.ash/`:
//!
//! 1. every kept content is read from the [`ObjectSource`], verified and staged under
//!    `.ash/restore.new/stage/` (nothing in the workspace changes; a damaged object refuses);
//! 2. the journal is published with one fsync'd rename to `.ash/restore`;
//! 3. deepest path first, each replaced or deleted entry is renamed into `removed/` and
//!    checked against `now` there (a concurrent writer rolls everything back, its write kept);
//! 4. parent first, each staged entry is renamed into place without replacing anything;
//! 5. directory modes are set, the `COMMITTED` marker is written, and the journal is deleted.
//!
//! Every step is one rename, rmdir or chmod through the workspace's directory descriptors, so
//! recovery ([`recover`]) can tell from the file system how far it got: without the marker it
//! rolls back, with it it only cleans up. Session open runs it next to the transaction
//! recovery and reports what it did as [`RecoveredRestore`].

mod apply;
mod aside;
mod crash;
mod desired;
mod error;
mod fsops;
mod journal;
mod lines;
mod plan;
mod recover;
mod source;

pub use apply::apply;
pub use aside::SUFFIX as CONFLICT_SUFFIX;
#[cfg(feature = "crash-points")]
pub use crash::{clear_moved_away, on_moved_away, on_published};
pub use error::RestoreError;
pub use plan::{external_changes, plan};
pub use recover::{RecoveredRestore, recover};
pub use source::{ObjectSource, SourceError};

pub(crate) use recover::recover_reporting;

/// What a planned path is (in the checkpoint for a restore or recreate, now for a delete).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (restored as a link, never followed).
    Symlink,
}

impl EntryKind {
    /// The lowercase name the protocol uses (`file`, `dir`, `symlink`).
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::Symlink => "symlink",
        }
    }
}

/// One path a restore changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Logical path relative to the workspace root.
    pub path: String,
    /// What it becomes (restore, recreate) or what it is now (delete).
    pub kind: EntryKind,
    /// Lines the restore adds (0 for a binary file, a directory or a symlink).
    pub added_lines: u64,
    /// Lines the restore removes (0 for a binary file, a directory or a symlink).
    pub removed_lines: u64,
    /// A file side is binary (a NUL byte or not UTF-8): the line counts say nothing.
    pub binary: bool,
}

/// What a restore would do, for the user to see before anything changes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Paths present in both that differ (content, mode or kind), sorted.
    pub restore: Vec<PlannedFile>,
    /// Paths of the checkpoint absent now, sorted.
    pub recreate: Vec<PlannedFile>,
    /// Paths present now and absent from the checkpoint, sorted.
    pub delete: Vec<PlannedFile>,
    /// Paths of the three lists above that something other than this session changed.
    pub conflicts: Vec<String>,
    /// Paths never touched: not restorable in either manifest, or holding such a path (a
    /// state directory once, not with the paths below it).
    pub not_restorable: Vec<(String, crate::checkpoint::manifest::Unrestorable)>,
    /// Version-control and ansa state directories (`.git`, `.hg`, `.svn`, `.jj`, `.ash`,
    /// `.ansa`) in which paths differ between the checkpoint and now, with how many: changed,
    /// and never restored. Counted from the paths' stat, never their content. Sorted.
    pub changed_not_restored: Vec<(String, u64)>,
    /// Paths of the restore and delete lists whose current version was recorded without
    /// content (too large, unreadable, ignored …): it is replaced or deleted without being
    /// kept, so rewinding this rewind cannot bring it back. Sorted.
    pub unkept: Vec<String>,
}

/// A path where a rolled-back restore met a concurrent writer: the writer's version is at
/// `path`, and the version the rollback had to put back there is at `set_aside`, next to it
/// (`NAME.ansa-rewind-conflict-N`, the first free `N`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RollbackConflict {
    /// Logical path relative to the workspace root.
    pub path: String,
    /// Where the other version is now, relative to the workspace root.
    pub set_aside: String,
}

/// Who wins at a conflicting path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnConflict {
    /// The path is left as it is now (and so is anything that must stay for it to stay).
    Keep,
    /// The checkpoint's version wins.
    Take,
}

/// What a finished restore did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// Paths put back to the checkpoint's content, mode or kind.
    pub restored: usize,
    /// Paths created again.
    pub recreated: usize,
    /// Paths deleted.
    pub deleted: usize,
    /// Planned paths left as they were (conflicts kept, and the paths they hold in place).
    pub kept: Vec<String>,
}
