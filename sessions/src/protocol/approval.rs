//! What a frontend shows when a tool call needs the user's approval (ask mode): the whole
//! action, never cut — an `exec`'s full argv, cwd, every environment change and its stdin; an
//! edit's whole diff; every file action with a created file's content. What cannot be shown
//! whole is marked [`Withheld`], and such an action may only be denied
//! (docs/security.md, "Approvals: what is shown is all of what runs").

use serde::{Deserialize, Serialize};

use super::report::FileDiff;
use crate::ids::{CallId, RequestId};

/// Longest reason a user may give for a denial, in bytes.
pub const MAX_REASON_BYTES: usize = 4096;

/// Most bytes of argv, environment, stdin, file content and diff text an approval carries;
/// a bigger action is [`Withheld::TooLarge`] and can only be denied.
pub const MAX_SHOWN_BYTES: u64 = 4 * 1024 * 1024;

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
    /// An `exec`'s working directory (`.` is the workspace root; older records leave the root
    /// out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// An `exec`'s environment changes, in order, with their whole values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvShown>,
    /// An `exec`'s standard input, whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// An edit's whole change, per file: every hunk, whole lines, nothing cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<FileDiff>,
    /// A file operation's actions, one line each (older records also put an `exec`'s
    /// environment changes and stdin size here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// The files a `files` call creates, with their whole content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created: Vec<CreatedFile>,
    /// Set when part of the action could not be carried; the action may then only be denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<Withheld>,
    /// An `exec` the model asked to run outside the configured OS sandbox: it would run with
    /// the user's full rights (every frontend says so first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside_sandbox: bool,
}

impl ApprovalRequest {
    /// Whether the whole action is shown, so that it may be approved (otherwise only denied).
    pub fn approvable(&self) -> bool {
        self.withheld.is_none()
    }
}

/// One environment change of an `exec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvShown {
    /// The variable.
    pub name: String,
    /// Its new value, whole; `None` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// A file a `files` call creates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreatedFile {
    /// The file, as the model named it.
    pub path: String,
    /// Its whole content.
    pub content: String,
}

/// Why an approval does not carry the whole action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case", deny_unknown_fields)]
pub enum Withheld {
    /// The text to show is larger than [`MAX_SHOWN_BYTES`].
    #[error(
        "this action is {bytes} bytes of text, more than the {limit} bytes an approval shows; it can only be denied"
    )]
    TooLarge {
        /// Bytes of argv, environment, stdin, content and diff text.
        bytes: u64,
        /// The bound it passed.
        limit: u64,
    },
    /// Part of the action is not text the approval can carry (a retained value, a file that
    /// could not be read for the diff).
    #[error("{what} cannot be shown; the action can only be denied")]
    Unshowable {
        /// Which part, in words.
        what: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request recorded before the whole action was carried still reads, and the new
    /// fields round-trip.
    #[test]
    fn old_requests_read_and_new_fields_round_trip() -> Result<(), serde_json::Error> {
        let old = r#"{"request_id":3,"call_id":"c1","tool":"exec","action":"v:1","digest":"ab",
            "summary":"run env","argv":["env"],"actions":["set A=1","stdin: 4 bytes"]}"#;
        let read: ApprovalRequest = serde_json::from_str(old)?;
        assert_eq!(read.actions, vec!["set A=1", "stdin: 4 bytes"]);
        assert!(read.approvable());
        let mut new = read.clone();
        new.env = vec![EnvShown {
            name: "A".into(),
            value: Some("1".into()),
        }];
        new.stdin = Some("data".into());
        new.created = vec![CreatedFile {
            path: "x".into(),
            content: "y".into(),
        }];
        new.withheld = Some(Withheld::TooLarge { bytes: 9, limit: 4 });
        let text = serde_json::to_string(&new)?;
        assert!(
            text.contains(r#""withheld":{"reason":"too_large","bytes":9,"limit":4}"#),
            "{text}"
        );
        let back: ApprovalRequest = serde_json::from_str(&text)?;
        assert_eq!(back, new);
        assert!(!back.approvable());
        Ok(())
    }
}
