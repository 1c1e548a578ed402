//! The blocking follower of the line and one-shot frontends: waits for the first snapshot,
//! submits a task and reports its progress until the turn ends.

use std::sync::mpsc::RecvError;

use ansa_sessions::protocol::{
    ApprovalRequest, CheckpointNoticeKind, Command, CommandBody, ErrorCode, Event, EventBody,
    SnapshotEvent, ToolPhase, ToolReport,
};
use ansa_sessions::{CallId, CommandId, Mode, Profile, RequestId, TranscriptQuery, TurnState};

use super::{CatchUp, Cursor, TaskMatch, first_snapshot};
use crate::ask::Answer;
use crate::error::UiError;
use crate::outcome::TurnOutcome;
use crate::{SessionLink, ToRuntime};

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
        /// What it did or why it failed, once it finished or failed.
        report: Option<&'a ToolReport>,
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

/// A frontend's view of one session: the link and the stream cursor.
pub(crate) struct Follower {
    link: SessionLink,
    cursor: Cursor,
    input_open: bool,
    close_after_accept: bool,
}

impl Follower {
    /// Waits for the first snapshot; command IDs start with `kind`.
    pub fn start(link: SessionLink, kind: &'static str) -> Result<(Self, SnapshotEvent), UiError> {
        let (event, snapshot) = first_snapshot(&link)?;
        let follower = Self {
            cursor: Cursor::new(kind, &event, &snapshot),
            link,
            input_open: true,
            close_after_accept: false,
        };
        Ok((follower, snapshot))
    }

    /// The session profile from the snapshot.
    pub fn profile(&self) -> Profile {
        self.cursor.context().session
    }

    fn send(&self, command: Command) -> Result<(), UiError> {
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

    fn next_event(&mut self, when: impl FnOnce() -> String) -> Result<Event, UiError> {
        self.link
            .events
            .recv()
            .map_err(|RecvError| UiError::stopped(when()))
    }

    /// Asks for a snapshot after lost events (not possible once input is closed).
    fn resync(&mut self) -> Result<(), UiError> {
        if !self.input_open {
            return Ok(());
        }
        match self.cursor.resync()? {
            Some(command) => self.send(command),
            None => Ok(()),
        }
    }

    /// Asks for the last transcript entries to recover a lost final answer.
    fn request_transcript(&mut self) -> Result<CommandId, UiError> {
        let query = TranscriptQuery {
            before: 0,
            limit: 4,
            forward: false,
        };
        let command = self.cursor.command(CommandBody::Transcript(query))?;
        let id = command.command_id.clone();
        self.send(command)?;
        Ok(id)
    }

    fn accepted(&mut self, request: RequestId, on: &mut dyn FnMut(Progress<'_>)) {
        if self.close_after_accept {
            self.close_input();
        }
        on(Progress::Accepted(request));
    }

    /// Puts an approval of the task to `approver` (once per call) and sends the answer.
    fn answer(
        &mut self,
        request: &ApprovalRequest,
        answered: &mut Option<(RequestId, CallId)>,
        approver: &mut dyn FnMut(&ApprovalRequest) -> Answer,
    ) -> Result<(), UiError> {
        let key = (request.request_id, request.call_id.clone());
        if answered.as_ref() == Some(&key) {
            return Ok(());
        }
        let answer = approver(request);
        *answered = Some(key);
        let command = self.cursor.command(CommandBody::Approve {
            target: request.request_id,
            call: request.call_id.clone(),
            decision: answer.decision,
            reason: answer.reason,
        })?;
        self.send(command)
    }

    /// Submits `text` and follows the turn to its end, reporting progress to `on` and
    /// putting approvals (ask mode) to `approver`.
    pub fn run_task(
        &mut self,
        text: &str,
        mode: Mode,
        on: &mut dyn FnMut(Progress<'_>),
        approver: &mut dyn FnMut(&ApprovalRequest) -> Answer,
    ) -> Result<TaskEnd, UiError> {
        let command = self.cursor.command(CommandBody::Submit {
            text: text.to_owned(),
            mode,
            mentions: Vec::new(),
        })?;
        let task = TaskMatch::submitted(command.command_id.clone(), self.cursor.turn());
        self.follow(command, task, on, approver)
    }

    /// Asks the runtime to resume (`resume: true`) or cancel the paused turn `target` and
    /// follows it to its end like [`Self::run_task`].
    pub fn run_on_paused(
        &mut self,
        target: RequestId,
        resume: bool,
        on: &mut dyn FnMut(Progress<'_>),
        approver: &mut dyn FnMut(&ApprovalRequest) -> Answer,
    ) -> Result<TaskEnd, UiError> {
        let body = match resume {
            true => CommandBody::Resume { target },
            false => CommandBody::Cancel { target },
        };
        let command = self.cursor.command(body)?;
        let task = TaskMatch::resumed(command.command_id.clone(), self.cursor.turn(), target);
        self.follow(command, task, on, approver)
    }

    /// Asks for a snapshot of the session now and waits for it (`/status`).
    pub fn snapshot(&mut self) -> Result<SnapshotEvent, UiError> {
        let command = self.cursor.snapshot()?;
        let id = command.command_id.clone();
        self.send(command)?;
        loop {
            let event = self.next_event(|| "before answering a snapshot request".to_owned())?;
            self.cursor.observe(&event);
            match event.body {
                EventBody::Snapshot(s) => return Ok(s),
                EventBody::Error {
                    command_id: Some(c),
                    message,
                    ..
                } if c == id => return Err(UiError::Protocol(message)),
                _ => {}
            }
        }
    }

    fn follow(
        &mut self,
        command: Command,
        mut task: TaskMatch,
        on: &mut dyn FnMut(Progress<'_>),
        approver: &mut dyn FnMut(&ApprovalRequest) -> Answer,
    ) -> Result<TaskEnd, UiError> {
        let mut answered: Option<(RequestId, CallId)> = None;
        self.send(command)?;
        let mut answer: Option<String> = None;
        // A transcript page was asked for: the turn is done but its answer was lost.
        let mut recovering: Option<CommandId> = None;
        let mut auth: Option<ErrorCode> = None;
        let end = |task: &TaskMatch, state, reason, answer, durable| TaskEnd {
            outcome: TurnOutcome {
                state,
                reason,
                request_id: task.request(),
                error: None,
            },
            answer,
            durable,
        };
        loop {
            let event = self.next_event(|| match task.request() {
                Some(r) => format!("in the middle of turn {r}"),
                None => "before answering a submitted task".to_owned(),
            })?;
            let observed = self.cursor.observe(&event);
            if observed.gap && recovering.is_none() {
                self.resync()?;
            }
            match event.body {
                EventBody::CommandAccepted {
                    command_id,
                    request_id,
                    ..
                }
                | EventBody::CommandReplayed {
                    command_id,
                    request_id,
                    ..
                } if task.accept(&command_id, request_id) => self.accepted(request_id, on),
                EventBody::Error {
                    command_id,
                    code,
                    message,
                } if task.refused_by(command_id.as_ref()) => {
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
                    if command_id.is_some() && command_id == recovering {
                        // The recovery failed; keep following the live stream.
                        recovering = None;
                    }
                    on(Progress::Notice(&message));
                }
                EventBody::ToolStatus {
                    request_id,
                    tool,
                    status,
                    report,
                    ..
                } if task.ours(request_id) => on(Progress::Tool {
                    tool: &tool,
                    phase: status,
                    report: report.as_ref(),
                }),
                EventBody::TextDelta { request_id, text } if task.ours(request_id) => {
                    answer = Some(text);
                }
                EventBody::ApprovalRequired(request) if task.ours(request.request_id) => {
                    self.answer(&request, &mut answered, approver)?;
                }
                EventBody::Done {
                    request_id,
                    durable,
                } if task.ours(request_id) => {
                    return Ok(end(&task, TurnState::Done, None, answer, durable));
                }
                EventBody::TurnState {
                    request_id,
                    state: state @ (TurnState::Paused | TurnState::Cancelled | TurnState::Failed),
                    reason,
                } if task.ours(request_id) => {
                    let mut ended = end(&task, state, reason, None, true);
                    ended.outcome.error = auth.take();
                    return Ok(ended);
                }
                EventBody::Retrying {
                    request_id,
                    attempt,
                    of,
                    delay_ms,
                    reason,
                } if task.ours(request_id) => {
                    let wait = std::time::Duration::from_millis(delay_ms);
                    on(Progress::Notice(&crate::retry_text::retrying(
                        &reason, attempt, of, wait,
                    )));
                }
                EventBody::ProviderNotice(notice) if task.ours(notice.request_id) => {
                    on(Progress::Notice(&notice.message));
                }
                // A spent checkpoint budget or a failed checkpoint of this task, and a rewind the
                // previous process was interrupted in, are never silent.
                EventBody::CheckpointNotice(notice)
                    if task.ours(notice.request_id)
                        || notice.kind == CheckpointNoticeKind::RewindRecovered =>
                {
                    on(Progress::Notice(&notice.message));
                }
                EventBody::ResyncRequired { reason } => {
                    on(Progress::Notice(&format!("events were lost: {reason}")));
                    if recovering.is_none() {
                        self.resync()?;
                    }
                }
                EventBody::Snapshot(s) if observed.caught_up => {
                    if let Some(request) = s.approval.as_ref().filter(|r| task.ours(r.request_id)) {
                        self.answer(request, &mut answered, approver)?;
                    }
                    let (accepted, standing) = task.catch_up(&s);
                    if let Some(request) = accepted {
                        self.accepted(request, on);
                    }
                    match standing {
                        CatchUp::Unrelated | CatchUp::Current(_) => {}
                        CatchUp::Ended {
                            state: TurnState::Done,
                            ..
                        } if answer.is_none() && self.input_open => {
                            recovering = Some(self.request_transcript()?);
                        }
                        CatchUp::Ended { state, durable } => {
                            return Ok(end(&task, state, None, answer, durable));
                        }
                    }
                }
                EventBody::Transcript(page) if recovering.is_some() => {
                    let found = task.answer_in(page);
                    if let Some(entry) = &found
                        && entry.truncated
                    {
                        on(Progress::Notice(
                            "the recovered answer was cut to fit one transcript page",
                        ));
                    }
                    let answer = found.map(|e| e.text);
                    return Ok(end(&task, TurnState::Done, None, answer, true));
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
