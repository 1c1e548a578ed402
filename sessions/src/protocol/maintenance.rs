//! The payloads of issue 43's on-demand commands and the provider's notices: `diff` (what this
//! session changed in the workspace, answered by `workspace_diff`), `compact` (answered by
//! `compacted`), and `provider_notice` (something about the provider the user should know
//! once, such as reasoning a host cannot carry between requests).

use serde::{Deserialize, Serialize};

use super::report::DiffLine;
use crate::ids::{CommandId, RequestId};

/// Most diff lines a `workspace_diff` carries over all files; the rest is counted in
/// [`WorkspaceDiff::lines_left_out`].
pub const WORKSPACE_DIFF_LINES: usize = 20_000;

/// How a path differs between the session's first checkpoint and now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffStatus {
    /// Not there at the first checkpoint.
    Added,
    /// There at the first checkpoint, gone now.
    Deleted,
    /// Other content, other permission bits, or another kind of entry.
    Modified,
}

/// Why a changed path comes without its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffOmitted {
    /// One side is not UTF-8 text.
    Binary,
    /// One side was not kept by the checkpoint (too large, unreadable, over the budget …) or
    /// cannot be read now.
    NotRestorable,
    /// A directory, a symlink or a change of kind: named, not diffed.
    NotAFile,
    /// Only the permission bits changed.
    ModeOnly,
    /// The diff's line budget ([`WORKSPACE_DIFF_LINES`]) was spent on earlier files.
    TooLong,
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffFile {
    /// The path, relative to the workspace, `/`-separated.
    pub path: String,
    /// How it changed.
    pub status: DiffStatus,
    /// Lines added (0 when not diffed).
    pub added: u64,
    /// Lines removed (0 when not diffed).
    pub removed: u64,
    /// Why there are no lines, when there are none for a reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<DiffOmitted>,
    /// More about `omitted` (the checkpoint's reason a file was not kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The unified diff's lines: hunks (`@@ -3,4 +3,5 @@`), context, additions, removals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<DiffLine>,
}

/// What this session changed in the workspace (answers `diff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceDiff {
    /// The command it answers.
    pub command_id: CommandId,
    /// The first checkpoint's manifest the diff starts from.
    pub base: String,
    /// The turn that checkpoint was taken before.
    pub base_request_id: RequestId,
    /// The changed paths, sorted by path bytes.
    pub files: Vec<DiffFile>,
    /// Diff lines not carried because of [`WORKSPACE_DIFF_LINES`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines_left_out: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A compaction that `compact` asked for, once it is durable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compacted {
    /// The command it answers.
    pub command_id: CommandId,
    /// The context's size before, in bytes as sent to the provider.
    pub bytes_before: u64,
    /// Its size after.
    pub bytes_after: u64,
    /// Estimated tokens before (a quarter of the bytes, rounded up).
    pub tokens_before: u64,
    /// Estimated tokens after.
    pub tokens_after: u64,
}

/// The estimate of tokens a context of `bytes` costs: a quarter of its bytes, rounded up
/// (English text and JSON average about four bytes a token).
pub fn estimated_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// Which provider notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderNoticeKind {
    /// The host sent reasoning without `encrypted_content`: it is shown, never re-sent.
    ReasoningNotCarried,
}

/// Something about the provider the user should know (said once per session).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderNotice {
    /// The turn it happened in.
    pub request_id: RequestId,
    /// Which notice.
    pub kind: ProviderNoticeKind,
    /// One line for the user.
    pub message: String,
}
