//! Events: every line carries `stream_sequence`; parsing is strict like commands.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use super::approval::ApprovalRequest;
use super::maintenance::{Compacted, ProviderNotice, WorkspaceDiff};
use super::report::ToolReport;
use super::rewind::{CheckpointItem, CheckpointNotice, RewindDone, RewindPlan};
use super::story::StoryPage;
use super::strict::StrictObject;
use crate::ids::{CallId, CommandId, Incarnation, Profile, RequestId};
use crate::record::{ApprovalDecision, Mode, TurnState};
use crate::tool_output::ToolOutputPage;
use crate::transcript::TranscriptPage;

/// State of a text preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewState {
    /// Provisional text while streaming.
    Preview,
    /// Confirmed: a final answer by a durable `done`, or the commentary that came with a
    /// response's tool calls once the response is journaled.
    Committed,
    /// Dropped (error, cancel, retry).
    Discarded,
}

/// A provisional answer shown while the model streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preview {
    /// Generation that produced it.
    pub generation: u64,
    /// The text so far.
    pub text: String,
    /// Its state.
    pub state: PreviewState,
}

/// Phase of a tool call reported to frontends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPhase {
    /// Intent synced, executor started.
    Started,
    /// Outcome synced.
    Finished,
    /// The tool reported an error to the model.
    Failed,
    /// No trustworthy result exists after a crash.
    EffectUnknown,
}

/// Machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The command line could not be parsed.
    ParseError,
    /// The FIFO is full.
    QueueFull,
    /// The same command ID with another command.
    CommandConflict,
    /// The target request does not exist or is not in the right state.
    UnknownTarget,
    /// Resume is blocked by a tool call with unknown effect.
    EffectUnknown,
    /// A write or fsync failed.
    StorageFailed,
    /// The journal is damaged; the session is read-only.
    ReadOnly,
    /// Another process holds the session.
    SessionBusy,
    /// The provider failed.
    ProviderError,
    /// The provider refused the credentials: log in again or fix the API key, then resume.
    AuthFailed,
    /// A turn is queued, running or waiting for approval: a rewind waits until it ends.
    Busy,
    /// The rewind's paths were changed by something other than this session and
    /// `on_conflict` was `refuse`: nothing changed; the message names the paths.
    RewindConflict,
    /// The rewind cannot be done (no checkpoint, a store object failed its check, a read-only
    /// workspace, a concurrent writer …): nothing changed; the message says why.
    RewindRefused,
    /// `compact` cannot run now (nothing old enough to compact, a read-only journal).
    CompactRefused,
    /// `diff` cannot be answered (no checkpoint yet, the store cannot be read).
    DiffUnavailable,

    /// A submit's `@` mention names a file that cannot be attached (missing, outside the
    /// workspace, excluded, ignored, binary): nothing was accepted; the message says which
    /// and why.
    MentionRefused,
    /// A `model` command names a model the catalog does not list, an effort the model does
    /// not take, or the catalog cannot be read: nothing changed; the message lists the models.
    ModelRefused,
}

/// Token usage summed over a session's generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionUsage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens served from the provider's cache.
    pub cached_tokens: u64,
}

/// The `snapshot` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotEvent {
    /// `live` or `offline`.
    pub session: Profile,
    /// The runtime incarnation commands must echo.
    pub incarnation: Incarnation,
    /// Mode of the current (or next) turn.
    pub mode: Mode,
    /// Entries in the transcript projection.
    pub transcript_size: u64,
    /// The current turn, if any.
    pub request_id: Option<RequestId>,
    /// Latest turn number.
    pub turn: u64,
    /// The current turn is paused and may be resumed.
    pub resume_available: bool,
    /// State of the current turn (`null` before the first).
    pub state: Option<TurnState>,
    /// Everything reported here is on stable storage.
    pub durable: bool,
    /// A write or fsync failed (`storage_failed`).
    pub storage_failed: bool,
    /// The journal is damaged and the session read-only.
    pub read_only: bool,
    /// Why the session is read-only: which journal part and record, and what check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_reason: Option<String>,
    /// The live preview, if any.
    pub preview: Option<Preview>,
    /// Tokens the session's generations used so far (absent before the first report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<SessionUsage>,
    /// How large the saved context is against the compaction budget (absent until known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextSize>,
    /// The tool call of the current turn waiting for `approve`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<Box<ApprovalRequest>>,
    /// Cursor: continue after this `stream_sequence`.
    pub through_sequence: u64,
}

/// The saved context's size and the budget above which it is compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSize {
    /// Bytes of the context as sent to the provider (its items as JSON).
    pub bytes: u64,
    /// `compact_bytes`: compaction runs before a turn once the context is larger.
    pub budget: u64,
}

/// Event type and payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum EventBody {
    /// Current state.
    Snapshot(SnapshotEvent),
    /// A command was accepted durably.
    CommandAccepted {
        /// The command.
        command_id: CommandId,
        /// Its turn.
        request_id: RequestId,
        /// Turn number.
        turn: u64,
    },
    /// A command with a known ID was sent again.
    CommandReplayed {
        /// The command.
        command_id: CommandId,
        /// Its turn.
        request_id: RequestId,
        /// Turn number.
        turn: u64,
    },
    /// Provisional text.
    TextPreview {
        /// The turn.
        request_id: RequestId,
        /// Generation that produced it.
        generation: u64,
        /// The text so far.
        text: String,
        /// Its state.
        state: PreviewState,
    },
    /// The full confirmed final answer.
    TextDelta {
        /// The turn.
        request_id: RequestId,
        /// The answer.
        text: String,
    },
    /// A tool call changed phase.
    ToolStatus {
        /// The turn.
        request_id: RequestId,
        /// Provider call ID.
        call_id: CallId,
        /// Tool name.
        tool: String,
        /// What it works on (a path, a query, a command line), for one status line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
        /// Its phase.
        status: ToolPhase,
        /// What it did, once it finished or failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        report: Option<ToolReport>,
        /// The MCP server of an `mcp__…` tool (issue 45); boxed to keep events small.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<Box<str>>,
    },
    /// A turn changed state.
    TurnState {
        /// The turn.
        request_id: RequestId,
        /// New state.
        state: TurnState,
        /// Why, if known.
        reason: Option<String>,
    },
    /// A turn finished; `durable` is false only after a storage failure.
    Done {
        /// The turn.
        request_id: RequestId,
        /// The final answer is on stable storage.
        durable: bool,
    },
    /// A generation reported token usage; the totals of the session so far.
    Usage {
        /// The turn of the generation.
        request_id: RequestId,
        /// Session totals.
        usage: SessionUsage,
    },
    /// The model's reasoning summary so far (with previews on): provisional, shown while the
    /// turn runs, never part of the transcript.
    ReasoningPreview {
        /// The turn.
        request_id: RequestId,
        /// The generation it belongs to.
        generation: u64,
        /// The summary so far.
        text: String,
    },
    /// A provider request failed and is tried again after `delay_ms`.
    Retrying {
        /// The turn.
        request_id: RequestId,
        /// The attempt about to be made (2 for the first retry).
        attempt: u32,
        /// Attempts allowed in all.
        of: u32,
        /// The wait before it, in milliseconds.
        delay_ms: u64,
        /// Why the last attempt failed (`429 Too Many Requests`).
        reason: String,
    },
    /// A tool call waits for the user's decision: answer with `approve`. The turn waits
    /// without a timeout; `cancel` ends it.
    ApprovalRequired(Box<ApprovalRequest>),
    /// An approval was decided (durably); an approved call starts next.
    ApprovalDecided {
        /// The turn.
        request_id: RequestId,
        /// The call.
        call_id: CallId,
        /// The decision.
        decision: ApprovalDecision,
        /// The user's reason for a denial, if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The points a rewind can return to (answers `checkpoints`), newest first.
    Checkpoints {
        /// The points.
        items: Vec<CheckpointItem>,
    },
    /// What a rewind will change (answers `rewind`, before anything changes).
    RewindPlan(RewindPlan),
    /// What a rewind did, once it is durable.
    RewindDone(RewindDone),
    /// Something about checkpoints the user must know (a spent budget, a failed capture).
    CheckpointNotice(CheckpointNotice),
    /// Events were dropped; ask for a snapshot.
    ResyncRequired {
        /// Why.
        reason: String,
    },
    /// A transcript page.
    Transcript(TranscriptPage),
    /// A page of a tool call's stored output (answers `tool_output`).
    ToolOutput(ToolOutputPage),
    /// A command or runtime error.
    Error {
        /// The command it answers, if any.
        command_id: Option<CommandId>,
        /// Machine-readable code.
        code: ErrorCode,
        /// What failed and what to do.
        message: String,
    },
    /// What this session changed in the workspace (answers `diff`).
    WorkspaceDiff(WorkspaceDiff),
    /// A compaction asked for with `compact` is durable: the context's size before and after.
    Compacted(Compacted),
    /// Something about the provider the user should know, said once per session.
    ProviderNotice(ProviderNotice),

    /// A transcript page with each of its turns' steps (answers `story`).
    Story(StoryPage),
    /// The models a `model` command may name (answers `models`).
    ModelCatalog(super::model::ModelCatalog),
    /// The session's model changed for the following turns (durable).
    Rebound(super::model::Rebound),
    /// An event of an orchestrate-mode child, tagged with the child.
    Child(super::ChildEvent),
    /// Where a child of a `delegate` call stands.
    ChildStatus(super::ChildStatus),
    /// The session's MCP servers (issue 45): on a state change and in answer to `mcp_status`.
    McpServers(super::mcp::McpServers),
}

/// One event line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Position in this incarnation's event stream, from 1, without gaps.
    pub stream_sequence: u64,
    /// Type and payload.
    pub body: EventBody,
}

/// Why an event line was rejected.
#[derive(Debug, Error)]
pub enum EventError {
    /// Not a JSON object (or duplicate keys).
    #[error("event is not a valid JSON object: {0}")]
    NotJson(String),
    /// `stream_sequence` is missing or not an unsigned integer.
    #[error("event needs an unsigned integer `stream_sequence`")]
    StreamSequence,
    /// Type or payload invalid.
    #[error("invalid event: {0}")]
    Invalid(String),
}

impl Event {
    /// The event as one JSON line (no newline), `stream_sequence` first.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let body = serde_json::to_string(&self.body)?;
        // Every body serialises as an object starting with `{"type":`.
        Ok(format!(
            "{{\"stream_sequence\":{},{}",
            self.stream_sequence,
            &body[1..]
        ))
    }

    /// Parses one event line strictly (unknown fields and types rejected).
    pub fn parse(line: &str) -> Result<Self, EventError> {
        let mut o: StrictObject =
            serde_json::from_str(line).map_err(|e| EventError::NotJson(e.to_string()))?;
        let stream_sequence = o
            .take("stream_sequence")
            .and_then(|v| v.as_u64())
            .ok_or(EventError::StreamSequence)?;
        let body = EventBody::deserialize(Value::Object(o.0.into_iter().collect()))
            .map_err(|e| EventError::Invalid(e.to_string()))?;
        Ok(Event {
            stream_sequence,
            body,
        })
    }
}
