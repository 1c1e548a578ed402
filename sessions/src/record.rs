//! Typed journal records. Each kind is one JSONL line: `{"sum":..,"seq":..,"kind":..,"body":..}`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

pub use crate::approval::{ApprovalDecided, ApprovalDecision, ApprovalRequested};
use crate::ids::{CallId, CommandId, PartNo, RequestId, Seq};
use crate::journal::Checksum;
pub use crate::rewind::{
    Checkpoint, CheckpointPhase, MAX_CHANGED_PATHS, ManifestHex, OnConflict, Rewind, RewindApplied,
    RewindRecovery, RewindScope,
};

/// Opaque JSON kept byte-for-byte (key order, number tokens and escapes preserved).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OpaqueJson(Box<RawValue>);

impl OpaqueJson {
    /// Validates `text` as one JSON value and keeps it exactly.
    pub fn from_text(text: impl Into<String>) -> Result<Self, serde_json::Error> {
        RawValue::from_string(text.into()).map(Self)
    }

    /// The exact JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for OpaqueJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// Link from a part to the verified end of the previous part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartLink {
    /// The previous part.
    pub part: PartNo,
    /// Length in bytes of its verified records; anything after is a torn tail.
    pub len: u64,
    /// Sequence number of its last record.
    pub last_seq: Seq,
    /// Checksum of its last record.
    pub last_sum: Checksum,
}

/// First record of every part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartHeader {
    /// Journal format version.
    pub format: u32,
    /// This part's number.
    pub part: PartNo,
    /// Link to the previous part (`None` for part 1).
    pub prev: Option<PartLink>,
}

/// How the context is budgeted and compacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextPolicy {
    /// Soft limit of the JSON context in bytes before compaction.
    pub compact_bytes: u64,
    /// Item budget before compaction, if any.
    pub max_items: Option<u64>,
}

/// What the session is bound to; a change requires a new session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// Hash of the account identity (never the identity itself).
    pub account_hash: Option<String>,
    /// The model requested.
    pub requested_model: String,
    /// The exact model name the provider must return.
    pub returned_model: String,
    /// Context budgeting policy.
    pub context_policy: ContextPolicy,
    /// Digest of the effective configuration.
    pub config_digest: String,
    /// Digest of the initial instructions.
    pub instructions_digest: String,
    /// The effective configuration's binding fields (never a secret), so a mismatch can name
    /// the fields that changed; absent in sessions from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<serde_json::Value>,
    /// Where the initial instructions came from, each with a digest of its text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instruction_sources: Vec<InstructionSource>,
}

/// One source of a session's initial instructions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionSource {
    /// What it is: `ansa's base instructions`, `AGENTS.md in /work/project`.
    pub label: String,
    /// BLAKE3 of its text, hex.
    pub digest: String,
}

/// Turn mode saved with an accepted submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Execute the task.
    #[default]
    Basic,
    /// Read-only planning.
    Plan,
    /// Basic, plus the `delegate` tool that runs child agents (docs/orchestrate.md).
    Orchestrate,
}

/// The action of an accepted command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AcceptedAction {
    /// A new turn.
    Submit {
        /// User text.
        text: String,
        /// Turn mode.
        mode: Mode,
        /// Files the prompt attaches as reads (`@` mentions), read when the turn starts.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mentions: Vec<crate::protocol::MentionPath>,
    },
    /// Continue a paused turn.
    Resume {
        /// The paused turn.
        target: RequestId,
    },
    /// Cancel a turn.
    Cancel {
        /// The turn to cancel.
        target: RequestId,
    },
}

/// A command accepted durably (`command_accepted` is published after this is synced).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandAccepted {
    /// The client's command ID.
    pub command_id: CommandId,
    /// The turn the command created (submit) or targets (resume, cancel).
    pub request_id: RequestId,
    /// What was accepted.
    pub action: AcceptedAction,
}

/// A complete provider-native item (message, reasoning, function call...), kept exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderItem {
    /// Turn it belongs to.
    pub request_id: RequestId,
    /// Generation number within the session.
    pub generation: u64,
    /// Context epoch it belongs to.
    pub epoch: u64,
    /// The item exactly as the provider returned it.
    pub item: OpaqueJson,
}

/// How a compaction summary was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionMethod {
    /// A Responses request with the compaction prompt.
    Live,
    /// The offline synthetic compaction item.
    Offline,
}

/// Summary of older history and its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compaction {
    /// The returned context items replacing older history, kept exactly.
    pub items: Vec<OpaqueJson>,
    /// History up to and including this record is summarised.
    pub covers_through: Seq,
    /// How the summary was produced.
    pub method: CompactionMethod,
    /// Model that produced it (live).
    pub model: Option<String>,
}

/// Start of a context epoch (the first, or one created by compaction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextEpoch {
    /// Epoch number, increasing from 0.
    pub epoch: u64,
    /// Turn during which the epoch began.
    pub request_id: RequestId,
    /// Compaction that created the epoch, if any.
    pub compaction: Option<Compaction>,
    /// Set by a conversation rewind: the epoch's context is the context as it was just before
    /// this turn's prompt; this turn and every later one are left out (they stay journaled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewound: Option<RequestId>,
}

/// A tool call about to be executed (synced before the executor starts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolIntent {
    /// Turn it belongs to.
    pub request_id: RequestId,
    /// Provider call ID.
    pub call_id: CallId,
    /// Tool name.
    pub tool: String,
    /// Arguments exactly as admitted.
    pub arguments: OpaqueJson,
    /// The tool's implementation revision.
    pub implementation_revision: String,
    /// What it works on, as its row showed it live (a path, a query, a command line), so a
    /// reopened session shows the row the same way; absent in journals from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcomeStatus {
    /// Completed (a non-zero exit is still `ok`).
    Ok,
    /// Rejected or failed with a tool error.
    Error,
    /// Cancelled.
    Cancelled,
    /// Timed out.
    TimedOut,
    /// No trustworthy result exists; blocks Resume, never re-run.
    EffectUnknown,
}

/// The result of a tool call (synced before the next executor starts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOutcome {
    /// Turn it belongs to.
    pub request_id: RequestId,
    /// Provider call ID.
    pub call_id: CallId,
    /// How it ended.
    pub status: ToolOutcomeStatus,
    /// True when recovered from supervisor evidence after a crash.
    pub reconciled: bool,
    /// The tool output the model received, kept exactly.
    pub output: OpaqueJson,
    /// The canonical ASH/1 answer behind `output`, byte for byte (a JSON string), when the
    /// model received a view of it rather than the answer itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<OpaqueJson>,
    /// Nested instruction scopes (directories) first delivered with this output, so a reopened
    /// session does not deliver them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<String>,
    /// The row the user saw (tone, summary, output tail, diff), kept so a reopened session
    /// shows the call as it looked live; absent in journals from before and for outcomes
    /// recovered after a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<crate::protocol::ToolReport>,
}

/// Turn states of the runtime's state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// Accepted, waiting in the FIFO.
    Queued,
    /// Generating or running tools.
    Running,
    /// Stopped at a safe boundary; waits for Resume.
    Paused,
    /// Final answer durable.
    Done,
    /// Cancelled by the user.
    Cancelled,
    /// Failed permanently.
    Failed,
}

impl TurnState {
    /// True for states a turn never leaves.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TurnState::Done | TurnState::Cancelled | TurnState::Failed
        )
    }
}

/// A turn state change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnStateChange {
    /// The turn.
    pub request_id: RequestId,
    /// Its new state.
    pub state: TurnState,
    /// Why (pause reason, failure message), if any.
    pub reason: Option<String>,
}

/// A turn finished with a final answer (synced before the answer is published).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Done {
    /// The turn.
    pub request_id: RequestId,
    /// The confirmed final answer.
    pub final_text: String,
}

/// Token usage the provider reported for one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageRecord {
    /// Turn it belongs to.
    pub request_id: RequestId,
    /// Generation number within the session.
    pub generation: u64,
    /// Input (prompt) tokens.
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Input tokens served from the provider's cache, when reported.
    pub cached_tokens: Option<u64>,
    /// Output tokens spent on reasoning, when reported.
    pub reasoning_tokens: Option<u64>,
}

/// One journal record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// First record of a part.
    PartHeader(PartHeader),
    /// Session binding.
    Binding(Binding),
    /// Accepted command.
    CommandAccepted(CommandAccepted),
    /// Provider-native item.
    ProviderItem(ProviderItem),
    /// Context epoch start / compaction.
    ContextEpoch(ContextEpoch),
    /// Tool intent.
    ToolIntent(ToolIntent),
    /// Tool outcome.
    ToolOutcome(ToolOutcome),
    /// Turn state change.
    TurnState(TurnStateChange),
    /// Turn finished.
    Done(Done),
    /// Token usage of a generation.
    Usage(UsageRecord),
    /// A tool call waits for the user's approval.
    ApprovalRequested(ApprovalRequested),
    /// The user decided on an approval.
    ApprovalDecided(ApprovalDecided),
    /// The workspace's state at a turn boundary or before a rewind.
    Checkpoint(Checkpoint),
    /// A rewind took back code, conversation or both.
    Rewind(Rewind),
    /// The session's model (or reasoning effort) changed for the following turns.
    Rebinding(crate::rebinding::Rebinding),
    /// The names MCP tools are offered under from here on (issue 45).
    McpTools(crate::mcp::McpTools),
}

macro_rules! record_kinds {
    ($($variant:ident => $name:literal),* $(,)?) => {
        impl Record {
            /// The `kind` string written to the journal.
            pub fn kind(&self) -> &'static str {
                match self { $(Record::$variant(_) => $name,)* }
            }

            /// Serialises the body into `out`.
            pub(crate) fn write_body(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                match self { $(Record::$variant(b) => serde_json::to_writer(out, b),)* }
            }

            /// Decodes a body of the given kind.
            pub(crate) fn decode(kind: &str, body: &[u8]) -> Result<Self, String> {
                match kind {
                    $($name => serde_json::from_slice(body).map(Record::$variant).map_err(|e| e.to_string()),)*
                    other => Err(format!("unknown record kind `{other}`")),
                }
            }
        }
    };
}

record_kinds! {
    PartHeader => "part_header",
    Binding => "binding",
    CommandAccepted => "command_accepted",
    ProviderItem => "provider_item",
    ContextEpoch => "context_epoch",
    ToolIntent => "tool_intent",
    ToolOutcome => "tool_outcome",
    TurnState => "turn_state",
    Done => "done",
    Usage => "usage",
    ApprovalRequested => "approval_requested",
    ApprovalDecided => "approval_decided",
    Checkpoint => "checkpoint",
    Rewind => "rewind",
    Rebinding => "rebinding",
    McpTools => "mcp_tools",
}
