//! The events of orchestrate mode's children (docs/protocol.md, "Orchestrate: children").

use serde::{Deserialize, Serialize};

use super::event::EventBody;
use crate::child::{ChildId, ChildProfile, ChildState};
use crate::ids::{CallId, RequestId};

/// One event of a child's own stream, forwarded on the parent's: `request_id`s and `call_id`s
/// inside are the child sub-session's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildEvent {
    /// The child.
    pub child: ChildId,
    /// The event as the child's runtime published it.
    pub event: Box<EventBody>,
}

/// Where one child of a `delegate` call stands: published when it is queued, starts, runs a
/// tool and ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildStatus {
    /// The parent's turn.
    pub request_id: RequestId,
    /// The parent's `delegate` call.
    pub call_id: CallId,
    /// The child.
    pub child: ChildId,
    /// Its place in the call, from 1.
    pub index: u32,
    /// Its instruction (as the model wrote it; frontends sanitise it).
    pub task: String,
    /// Its tools.
    pub profile: ChildProfile,
    /// Where it is.
    pub state: ChildState,
    /// Tool calls it started so far.
    pub tools: u32,
    /// Time it has run in this process, in milliseconds.
    pub elapsed_ms: u64,
    /// Why it paused or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
