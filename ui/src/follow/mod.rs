//! Following one session's event stream, shared by every frontend: the stream cursor (gaps,
//! command IDs, the catch-up snapshot) and the task match (which acceptance, events and
//! catch-up answers belong to a task). The TUI drives them from its event handlers; line and
//! one-shot modes through the blocking [`Follower`].

mod blocking;
mod cursor;
mod task;

use std::sync::mpsc::RecvError;

use ansa_sessions::protocol::{Event, EventBody, ProtocolContext, SnapshotEvent};

use crate::SessionLink;
use crate::error::UiError;

pub(crate) use blocking::{Follower, Progress, TaskEnd};
pub(crate) use cursor::Cursor;
pub(crate) use task::{CatchUp, TaskMatch};

/// Waits for the first event and checks that it is a `snapshot`.
pub(crate) fn first_snapshot(link: &SessionLink) -> Result<(Event, SnapshotEvent), UiError> {
    let event = link
        .events
        .recv()
        .map_err(|RecvError| UiError::stopped("before sending its first snapshot"))?;
    match &event.body {
        EventBody::Snapshot(s) => {
            let s = s.clone();
            Ok((event, s))
        }
        other => Err(UiError::Protocol(format!(
            "the first event must be a snapshot, got {}",
            event_type(other)
        ))),
    }
}

/// The context every command must echo, from a snapshot.
pub(crate) fn context(s: &SnapshotEvent) -> ProtocolContext {
    ProtocolContext {
        session: s.session,
        incarnation: s.incarnation.clone(),
    }
}

/// The wire `type` of an event body.
pub(crate) fn event_type(body: &EventBody) -> &'static str {
    match body {
        EventBody::Snapshot(_) => "snapshot",
        EventBody::CommandAccepted { .. } => "command_accepted",
        EventBody::CommandReplayed { .. } => "command_replayed",
        EventBody::TextPreview { .. } => "text_preview",
        EventBody::TextDelta { .. } => "text_delta",
        EventBody::ToolStatus { .. } => "tool_status",
        EventBody::TurnState { .. } => "turn_state",
        EventBody::Done { .. } => "done",
        EventBody::ResyncRequired { .. } => "resync_required",
        EventBody::Transcript(_) => "transcript",
        EventBody::ToolOutput(_) => "tool_output",
        EventBody::Error { .. } => "error",
        EventBody::Usage { .. } => "usage",
        EventBody::Retrying { .. } => "retrying",
        EventBody::ReasoningPreview { .. } => "reasoning_preview",
        EventBody::ApprovalRequired(_) => "approval_required",
        EventBody::ApprovalDecided { .. } => "approval_decided",
        EventBody::Checkpoints { .. } => "checkpoints",
        EventBody::RewindPlan(_) => "rewind_plan",
        EventBody::RewindDone(_) => "rewind_done",
        EventBody::CheckpointNotice(_) => "checkpoint_notice",
        EventBody::WorkspaceDiff(_) => "workspace_diff",
        EventBody::Compacted(_) => "compacted",
        EventBody::ProviderNotice(_) => "provider_notice",

        EventBody::Story(_) => "story",
        EventBody::ModelCatalog(_) => "model_catalog",
        EventBody::Rebound(_) => "rebound",
        EventBody::Child(_) => "child",
        EventBody::ChildStatus(_) => "child_status",
        EventBody::McpServers(_) => "mcp_servers",
    }
}

#[cfg(test)]
mod tests;
