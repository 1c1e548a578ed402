//! Orchestrate mode's children as the journal and the protocol name them: each child of a
//! `delegate` call is a sub-session of its own in `<session dir>/children/<child id>/`
//! (docs/orchestrate.md, docs/sessions.md "Children").

use serde::{Deserialize, Serialize};

use crate::ids::{CallId, RequestId};

/// The tool whose calls start children. Its open intent does not block Resume: the call is
/// resumed (finished children keep their results), never run twice.
pub const DELEGATE_TOOL: &str = "delegate";

/// The directory below a session directory that holds its children's sub-sessions.
pub const CHILDREN_DIR: &str = "children";

/// Longest child ID.
const MAX_CHILD_ID: usize = 64;

/// A child's ID: also its sub-session's directory name, so only `[a-z0-9-]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ChildId(String);

/// A child ID that is not `[a-z0-9-]{1,64}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("child id {0:?} is not 1 to 64 characters of a-z, 0-9 and '-'")]
pub struct BadChildId(pub String);

impl ChildId {
    /// Checks a child ID read from a command or a directory name.
    pub fn new(text: impl Into<String>) -> Result<ChildId, BadChildId> {
        let text = text.into();
        let ok = !text.is_empty()
            && text.len() <= MAX_CHILD_ID
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if ok {
            Ok(ChildId(text))
        } else {
            Err(BadChildId(text))
        }
    }

    /// The ID of the `index`-th (1-based) child of one call: the same call always names its
    /// children the same way, so a resumed call finds them again. The model's call ID is
    /// hashed, never used as a path.
    pub fn for_call(request_id: RequestId, call_id: &CallId, index: u32) -> ChildId {
        let hash = blake3::hash(call_id.0.as_bytes()).to_hex();
        ChildId(format!("r{}-{}-{index}", request_id.0, &hash[..8]))
    }

    /// The ID as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ChildId {
    type Error = BadChildId;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        ChildId::new(text)
    }
}

impl From<ChildId> for String {
    fn from(id: ChildId) -> String {
        id.0
    }
}

impl std::fmt::Display for ChildId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which tools a child gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildProfile {
    /// Plan mode's read-only tools.
    ReadOnly,
    /// Basic mode's tools (never `delegate`: children do not delegate).
    Full,
}

/// Where a child is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildState {
    /// Waiting for a free slot (`max_children`).
    Queued,
    /// Its turn runs.
    Running,
    /// Its final answer is journaled.
    Done,
    /// It stopped and can be resumed with the parent's turn.
    Paused,
    /// It ended without an answer and cannot go on.
    Failed,
    /// Cancelled with the parent.
    Cancelled,
}

impl ChildState {
    /// Whether the child will not run again in this call.
    pub fn is_end(self) -> bool {
        !matches!(self, ChildState::Queued | ChildState::Running)
    }
}

/// A transcript page of a child's sub-session read from its journal without opening it (the
/// child may be resumed at the same moment; reading takes no lock and writes nothing).
pub fn read_transcript(
    dir: &std::path::Path,
    query: crate::TranscriptQuery,
) -> crate::Result<crate::TranscriptPage> {
    let mut state = crate::SessionState::default();
    for (seq, record) in crate::read_records(dir)? {
        state.apply(seq, &record);
    }
    Ok(crate::transcript::page(state.transcript(), query))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_ids_are_path_safe_and_stable() {
        let a = ChildId::for_call(RequestId(3), &CallId("../../etc".into()), 2);
        assert_eq!(
            a,
            ChildId::for_call(RequestId(3), &CallId("../../etc".into()), 2)
        );
        assert!(a.as_str().starts_with("r3-") && a.as_str().ends_with("-2"));
        assert!(ChildId::new(a.as_str()).is_ok());
        assert!(ChildId::new("../x").is_err());
        assert!(ChildId::new("").is_err());
        assert!(ChildId::new("A").is_err());
    }
}
