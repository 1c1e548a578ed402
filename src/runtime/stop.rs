//! Why a turn stopped before its final answer, typed; the text a frontend sees is rendered
//! from it once, when the terminal state is published.

use std::fmt;

use ansa_sessions::{CallId, RequestId, SessionError};

use crate::provider::ProviderError;

/// How a turn stopped before a final answer.
#[derive(Debug)]
pub enum Stop {
    /// Resumable.
    Paused(Pause),
    /// Cancelled by the user.
    Cancelled,
    /// The journal cannot be written: dispatch stops, nothing more is recorded.
    Storage(StorageFault),
    /// For good.
    Failed(Failure),
    /// The provider refused the credentials: paused until the user fixes them and resumes.
    Auth(String),
    /// The provider said the context is too long (compaction runs once, then it fails).
    ContextTooLong(String),
}

/// Why a turn paused.
#[derive(Debug)]
pub enum Pause {
    /// The turn being run has no journal record.
    NotInJournal(RequestId),
    /// A call of the turn has an intent but no outcome: it may have run.
    UnknownOutcome,
    /// `tool_rounds` rounds ran in this segment.
    RoundLimit(u32),
    /// `tool_calls` calls ran in this segment.
    CallLimit(u32),
    /// An orchestrate child's generations used its token budget in this segment.
    TokenBudget {
        /// Tokens the segment's generations reported.
        used: u64,
        /// The configured `child_token_budget`.
        budget: u64,
    },
    /// The model asked for more calls than remained in the segment: those that fit ran, the
    /// rest run when the turn is resumed.
    CallsOverLimit {
        /// Calls of the response that ran in this segment.
        ran: usize,
        /// Calls of the response still waiting.
        waiting: usize,
        /// The configured `tool_calls`.
        limit: u32,
    },
    /// A call's arguments are not JSON.
    BadArguments {
        /// The call.
        call: CallId,
        /// The parser's reason.
        reason: String,
    },
    /// The provider failed the generation.
    ModelFailed(ProviderError),
    /// The provider failed the compaction request.
    CompactionFailed(ProviderError),
    /// The compacted context could not be journaled.
    CompactionNotSaved(SessionError),
    /// A call waited for approval when the frontend's input ended: no decision can come.
    ApprovalUnanswered {
        /// The call.
        call: CallId,
        /// What it does, in words.
        summary: String,
    },
    /// Children of a `delegate` call paused (or the input ended while one waited for
    /// approval): the call has no outcome yet, and Resume continues them.
    ChildrenPaused {
        /// How many children paused.
        paused: usize,
        /// The first one's reason.
        reason: String,
    },
}

/// Why the journal cannot take the turn's next record.
#[derive(Debug)]
pub enum StorageFault {
    /// An append or sync failed.
    Journal(SessionError),
    /// A context item or output could not be encoded for the journal.
    Encode(serde_json::Error),
    /// An earlier write failed; the session refuses further writes.
    AlreadyFailed(String),
}

impl From<SessionError> for Stop {
    fn from(e: SessionError) -> Self {
        Stop::Storage(StorageFault::Journal(e))
    }
}

impl From<serde_json::Error> for Stop {
    fn from(e: serde_json::Error) -> Self {
        Stop::Storage(StorageFault::Encode(e))
    }
}

impl fmt::Display for StorageFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageFault::Journal(e) => write!(f, "{e}"),
            StorageFault::Encode(e) => write!(f, "{e}"),
            StorageFault::AlreadyFailed(cause) => f.write_str(cause),
        }
    }
}

/// Why a turn failed for good.
#[derive(Debug)]
pub enum Failure {
    /// The context is too long and too few turns completed to compact it.
    CannotCompact {
        /// The provider's message.
        reason: String,
        /// Completed turns compaction needs.
        needs: u64,
    },
    /// Still too long after compaction.
    StillTooLong(String),
}

impl fmt::Display for Pause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pause::NotInJournal(id) => write!(f, "turn {id} is not in the journal"),
            Pause::UnknownOutcome => f.write_str(
                "a tool call of this turn may have run without a recorded outcome; it is not re-run",
            ),
            Pause::RoundLimit(n) => write!(
                f,
                "tool round limit reached ({n} rounds, config tool_rounds); resume to continue"
            ),
            Pause::CallLimit(n) => write!(
                f,
                "tool call limit reached ({n} calls, config tool_calls); resume to continue"
            ),
            Pause::TokenBudget { used, budget } => write!(
                f,
                "token budget reached ({used} tokens used of {budget}, config child_token_budget); resume to continue"
            ),
            Pause::CallsOverLimit {
                ran,
                waiting,
                limit,
            } => write!(
                f,
                "tool call limit: {ran} calls of the response ran and {waiting} wait (config tool_calls {limit} per segment); resume to run up to {limit} more"
            ),
            Pause::BadArguments { call, reason } => {
                write!(f, "tool arguments of {call} are not JSON: {reason}")
            }
            Pause::ModelFailed(e) => write!(f, "the model failed: {e}"),
            Pause::CompactionFailed(e) => write!(f, "compaction failed: {e}"),
            Pause::CompactionNotSaved(e) => write!(f, "compaction could not be saved: {e}"),
            Pause::ApprovalUnanswered { call, summary } => write!(
                f,
                "call {call} waited for approval ({summary}) when the input ended; resume to be asked again"
            ),
            Pause::ChildrenPaused { paused, reason } => write!(
                f,
                "{paused} child agent{} paused ({reason}); resume to continue {}",
                if *paused == 1 { "" } else { "s" },
                if *paused == 1 { "it" } else { "them" }
            ),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::CannotCompact { reason, needs } => write!(
                f,
                "{reason}; the context cannot be compacted before {needs} completed turns, so the task cannot continue in this session"
            ),
            Failure::StillTooLong(reason) => {
                write!(f, "{reason} (still too long after compaction)")
            }
        }
    }
}

/// The reason text of an auth pause.
pub fn auth_reason(reason: &str) -> String {
    format!("auth: {reason}")
}

/// The reason text of a storage stop.
pub fn storage_reason(fault: &StorageFault) -> String {
    format!("storage_failed: {fault}; nothing more is dispatched")
}

/// The reason text of a user's cancel.
pub const CANCELLED_BY_USER: &str = "cancelled by the user";
