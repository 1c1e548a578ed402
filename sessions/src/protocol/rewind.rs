//! The payloads of the `checkpoints`, `rewind_plan`, `rewind_done` and `checkpoint_notice`
//! events (issue 41).

use serde::{Deserialize, Serialize};

use crate::ids::RequestId;
use crate::rewind::{ManifestHex, RewindScope};

/// One point a rewind can return to, in the `checkpoints` event (newest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointItem {
    /// The turn: a rewind to it takes back its prompt and everything after.
    pub request_id: RequestId,
    /// Its turn number (what `ansa --rewind N` takes).
    pub turn: u64,
    /// When its first checkpoint was captured, in milliseconds since the Unix epoch; `null`
    /// when the turn changed nothing in the workspace (it has no checkpoint).
    pub time: Option<u64>,
    /// The first line of its prompt.
    pub prompt: String,
    /// Paths the turn changed (at most 64), sorted.
    pub files_changed: Vec<String>,
    /// The workspace as it was before this turn can be restored (false when the turn's
    /// checkpoint is missing or the store's budget was spent).
    pub restorable: bool,
    /// A conversation rewind already took this turn back.
    pub rewound: bool,
    /// Present on the point just before a rewind: send it as the `rewind` command's
    /// `checkpoint` (scope `code`) to undo that rewind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<ManifestHex>,
}

/// What kind of entry a planned path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
}

/// One path a rewind changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedPath {
    /// Path relative to the workspace root, `/`-separated.
    pub path: String,
    /// What it will be (for a deletion: what it is now).
    pub kind: PathKind,
    /// Lines the rewind adds to it.
    pub added: u64,
    /// Lines the rewind removes from it.
    pub removed: u64,
}

/// A path a rewind leaves alone because its content was never kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotRestorable {
    /// Path relative to the workspace root.
    pub path: String,
    /// Why (`ignored by .gitignore`, `larger than 16 MiB`, `unreadable: permission denied` …).
    pub reason: String,
}

/// What a rewind will change, before anything changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewindPlan {
    /// The turn it returns to.
    pub target: RequestId,
    /// What it takes back.
    pub scope: RewindScope,
    /// Paths put back (content, mode or kind differ).
    pub restore: Vec<PlannedPath>,
    /// Paths created again.
    pub recreate: Vec<PlannedPath>,
    /// Paths deleted.
    pub delete: Vec<PlannedPath>,
    /// Paths of the plan that something other than this session changed after the turn.
    pub conflicts: Vec<String>,
    /// Paths left alone because their content was never kept.
    pub not_restorable: Vec<NotRestorable>,
    /// Paths of `restore` and `delete` whose current version was never kept (too large,
    /// unreadable, ignored …): the rewind replaces it and undoing the rewind cannot bring it back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unkept: Vec<String>,
    /// Turns whose conversation the rewind takes back (empty for scope `code`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewound: Vec<RequestId>,
    /// Version-control and ansa state directories (`.git`, `.hg`, `.svn`, `.jj`, `.ash`,
    /// `.ansa`) with paths changed since the checkpoint: changed, and never restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_not_restored: Vec<ChangedNotRestored>,
}

/// A state directory a rewind leaves as it is although paths in it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangedNotRestored {
    /// The directory, relative to the workspace root.
    pub path: String,
    /// How many paths at or below it were created, deleted or changed.
    pub paths: u64,
}

/// What a rewind did (after its `rewind` record was synced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewindDone {
    /// The turn it returned to.
    pub target: RequestId,
    /// What it took back.
    pub scope: RewindScope,
    /// Paths put back.
    pub restored: u64,
    /// Paths created again.
    pub recreated: u64,
    /// Paths deleted.
    pub deleted: u64,
    /// Conflicting paths left as they were (`on_conflict: keep`).
    pub kept: Vec<String>,
    /// The chosen turn's prompt, whole: a frontend puts it back in the input for editing.
    pub prompt: String,
    /// Turns whose conversation was taken back (empty for scope `code`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewound: Vec<RequestId>,
    /// The checkpoint taken just before the restore: `rewind` with it undoes this rewind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<ManifestHex>,
    /// Another process wrote the workspace during the restore: it was rolled back, nothing
    /// was rewound (the counts are 0 and the conversation is as it was), and `conflicts` says
    /// where both versions of a path it created again are.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rolled_back: bool,
    /// Paths of a rolled-back restore that another process created again: its version is at
    /// the path, the version from before the restore next to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<RewindConflict>,
}

/// A path where a rolled-back restore kept two versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewindConflict {
    /// Path relative to the workspace root: the other process's version.
    pub path: String,
    /// Where the version from before the restore now is (`PATH.ansa-rewind-conflict-N`).
    pub set_aside: String,
}

/// Why a checkpoint notice was published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointNoticeKind {
    /// The session's store budget (`checkpoint_budget_bytes`) is spent: new contents are not
    /// kept, so changes from here on cannot be fully rewound.
    OverBudget,
    /// A checkpoint could not be taken (the turn went on; it cannot be rewound).
    Failed,
    /// A rewind was interrupted (the process stopped during it); the message says whether
    /// the workspace is as before or as after its restore.
    RewindRecovered,
}

/// A visible notice about checkpoints (never silent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointNotice {
    /// The turn that was being checkpointed.
    pub request_id: RequestId,
    /// Which notice.
    pub kind: CheckpointNoticeKind,
    /// One line for the user: what happened and what it means.
    pub message: String,
}
