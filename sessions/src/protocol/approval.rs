//! What a frontend shows when a tool call needs the user's approval (ask mode): the exact
//! action in words and, by tool, the command line, the edit's diff or the file actions.

use serde::{Deserialize, Serialize};

use super::report::FileDiff;
use crate::ids::{CallId, RequestId};

/// Longest reason a user may give for a denial, in bytes.
pub const MAX_REASON_BYTES: usize = 4096;

/// One tool call waiting for `approve` (the `approval_required` event, and a snapshot's
/// `approval` while it waits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRequest {
    /// The turn.
    pub request_id: RequestId,
    /// Provider call ID: the `call` of the `approve` command.
    pub call_id: CallId,
    /// Tool name (`exec`, `edit`, `files`).
    pub tool: String,
    /// The engine's canonical action document (ASON) a permit is bound to.
    pub action: String,
    /// Its action digest (64 lowercase hex digits).
    pub digest: String,
    /// What it does, in one line.
    pub summary: String,
    /// An `exec`'s program and arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv: Vec<String>,
    /// An `exec`'s working directory, when not the workspace root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// An edit's change, per file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<FileDiff>,
    /// A file operation's actions, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
}
