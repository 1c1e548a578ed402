//! Follows the event stream for the line and one-shot frontends: waits for the first
//! snapshot, submits a task and reports its progress until the turn ends.

use std::sync::mpsc::RecvError;

use ansa_sessions::protocol::{
    Command, CommandBody, ErrorCode, Event, EventBody, ProtocolContext, SnapshotEvent, ToolPhase,
};
use ansa_sessions::{CommandId, Mode, Profile, RequestId, Role, TranscriptQuery, TurnState};

use crate::error::UiError;
use crate::outcome::TurnOutcome;
use crate::{SessionLink, ToRuntime};

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
        EventBody::Error { .. } => "error",
        EventBody::Usage { .. } => "usage",
    }
}

/// Something worth telling the user while a task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress<'a> {
    /// The runtime accepted the submit durably.
    Accepted(RequestId),
    /// A tool call of this turn changed phase.
    Tool {
        /// Tool name.
        tool: &'a str,
        /// New phase.
        phase: ToolPhase,
    },
    /// A runtime message not tied to the task (an error event, lost events).
    Notice(&'a str),
}

/// How one task ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskEnd {
    /// State, reason, request and refusal code.
    pub outcome: TurnOutcome,
    /// The verified final answer, when the turn is done and it reached us.
    pub answer: Option<String>,
    /// False when the runtime reported the final answer as not on stable storage.
    pub durable: bool,
}

/// Catching up after lost events: which answer is awaited, and for which command.
enum Sync {
    /// Following the live stream.
    Idle,
    /// A snapshot was requested.
    Snapshot(CommandId),
    /// The turn is done but its answer was lost; a transcript page was requested.
    Transcript(CommandId),
}

impl Sync {
    fn is_idle(&self) -> bool {
        matches!(self, Sync::Idle)
    }

    fn command(&self) -> Option<&CommandId> {
        match self {
            Sync::Idle => None,
            Sync::Snapshot(id) | Sync::Transcript(id) => Some(id),
        }
    }
}

/// A frontend's view of one session: the link, the command context and the cursors.
pub(crate) struct Follower {
    link: SessionLink,
    ctx: ProtocolContext,
    kind: &'static str,
    turn: u64,
    last_sequence: u64,
    input_open: bool,
    close_after_accept: bool,
    commands_sent: u64,
}

impl Follower {
    /// Waits for the first snapshot; command IDs start with `kind`.
    pub fn start(link: SessionLink, kind: &'static str) -> Result<(Self, SnapshotEvent), UiError> {
        let (event, snapshot) = first_snapshot(&link)?;
        let follower = Self {
            ctx: context(&snapshot),
            link,
            kind,
            turn: snapshot.turn,
            last_sequence: event.stream_sequence,
            input_open: true,
            close_after_accept: false,
            commands_sent: 0,
        };
        Ok((follower, snapshot))
    }

    /// The session profile from the snapshot.
    pub fn profile(&self) -> Profile {
        self.ctx.session
    }

    /// A command ID unique across incarnations: `<kind>-<incarnation>-<n>` (command IDs are
    /// deduplicated across restarts, so a bare counter would collide with an earlier run).
    fn next_id(&mut self) -> Result<CommandId, UiError> {
        self.commands_sent += 1;
        let id = format!(
            "{}-{}-{}",
            self.kind,
            self.ctx.incarnation.as_str(),
            self.commands_sent
        );
        CommandId::new(id).map_err(|e| UiError::Protocol(format!("unusable incarnation: {e}")))
    }

    fn send(&self, body: CommandBody, id: CommandId) -> Result<(), UiError> {
        let command = Command {
            turn: self.turn,
            command_id: id,
            body,
        };
        self.link
            .commands
            .send(ToRuntime::Command(command))
            .map_err(|_| UiError::stopped("before taking a command"))
    }

    /// Closes input as soon as the next submitted task is accepted, so the runtime stops
    /// after that turn.
    pub fn close_input_after_acceptance(&mut self) {
        self.close_after_accept = true;
    }

    /// Tells the runtime no more commands will come (once).
    pub fn close_input(&mut self) {
        if self.input_open {
            self.input_open = false;
            // A runtime that already stopped needs no notice.
            let _ = self.link.commands.send(ToRuntime::InputClosed);
        }
    }

    /// The next event and whether a `stream_sequence` gap preceded it.
    fn next_event(&mut self, when: impl FnOnce() -> String) -> Result<(Event, bool), UiError> {
        let event = self
            .link
            .events
            .recv()
            .map_err(|RecvError| UiError::stopped(when()))?;
        let gap = event.stream_sequence != self.last_sequence.saturating_add(1);
        self.last_sequence = self.last_sequence.max(event.stream_sequence);
        Ok((event, gap))
    }

    /// Asks for a snapshot after lost events (not possible once input is closed).
    fn request_snapshot(&mut self) -> Result<Sync, UiError> {
        if !self.input_open {
            return Ok(Sync::Idle);
        }
        let id = self.next_id()?;
        let after_sequence = self.last_sequence;
        self.send(CommandBody::Snapshot { after_sequence }, id.clone())?;
        Ok(Sync::Snapshot(id))
    }

    /// Asks for the last transcript entries to recover a lost final answer.
    fn request_transcript(&mut self) -> Result<Sync, UiError> {
        let id = self.next_id()?;
        let query = TranscriptQuery {
            before: 0,
            limit: 4,
            forward: false,
        };
        self.send(CommandBody::Transcript(query), id.clone())?;
        Ok(Sync::Transcript(id))
    }

    /// Submits `text` and follows the turn to its end, reporting progress to `on`.
    pub fn run_task(
        &mut self,
        text: &str,
        mode: Mode,
        on: &mut dyn FnMut(Progress<'_>),
    ) -> Result<TaskEnd, UiError> {
        let id = self.next_id()?;
        let body = CommandBody::Submit {
            text: text.to_owned(),
            mode,
        };
        let submitted_at = self.turn;
        self.send(body, id.clone())?;
        let mut request: Option<RequestId> = None;
        let mut answer: Option<String> = None;
        let mut sync = Sync::Idle;
        let mut auth: Option<ErrorCode> = None;
        let end = |request: Option<RequestId>, state, reason, answer, durable| TaskEnd {
            outcome: TurnOutcome {
                state,
                reason,
                request_id: request,
                error: None,
            },
            answer,
            durable,
        };
        loop {
            let (event, gap) = self.next_event(|| match request {
                Some(r) => format!("in the middle of turn {r}"),
                None => "before answering a submitted task".to_owned(),
            })?;
            if gap && sync.is_idle() {
                sync = self.request_snapshot()?;
            }
            let ours = |r: RequestId| request == Some(r);
            match event.body {
                EventBody::CommandAccepted {
                    command_id,
                    request_id,
                    turn,
                }
                | EventBody::CommandReplayed {
                    command_id,
                    request_id,
                    turn,
                } => {
                    self.turn = self.turn.max(turn);
                    if command_id == id && request.is_none() {
                        request = Some(request_id);
                        if self.close_after_accept {
                            self.close_input();
                        }
                        on(Progress::Accepted(request_id));
                    }
                }
                EventBody::Error {
                    command_id: Some(c),
                    code,
                    message,
                } if c == id => {
                    return Ok(TaskEnd {
                        outcome: TurnOutcome {
                            state: TurnState::Failed,
                            reason: Some(message),
                            request_id: None,
                            error: Some(code),
                        },
                        answer: None,
                        durable: true,
                    });
                }
                EventBody::Error {
                    command_id,
                    message,
                    code,
                } => {
                    if code == ErrorCode::AuthFailed {
                        // The turn pauses next; the exit code says it was the credentials.
                        auth = Some(code);
                    }
                    if command_id.is_some() && command_id.as_ref() == sync.command() {
                        // The catch-up command failed; keep following the live stream.
                        sync = Sync::Idle;
                    }
                    on(Progress::Notice(&message));
                }
                EventBody::ToolStatus {
                    request_id,
                    tool,
                    status,
                    ..
                } if ours(request_id) => on(Progress::Tool {
                    tool: &tool,
                    phase: status,
                }),
                EventBody::TextDelta { request_id, text } if ours(request_id) => {
                    answer = Some(text);
                }
                EventBody::Done {
                    request_id,
                    durable,
                } if ours(request_id) => {
                    return Ok(end(request, TurnState::Done, None, answer, durable));
                }
                EventBody::TurnState {
                    request_id,
                    state: state @ (TurnState::Paused | TurnState::Cancelled | TurnState::Failed),
                    reason,
                } if ours(request_id) => {
                    let mut ended = end(request, state, reason, None, true);
                    ended.outcome.error = auth.take();
                    return Ok(ended);
                }
                EventBody::ResyncRequired { reason } => {
                    on(Progress::Notice(&format!("events were lost: {reason}")));
                    if sync.is_idle() {
                        sync = self.request_snapshot()?;
                    }
                }
                EventBody::Snapshot(s) => {
                    self.turn = self.turn.max(s.turn);
                    if !matches!(sync, Sync::Snapshot(_)) {
                        continue;
                    }
                    sync = Sync::Idle;
                    if request.is_none() && s.turn > submitted_at {
                        // The acceptance itself was lost; the only newer turn is ours.
                        request = s.request_id;
                        if let Some(r) = request {
                            if self.close_after_accept {
                                self.close_input();
                            }
                            on(Progress::Accepted(r));
                        }
                    }
                    if s.request_id.is_none() || s.request_id != request {
                        continue;
                    }
                    match s.state {
                        None | Some(TurnState::Queued | TurnState::Running) => {}
                        Some(TurnState::Done) if answer.is_none() && self.input_open => {
                            sync = self.request_transcript()?;
                        }
                        Some(state) => return Ok(end(request, state, None, answer, s.durable)),
                    }
                }
                EventBody::Transcript(page) if matches!(sync, Sync::Transcript(_)) => {
                    let found = page
                        .entries
                        .into_iter()
                        .rev()
                        .find(|e| ours(e.request_id) && e.role == Role::Assistant);
                    if let Some(entry) = &found
                        && entry.truncated
                    {
                        on(Progress::Notice(
                            "the recovered answer was cut to fit one transcript page",
                        ));
                    }
                    let answer = found.map(|e| e.text);
                    return Ok(end(request, TurnState::Done, None, answer, true));
                }
                _ => {}
            }
        }
    }

    /// Closes input and waits until the runtime stops, reporting its error events.
    pub fn finish(mut self, on: &mut dyn FnMut(Progress<'_>)) {
        self.close_input();
        while let Ok(event) = self.link.events.recv() {
            if let EventBody::Error { message, .. } = &event.body {
                on(Progress::Notice(message));
            }
        }
    }
}
