//! State shared by the control thread and the worker, behind one lock: the journal, the FIFO,
//! the active turn, the live preview and the event stream. The fields are private: every turn
//! transition is a method in `turn.rs`, and the worker reaches the journal and the events only
//! through the narrow methods below.

mod approval;
mod children;
mod maintenance;
mod mcp;
mod rewind;
mod status;
mod turn;
mod viewer;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use ansa_sessions::protocol::{
    ContextSize, ErrorCode, EventBody, Preview, PreviewState, ToolPhase, ToolReport,
};
use ansa_sessions::{
    CallId, CommandId, Incarnation, Record, RequestId, Seq, Session, SessionError, StoredOutput,
    ToolOutputQuery, TurnState,
};
use ash_engine::cancel::CancelToken;

use super::events::EventSink;
use super::story::StoryIndex;
use crate::provider::http::Retrying;

pub use approval::Decision;
pub use children::{LiveChildren, child_command};
pub use maintenance::Maintenance;
pub use rewind::RewindJob;
pub use status::announce;
pub use turn::NextTurn;

/// How often an idle runtime retries delivering a pending `resync_required`.
const RESYNC_RETRY: std::time::Duration = std::time::Duration::from_millis(50);

/// The turn the worker is running and how to stop it.
#[derive(Debug)]
struct Active {
    request_id: RequestId,
    /// Cancels a running engine request (exec kills its process group).
    engine: CancelToken,
    /// Cancels a generation.
    flag: Arc<AtomicBool>,
}

impl Active {
    fn new(request_id: RequestId) -> Self {
        Active {
            request_id,
            engine: CancelToken::new(),
            flag: Arc::new(AtomicBool::new(false)),
        }
    }

    fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.engine.cancel();
    }

    fn cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// The cancel signals of the active turn, handed to a generation and an engine request.
#[derive(Debug, Clone)]
pub struct CancelHandles {
    /// Raised for a generation.
    pub flag: Arc<AtomicBool>,
    /// Raised for an engine request.
    pub engine: CancelToken,
}

/// Everything behind the lock.
#[derive(Debug)]
pub struct Core {
    /// The journal (the only writer of the session directory).
    session: Session,
    /// Events to the frontend.
    events: EventSink,
    /// Accepted turns waiting to run, in order.
    queue: VecDeque<RequestId>,
    /// Most turns that may wait.
    queue_max: usize,
    /// The running turn.
    active: Option<Active>,
    /// The frontend's input ended.
    input_closed: bool,
    /// The live preview of the active (or last interrupted) generation.
    preview: Option<(RequestId, Preview)>,
    /// Whether preview changes are published as `text_preview` events.
    previews: bool,
    /// The saved context's size against the compaction budget, as of the last turn boundary.
    context: Option<ContextSize>,
    /// The latest tool output shown or produced, so paging it reads no journal.
    last_output: Option<StoredOutput>,
    /// The running call's output so far and recent calls' readable texts (`viewer.rs`).
    viewed: viewer::Viewed,
    /// This process's incarnation, echoed by every command.
    incarnation: Incarnation,
    /// The worker has stopped (input closed, FIFO empty).
    stopped: bool,
    /// The tool call waiting for the user's approval (ask mode).
    approval: Option<approval::Waiting>,
    /// The rewind accepted or running, if any.
    rewind: rewind::RewindSlot,
    /// A `diff` or `compact` waiting for the worker.
    maintenance: Option<Maintenance>,
    /// The session's MCP servers as frontends last saw them (`mcp.rs`).
    mcp: mcp::McpView,

    /// Every turn's steps for `story` pages, rebuilt when the journal has grown.
    story: Option<StoryIndex>,
    /// Orchestrate mode's running children (`children.rs`).
    children: LiveChildren,
}

impl Core {
    /// A core for an open session.
    pub fn new(session: Session, events: EventSink, queue_max: usize, previews: bool) -> Self {
        Core {
            session,
            events,
            queue: VecDeque::new(),
            queue_max: queue_max.max(1),
            active: None,
            input_closed: false,
            preview: None,
            previews,
            last_output: None,
            viewed: viewer::Viewed::default(),
            context: None,
            incarnation: Incarnation::generate(),
            stopped: false,
            approval: None,
            rewind: rewind::RewindSlot::Idle,
            maintenance: None,
            mcp: mcp::McpView::default(),

            story: None,
            children: LiveChildren::default(),
        }
    }

    /// The open session, read-only (the worker reads turns and sequence numbers from it).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Appends one record without syncing: the next durable step syncs it.
    pub fn append(&mut self, record: Record) -> Result<Seq, SessionError> {
        self.session.append(record)
    }

    /// Appends and syncs one record.
    pub fn durable(&mut self, record: Record) -> Result<(), SessionError> {
        self.session.append(record)?;
        self.session.sync()?;
        Ok(())
    }

    /// Whether the active turn was asked to stop.
    pub fn cancel_requested(&self) -> bool {
        self.active.as_ref().is_some_and(Active::cancelled)
    }

    /// The active turn's cancel signals (fresh, never raised, when no turn is active).
    pub fn cancel_handles(&self) -> CancelHandles {
        match &self.active {
            Some(a) => CancelHandles {
                flag: Arc::clone(&a.flag),
                engine: a.engine.clone(),
            },
            None => CancelHandles {
                flag: Arc::new(AtomicBool::new(false)),
                engine: CancelToken::new(),
            },
        }
    }

    /// Publishes a tool status change; an MCP call's names its server (`server`).
    #[allow(
        clippy::too_many_arguments,
        reason = "the event's fields, each given by the caller"
    )]
    pub fn tool_status(
        &mut self,
        request_id: RequestId,
        call_id: &CallId,
        tool: &str,
        server: Option<&str>,
        target: Option<String>,
        status: ToolPhase,
        report: Option<ToolReport>,
    ) {
        self.events.publish(EventBody::ToolStatus {
            request_id,
            call_id: call_id.clone(),
            tool: tool.to_owned(),
            target,
            status,
            report,
            server: server.map(Box::from),
        });
    }

    /// Replaces the live preview of a generation (and publishes it when previews are on).
    pub fn preview(&mut self, request_id: RequestId, generation: u64, text: &str) {
        if self.previews {
            self.events.publish(EventBody::TextPreview {
                request_id,
                generation,
                text: text.to_owned(),
                state: PreviewState::Preview,
            });
        }
        let preview = Preview {
            generation,
            text: text.to_owned(),
            state: PreviewState::Preview,
        };
        self.preview = Some((request_id, preview));
    }

    /// The text that came with a generation's tool calls is part of the journaled context:
    /// its preview is committed (frontends keep it in the dialog), not discarded.
    pub fn commentary(&mut self, request_id: RequestId, generation: u64, text: String) {
        if self.previews {
            self.events.publish(EventBody::TextPreview {
                request_id,
                generation,
                text,
                state: PreviewState::Committed,
            });
        }
        self.preview = None;
    }

    /// Marks the live preview discarded: the generation behind it produced nothing durable.
    pub fn discard_preview(&mut self) {
        if let Some((id, p)) = self.preview.as_mut() {
            p.state = PreviewState::Discarded;
            if self.previews {
                let body = EventBody::TextPreview {
                    request_id: *id,
                    generation: p.generation,
                    text: p.text.clone(),
                    state: PreviewState::Discarded,
                };
                self.events.publish(body);
            }
        }
    }

    /// Publishes the model's reasoning summary so far (when previews are on; it is shown
    /// while the turn runs and never kept in the dialog).
    pub fn reasoning(&mut self, request_id: RequestId, generation: u64, text: &str) {
        if self.previews {
            self.events.publish(EventBody::ReasoningPreview {
                request_id,
                generation,
                text: text.to_owned(),
            });
        }
    }

    /// Publishes that a provider request failed and will be tried again after a wait.
    pub fn retrying(&mut self, request_id: RequestId, retry: &Retrying) {
        self.events.publish(EventBody::Retrying {
            request_id,
            attempt: retry.attempt,
            of: retry.of,
            delay_ms: u64::try_from(retry.delay.as_millis()).unwrap_or(u64::MAX),
            reason: retry.reason.clone(),
        });
    }

    /// Publishes the session's usage totals after a generation reported usage.
    pub fn publish_usage(&mut self, request_id: RequestId) {
        if let Some(usage) = status::usage(self) {
            self.events.publish(EventBody::Usage { request_id, usage });
        }
    }

    /// Publishes an error answering `command_id`.
    pub fn error(&mut self, command_id: Option<CommandId>, code: ErrorCode, message: String) {
        self.events.publish(EventBody::Error {
            command_id,
            code,
            message,
        });
    }

    /// Publishes the current snapshot.
    pub fn publish_snapshot(&mut self) {
        let body = status::snapshot(self);
        self.events.publish(body);
    }

    /// Publishes a page of the transcript.
    pub fn publish_transcript(&mut self, query: ansa_sessions::TranscriptQuery) {
        let page = self.session.transcript(query);
        self.events.publish(EventBody::Transcript(page));
    }

    /// Publishes a transcript page with each of its turns' steps (`story`). The journal is
    /// read once and again only after it has grown, so paging through a long session reads it
    /// once.
    pub fn publish_story(&mut self, command_id: CommandId, query: ansa_sessions::TranscriptQuery) {
        let records = self.session.state().records();
        if self.story.as_ref().is_none_or(|s| s.records != records) {
            match self.session.read_records() {
                Ok(read) => {
                    let mut index = StoryIndex::build(&read);
                    // The state's count, which is what the next look compares against.
                    index.records = records;
                    self.story = Some(index);
                }
                Err(e) => {
                    let message = format!("the journal could not be read: {e}");
                    self.error(Some(command_id), ErrorCode::StorageFailed, message);
                    return;
                }
            }
        }
        if let Some(index) = &self.story {
            let page = index.page(self.session.state(), self.session.transcript(query));
            self.events.publish(EventBody::Story(page));
        }
    }

    /// The context's size at a turn boundary, for snapshots.
    pub fn set_context(&mut self, bytes: u64, budget: u64) {
        self.context = Some(ContextSize { bytes, budget });
    }

    /// Keeps a tool call's output at hand for `tool_output` pages.
    pub fn remember_output(&mut self, output: StoredOutput) {
        self.last_output = Some(output);
    }

    /// Publishes a page of a tool call's stored output: the one at hand, else found in the
    /// journal (which a new process has to read once).
    pub fn publish_tool_output(&mut self, command_id: CommandId, query: ToolOutputQuery) {
        if self.publish_readable(&query) {
            return;
        }
        let at_hand = self
            .last_output
            .as_ref()
            .is_some_and(|o| query.call_id.as_ref().is_none_or(|c| *c == o.call_id));
        if !at_hand {
            let records = match self.session.read_records() {
                Ok(records) => records,
                Err(e) => {
                    let message = format!("the journal could not be read: {e}");
                    self.error(Some(command_id), ErrorCode::StorageFailed, message);
                    return;
                }
            };
            let found = ansa_sessions::find_tool_output(records.iter().map(|(_, r)| r), &query);
            let Some(found) = found else {
                let message = match &query.call_id {
                    Some(c) => format!("tool call {c} has no recorded output in this session"),
                    None => "no tool call has a recorded output in this session yet".to_owned(),
                };
                self.error(Some(command_id), ErrorCode::UnknownTarget, message);
                return;
            };
            self.last_output = Some(found);
        }
        if let Some(output) = &self.last_output {
            let page = ansa_sessions::tool_output_page(output, query);
            self.events.publish(EventBody::ToolOutput(page));
        }
    }

    /// Records and publishes a turn state change; the event goes out even when the record
    /// could not be saved (a snapshot then says `storage_failed`).
    fn set_state(&mut self, request_id: RequestId, state: TurnState, reason: Option<String>) {
        let change = ansa_sessions::TurnStateChange {
            request_id,
            state,
            reason: reason.clone(),
        };
        let _ = self.durable(Record::TurnState(change));
        self.events.publish(EventBody::TurnState {
            request_id,
            state,
            reason,
        });
    }
}

/// What the worker does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// Run a turn.
    Turn(RequestId),
    /// Run a rewind.
    Rewind(RewindJob),
    /// Answer `diff` or run `compact`.
    Maintenance(Maintenance),
}

/// The lock plus the worker's wake-up.
#[derive(Debug)]
pub struct Shared {
    core: Mutex<Core>,
    wake: Condvar,
}

impl Shared {
    /// Wraps a core.
    pub fn new(core: Core) -> Self {
        Shared {
            core: Mutex::new(core),
            wake: Condvar::new(),
        }
    }

    /// Locks the core. A panic while holding the lock cannot leave the journal inconsistent
    /// (every record is appended whole), so a poisoned lock is taken over.
    pub fn lock(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the worker.
    pub fn notify(&self) {
        self.wake.notify_all();
    }

    /// Waits for the user's decision on the call the worker asked about: the turn waits without
    /// a timeout. A cancel ends the wait (`Err(true)`), and so does the end of the frontend's
    /// input, after which no decision can come (`Err(false)`).
    pub fn wait_decision(&self) -> Result<Decision, bool> {
        let mut core = self.lock();
        loop {
            if let Some(decision) = core.take_decision() {
                return Ok(decision);
            }
            if core.cancel_requested() || core.input_closed() {
                let cancelled = core.cancel_requested();
                core.drop_approval();
                return Err(cancelled);
            }
            core = self.wake.wait(core).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Waits for the worker's next job: `None` when input is closed and nothing is queued.
    pub fn next_turn(&self) -> Option<Job> {
        let mut core = self.lock();
        loop {
            match core.next_turn() {
                NextTurn::Run(id) => return Some(Job::Turn(id)),
                NextTurn::Rewind(job) => return Some(Job::Rewind(job)),
                NextTurn::Maintenance(job) => return Some(Job::Maintenance(job)),
                NextTurn::Stopped => return None,
                NextTurn::Wait { retry_resync } => {
                    core = if retry_resync {
                        self.wake
                            .wait_timeout(core, RESYNC_RETRY)
                            .map(|(g, _)| g)
                            .unwrap_or_else(|p| p.into_inner().0)
                    } else {
                        self.wake.wait(core).unwrap_or_else(|p| p.into_inner())
                    };
                }
            }
        }
    }
}
