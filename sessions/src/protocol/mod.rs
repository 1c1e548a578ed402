//! The session protocol (docs/contract/agent-behaviour.md §7): JSONL commands in, events out, shared by every frontend.

mod approval;
mod child;
mod command;
mod event;
mod maintenance;
mod mcp;

mod mention;
mod model;
mod report;
mod rewind;
mod story;
mod strict;

pub use approval::{
    ApprovalRequest, CreatedFile, EnvShown, MAX_REASON_BYTES, MAX_SHOWN_BYTES, Withheld,
};
pub use child::{ChildEvent, ChildStatus};
pub use command::{Command, CommandBody, CommandError, MAX_COMMAND_BYTES, parse_command};
pub use event::{
    ContextSize, ErrorCode, Event, EventBody, EventError, Preview, PreviewState, SessionUsage,
    SnapshotEvent, ToolPhase,
};
pub use maintenance::{
    Compacted, DiffFile, DiffOmitted, DiffStatus, ProviderNotice, ProviderNoticeKind,
    WORKSPACE_DIFF_LINES, WorkspaceDiff, estimated_tokens,
};

pub use mcp::{McpServerRow, McpServerState, McpServers};
pub use mention::{MAX_MENTION_BYTES, MAX_MENTIONS, MentionPath};
pub use report::{
    DIFF_LINES, DiffLine, DiffSign, FileDiff, LINE_CHARS, REASON_CHARS, ReportTone, TAIL_LINES,
    ToolReport, cut_line,
};
pub use rewind::{
    ChangedNotRestored, CheckpointItem, CheckpointNotice, CheckpointNoticeKind, NotRestorable,
    PathKind, PlannedPath, RewindConflict, RewindDone, RewindPlan,
};

pub use model::{CatalogModel, MAX_MODEL_BYTES, ModelCatalog, ModelChoice, Rebound};
pub use story::{MAX_STORY_STEPS, StoryPage, StoryStep, TurnStory};

use crate::ids::{Incarnation, Profile};

/// The only `schema_version` this crate speaks.
pub const SCHEMA_VERSION: u64 = 1;

/// What every command must echo: the session kind and the runtime incarnation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolContext {
    /// `live` or `offline`, as announced in the first snapshot.
    pub session: Profile,
    /// The incarnation announced in the first snapshot.
    pub incarnation: Incarnation,
}
