//! The data the TUI state is made of: dialog entries, the followed task, tool lines,
//! previews, notices and what the state asks the driver to do.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::follow::TaskMatch;

use ansa_sessions::protocol::{Command, ToolPhase, ToolReport};
use ansa_sessions::{
    CallId, CommandId, Mode, OutputView, RequestId, TranscriptEntry, TranscriptQuery,
};

/// What the driver must do after a state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Send a command to the runtime.
    Send(Command),
    /// Close the input and leave with this exit code.
    Exit(u8),
    /// `/new`: close this session and continue in a new one (`renew.rs`).
    NewSession,
}

/// How a notice looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Information.
    Info,
    /// Something to pay attention to.
    Warn,
    /// A failure.
    Error,
}

/// A one-paragraph message from the TUI or the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Notice {
    /// How it looks.
    pub tone: Tone,
    /// The text (sanitized when shown).
    pub text: String,
}

impl Notice {
    pub fn new(tone: Tone, text: impl Into<String>) -> Self {
        Notice {
            tone,
            text: text.into(),
        }
    }
}

/// One tool call of the current turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolLine {
    /// Provider call ID.
    pub call_id: CallId,
    /// Tool name.
    pub name: String,
    /// What it works on (a path, a query, a command line), when the runtime says.
    pub target: Option<String>,
    /// Latest phase.
    pub phase: ToolPhase,
    /// When it started (unknown if its start event was lost).
    pub started: Option<Instant>,
    /// When it ended.
    pub ended: Option<Instant>,
    /// What it did, once it ended.
    pub report: Option<ToolReport>,
}

/// Dialog that goes into the terminal's scrollback, once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The header: cwd and model.
    Header,
    /// What the user submitted (shown literally).
    User(String),
    /// A final answer (safe Markdown).
    Answer(String),
    /// The model's words that came with tool calls (safe Markdown).
    Commentary(String),
    /// A fragment of an answer that did not finish.
    Unfinished(String),
    /// A finished tool call.
    Tool(ToolLine),
    /// A message.
    Notice(Notice),
}

/// What the task is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskState {
    /// Sent, not accepted yet.
    Sending,
    /// In the runtime's FIFO.
    Queued,
    /// Generating or running tools.
    Running,
}

/// Whether the task is a new submit or the resume of a paused turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskKind {
    /// A submitted text.
    Submit,
    /// A resumed turn.
    Resume,
}

/// The one task the TUI follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Task {
    /// Submit or resume.
    pub kind: TaskKind,
    /// Which command, request and events are its.
    pub follow: TaskMatch,
    /// The submitted text.
    pub text: String,
    /// Its mode.
    pub mode: Mode,
    /// Its state.
    pub state: TaskState,
    /// A cancel was asked for.
    pub cancelling: bool,
    /// Send a cancel as soon as the request ID is known.
    pub cancel_on_accept: bool,
    /// When it was sent.
    pub started: Instant,
    /// The confirmed final answer (`text_delta`), until `done`.
    pub answer: Option<String>,
}

/// A paused turn waiting for `/resume`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Paused {
    /// Its request.
    pub request: RequestId,
    /// Why it paused, when known.
    pub reason: Option<String>,
}

/// A provider request of the task that failed and is tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RetryStatus {
    /// The attempt about to be made.
    pub attempt: u32,
    /// Attempts allowed in all.
    pub of: u32,
    /// When it is made.
    pub until: Instant,
    /// Why the last one failed.
    pub reason: String,
}

/// The streaming answer of the current generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LivePreview {
    /// Generation that produced it.
    pub generation: u64,
    /// Text so far.
    pub text: String,
    /// Bytes of `text` already moved into the dialog (whole blocks; see `streamed.rs`).
    pub shown: usize,
    /// Length of the rest when a look for finished blocks last found none (0: no such
    /// look): the next look waits until the rest grew by a quarter.
    pub stuck: usize,
    /// The runtime dropped it (error, cancel): shown as unfinished.
    pub discarded: bool,
}

impl LivePreview {
    /// The part still shown in the live region.
    pub fn rest(&self) -> &str {
        self.text.get(self.shown..).unwrap_or("")
    }
}

/// What a pending transcript or snapshot command is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// The last exchanges on open.
    Opening,
    /// A final answer whose `text_delta` was lost.
    Recover(RequestId),
    /// A history pane page; `true` for older entries.
    Pane(bool),
    /// The last exchanges on open with their steps (`story`, `replay/`).
    Replay,
}

/// Flags from the latest snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Flags {
    /// The journal is damaged; nothing can be submitted.
    pub read_only: bool,
    /// A write failed.
    pub storage_failed: bool,
}

/// A transcript or snapshot command waiting for its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pending {
    /// The command.
    pub id: CommandId,
    /// The transcript query (answers echo it).
    pub query: TranscriptQuery,
    /// What the answer is for.
    pub purpose: Purpose,
}

/// The history pane's state (its behaviour is `history.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HistoryPane {
    /// Shown.
    pub open: bool,
    /// Loaded entries, contiguous and oldest first.
    pub entries: Vec<TranscriptEntry>,
    /// Entries in the whole transcript (from the latest page).
    pub total: u64,
    /// First visible line of the rendered entries.
    pub top: usize,
    /// A page was asked for.
    pub loading: bool,
    /// Nothing older exists.
    pub at_start: bool,
    /// The first transcript index committed to scrollback on open (older pages end there).
    pub anchor: Option<u64>,
    /// Turns a conversation rewind took back: shown dimmed and marked (from `checkpoints`
    /// and `rewind_done`).
    pub rewound: BTreeSet<RequestId>,
    /// `checkpoints` was asked for the marks since the TUI opened.
    pub marks_asked: bool,
    /// The steps (commentary, tool rows) of the loaded entries' turns, from the `story`
    /// pages the pane loads (`replay/pane.rs`).
    pub stories: std::collections::BTreeMap<RequestId, ansa_sessions::protocol::TurnStory>,
}

impl HistoryPane {
    /// Index of the first loaded entry.
    pub fn begin(&self) -> Option<u64> {
        self.entries.first().map(|e| e.index)
    }

    /// One past the index of the last loaded entry.
    pub fn end(&self) -> Option<u64> {
        self.entries.last().map(|e| e.index + 1)
    }
}

/// The output viewer's state: a tool call's text, paged from the runtime (its behaviour is
/// `viewer/`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OutputPane {
    /// Shown.
    pub open: bool,
    /// The call shown; `None` until the first page names the latest one.
    pub call_id: Option<CallId>,
    /// Its tool.
    pub tool: String,
    /// Lines loaded, from line `first` on.
    pub lines: Vec<String>,
    /// Index of the first loaded line (a running command's view starts at its kept end).
    pub first: u64,
    /// Lines in the whole output.
    pub total: u64,
    /// First visible screen row of the loaded lines (wrapped at the width).
    pub top: usize,
    /// The `tool_output` command waiting for its page.
    pub pending: Option<CommandId>,
    /// When a page was last asked for.
    pub asked: Option<Instant>,
    /// A loaded line was cut to fit its page.
    pub truncated: bool,
    /// The view asked for: readable by default, the model's after Tab.
    pub want: OutputView,
    /// The view the lines are in (a call without a readable text comes in the model's).
    pub view: OutputView,
    /// The call is still running: the lines are its output so far and are asked for again.
    pub running: bool,
    /// Keep the end in view as a running command prints (PgDn at the end turns it on).
    pub follow: bool,
    /// The orchestrate-mode child whose transcript is shown instead of a call's output.
    pub child: Option<ansa_sessions::child::ChildId>,
}

/// A tool call of the latest turn, for picking its output in the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecentCall {
    /// The call.
    pub call_id: CallId,
    /// Its tool and target, as the row shows them.
    pub label: String,
    /// What it did, once it ended.
    pub report: Option<ToolReport>,
}
