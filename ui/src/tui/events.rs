//! What runtime events do to the TUI state.

use ansa_sessions::protocol::{
    ErrorCode, Event, EventBody, PreviewState, SnapshotEvent, ToolPhase, ToolReport,
};
use ansa_sessions::{
    CallId, CommandId, RequestId, Role, TranscriptPage, TranscriptQuery, TurnState,
};

use super::app::{
    Action, App, Entry, LivePreview, Notice, OPEN_PAGE, Paused, Purpose, RecentCall, RetryStatus,
    Task, TaskKind, TaskState, Tone, ToolLine,
};
use crate::follow::{CatchUp, Cursor, TaskMatch};

impl App {
    /// Handles one runtime event.
    pub fn on_event(&mut self, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        let mut first = false;
        // The turn moving on after a retry notice means the wait is over.
        if matches!(
            event.body,
            EventBody::TextPreview { .. }
                | EventBody::TextDelta { .. }
                | EventBody::ToolStatus { .. }
                | EventBody::TurnState { .. }
                | EventBody::Done { .. }
        ) {
            self.retry = None;
            // The answer or the tool calls started: the reasoning behind them has done its job.
            self.reasoning = None;
        }
        let gap = match self.cursor.as_mut() {
            Some(cursor) => cursor.observe(&event).gap,
            None => {
                if let EventBody::Snapshot(s) = &event.body {
                    self.cursor = Some(Cursor::new("tui", &event, s));
                    first = true;
                }
                false
            }
        };
        match event.body {
            EventBody::Snapshot(s) => self.on_snapshot(s, first, &mut out),
            EventBody::CommandAccepted {
                command_id,
                request_id,
                ..
            }
            | EventBody::CommandReplayed {
                command_id,
                request_id,
                ..
            } => self.on_accepted(&command_id, request_id, &mut out),
            EventBody::TextPreview {
                request_id,
                generation,
                text,
                state,
            } if self.ours(request_id) => self.on_preview(generation, text, state),
            EventBody::TextDelta { request_id, text } if self.ours(request_id) => {
                if let Some(task) = self.task.as_mut() {
                    task.answer = Some(text);
                }
            }
            EventBody::ToolStatus {
                request_id,
                call_id,
                tool,
                target,
                status,
                report,
                server,
            } if self.ours(request_id) => {
                // An MCP call's row reads `mcp SERVER TOOL`: its target names both.
                let tool = if server.is_some() {
                    "mcp".to_owned()
                } else {
                    tool
                };
                self.on_tool(call_id, tool, target, status, report)
            }
            EventBody::TurnState {
                request_id,
                state,
                reason,
            } => self.on_turn_state(request_id, state, reason, &mut out),
            EventBody::Done {
                request_id,
                durable,
            } if self.ours(request_id) => self.on_done(request_id, durable, &mut out),
            EventBody::ResyncRequired { .. } => {
                self.say(Tone::Info, "some events were lost; catching up");
                self.ask_snapshot(&mut out);
            }
            EventBody::Transcript(page) => self.on_page(page, &mut out),
            EventBody::Story(page) => self.on_story(page, &mut out),
            EventBody::ToolOutput(page) => self.on_output_page(page),
            EventBody::Usage { usage, .. } => self.usage = Some(usage),
            EventBody::ReasoningPreview {
                request_id, text, ..
            } if self.ours(request_id) => self.reasoning = Some(text),
            EventBody::Retrying {
                request_id,
                attempt,
                of,
                delay_ms,
                reason,
            } if self.ours(request_id) => {
                self.retry = Some(RetryStatus {
                    attempt,
                    of,
                    until: self.now + std::time::Duration::from_millis(delay_ms),
                    reason,
                });
            }
            EventBody::ApprovalRequired(request) if self.ours(request.request_id) => {
                self.on_approval_required(*request, None)
            }
            EventBody::ApprovalDecided {
                request_id,
                call_id,
                decision,
                reason,
            } => self.on_approval_decided(None, request_id, &call_id, decision, reason),
            EventBody::Checkpoints { items } => self.on_checkpoints(items),
            EventBody::RewindPlan(plan) => self.on_rewind_plan(plan),
            EventBody::RewindDone(done) => self.on_rewind_done(done),
            EventBody::CheckpointNotice(notice) => {
                self.commit(Entry::Notice(Notice::new(Tone::Warn, notice.message)))
            }
            EventBody::WorkspaceDiff(diff) => self.on_workspace_diff(diff),
            EventBody::Compacted(done) => self.on_compacted(&done),
            EventBody::McpServers(servers) => self.on_mcp_servers(servers),
            EventBody::ProviderNotice(notice) => {
                self.commit(Entry::Notice(Notice::new(Tone::Info, notice.message)))
            }
            EventBody::Error {
                command_id,
                code,
                message,
            } => self.on_error(command_id, code, message, &mut out),
            EventBody::ModelCatalog(catalog) => self.on_model_catalog(catalog),
            EventBody::Rebound(rebound) => self.on_rebound(rebound),
            EventBody::ChildStatus(status) if self.ours(status.request_id) => {
                let child = status.child.clone();
                self.children.update(status, self.now);
                self.refresh_child_view(&child);
            }
            EventBody::Child(event) => self.on_child_event(event.child, *event.event),
            _ => {}
        }
        if gap {
            self.ask_snapshot(&mut out);
        }
        out
    }

    /// True when `request` is the followed task's request.
    fn ours(&self, request: RequestId) -> bool {
        self.task.as_ref().is_some_and(|t| t.follow.ours(request))
    }

    /// A snapshot: the first one opens the TUI's view of the session, later ones catch up.
    fn on_snapshot(&mut self, s: SnapshotEvent, first: bool, out: &mut Vec<Action>) {
        if s.read_only && !self.flags.read_only {
            let reason = s
                .read_only_reason
                .clone()
                .unwrap_or_else(|| "its journal is damaged".into());
            self.commit(Entry::Notice(Notice::new(
                Tone::Error,
                format!("This session is read-only: {reason}"),
            )));
        }
        self.flags.read_only = s.read_only;
        self.flags.storage_failed = s.storage_failed;
        self.usage = s.usage.or(self.usage);
        self.context = s.context.or(self.context);
        self.check_context_fill();
        let approval = s.approval.clone();
        if first {
            self.mode = s.mode;
            self.adopt(&s);
            let query = TranscriptQuery {
                before: 0,
                limit: OPEN_PAGE,
                forward: false,
            };
            if s.transcript_size > 0 {
                self.ask_story(query, Purpose::Replay, out);
            }
        } else {
            self.catch_up(&s, out);
        }
        // A snapshot says which call waits, if any (its events may have been lost).
        match approval {
            Some(request) if self.ours(request.request_id) => {
                self.on_approval_required(*request, None)
            }
            _ => self.approval = None,
        }
    }

    /// On open: a paused or still running turn of an earlier run.
    fn adopt(&mut self, s: &SnapshotEvent) {
        let Some(request) = s.request_id else {
            return;
        };
        match s.state {
            Some(TurnState::Paused) => {
                self.paused = Some(Paused {
                    request,
                    reason: (!s.resume_available)
                        .then(|| "resume is blocked (see the error above)".to_owned()),
                });
            }
            Some(state @ (TurnState::Queued | TurnState::Running)) => {
                self.task = Some(Task {
                    kind: TaskKind::Submit,
                    follow: TaskMatch::adopted(request, s.turn),
                    text: String::new(),
                    mode: s.mode,
                    state: if state == TurnState::Queued {
                        TaskState::Queued
                    } else {
                        TaskState::Running
                    },
                    cancelling: false,
                    cancel_on_accept: false,
                    started: self.now,
                    answer: None,
                });
                if let Some(p) = &s.preview {
                    self.on_preview(p.generation, p.text.clone(), p.state);
                }
            }
            _ => {}
        }
    }

    /// After lost events: bring the task up to date with a snapshot.
    fn catch_up(&mut self, s: &SnapshotEvent, out: &mut Vec<Action>) {
        let standing = match self.task.as_mut() {
            Some(task) => {
                let (accepted, standing) = task.follow.catch_up(s);
                if let Some(request) = accepted {
                    self.accepted(request, out);
                }
                standing
            }
            None => {
                if s.state == Some(TurnState::Paused)
                    && let Some(request) = s.request_id
                    && self.paused.is_none()
                {
                    self.paused = Some(Paused {
                        request,
                        reason: None,
                    });
                }
                return;
            }
        };
        let Some(request) = s.request_id.filter(|_| standing != CatchUp::Unrelated) else {
            return;
        };
        if let Some(p) = &s.preview {
            self.on_preview(p.generation, p.text.clone(), p.state);
        }
        match standing {
            CatchUp::Ended {
                state: TurnState::Done,
                durable,
            } => self.on_done(request, durable, out),
            CatchUp::Ended { state, .. } => self.end_turn(request, state, None, out),
            CatchUp::Current(state) => self.on_turn_state(request, state, None, out),
            CatchUp::Unrelated => {}
        }
    }

    fn on_accepted(&mut self, command_id: &CommandId, request: RequestId, out: &mut Vec<Action>) {
        if self
            .task
            .as_mut()
            .is_some_and(|task| task.follow.accept(command_id, request))
        {
            self.accepted(request, out);
            return;
        }
        for queued in &mut self.queued {
            if queued.follow.accept(command_id, request) {
                queued.state = TaskState::Queued;
                return;
            }
        }
    }

    /// The followed task was accepted as `request`.
    fn accepted(&mut self, request: RequestId, out: &mut Vec<Action>) {
        let Some(task) = self.task.as_mut() else {
            return;
        };
        task.state = TaskState::Queued;
        let cancel = std::mem::take(&mut task.cancel_on_accept);
        // A new turn: its calls replace the last turn's in the output pane.
        self.recent_calls.clear();
        match task.kind {
            TaskKind::Submit => {
                let text = task.text.clone();
                self.commit(Entry::User(text));
            }
            TaskKind::Resume => {
                self.paused = None;
                self.commit(Entry::Notice(Notice::new(
                    Tone::Info,
                    format!("resuming request {request}"),
                )));
            }
        }
        if cancel
            && let Some(command) =
                self.command(ansa_sessions::protocol::CommandBody::Cancel { target: request })
        {
            out.push(Action::Send(command));
        }
    }

    fn on_preview(&mut self, generation: u64, text: String, state: PreviewState) {
        match state {
            PreviewState::Preview | PreviewState::Committed => {
                match self.preview.as_mut() {
                    // The same generation growing: what is already in the dialog stays there.
                    Some(p)
                        if p.generation == generation && text.starts_with(&p.text[..p.shown]) =>
                    {
                        p.text = text;
                        p.discarded = false;
                    }
                    Some(p) if generation < p.generation => return,
                    _ => {
                        self.drop_streamed_preview();
                        self.preview = Some(LivePreview {
                            generation,
                            text,
                            shown: 0,
                            stuck: 0,
                            discarded: false,
                        });
                    }
                }
                self.stream_finished_blocks();
            }
            PreviewState::Discarded => match self.preview.as_mut() {
                Some(p) if p.generation == generation => p.discarded = true,
                Some(_) => {}
                None => {
                    self.preview = Some(LivePreview {
                        generation,
                        text,
                        shown: 0,
                        stuck: 0,
                        discarded: true,
                    })
                }
            },
        }
    }

    /// A preview part of which is already in the dialog is replaced: its rest is marked
    /// unfinished, so the dialog never ends in the middle of an answer without saying so.
    fn drop_streamed_preview(&mut self) {
        if let Some(p) = self.preview.take_if(|p| p.shown > 0) {
            self.commit(Entry::Unfinished(p.rest().to_owned()));
        }
    }

    fn on_tool(
        &mut self,
        call_id: CallId,
        name: String,
        target: Option<String>,
        phase: ToolPhase,
        report: Option<ToolReport>,
    ) {
        if let Some(task) = self.task.as_mut() {
            task.state = TaskState::Running;
        }
        if phase == ToolPhase::Started {
            // Text streamed before the tool calls is the model's commentary on them: it stays
            // in the dialog, in order, before the calls.
            if let Some(p) = self.preview.take_if(|p| !p.discarded)
                && !p.rest().trim().is_empty()
            {
                self.commit(Entry::Commentary(p.rest().to_owned()));
            }
            if !self.recent_calls.iter().any(|c| c.call_id == call_id) {
                let label = match &target {
                    Some(t) => format!("{name} {t}"),
                    None => name.clone(),
                };
                self.recent_calls.push(RecentCall {
                    call_id: call_id.clone(),
                    label,
                    report: None,
                });
            }
            match self.tools.iter_mut().find(|t| t.call_id == call_id) {
                Some(line) => line.phase = phase,
                None => self.tools.push(ToolLine {
                    call_id,
                    name,
                    target,
                    phase,
                    started: Some(self.now),
                    ended: None,
                    report: None,
                }),
            }
            return;
        }
        if name == ansa_sessions::child::DELEGATE_TOOL {
            // Its outcome (committed below) sums the children up.
            self.children.clear();
        }
        if let Some(recent) = self.recent_calls.iter_mut().find(|c| c.call_id == call_id) {
            recent.report = report.clone();
        }
        let line = match self.tools.iter().position(|t| t.call_id == call_id) {
            Some(i) => {
                let mut line = self.tools.remove(i);
                line.phase = phase;
                line.ended = Some(self.now);
                line.report = report;
                line
            }
            None => ToolLine {
                call_id,
                name,
                target: None,
                phase,
                started: None,
                ended: Some(self.now),
                report,
            },
        };
        self.commit(Entry::Tool(line));
    }

    fn on_turn_state(
        &mut self,
        request: RequestId,
        state: TurnState,
        reason: Option<String>,
        out: &mut Vec<Action>,
    ) {
        if !self.ours(request) {
            if self.paused.as_ref().is_some_and(|p| p.request == request)
                && matches!(state, TurnState::Cancelled | TurnState::Failed)
            {
                self.paused = None;
                let what = if state == TurnState::Cancelled {
                    "cancelled"
                } else {
                    "failed"
                };
                self.commit(Entry::Notice(Notice::new(
                    Tone::Info,
                    format!("paused request {request} {what}"),
                )));
            }
            return;
        }
        match state {
            TurnState::Queued => {
                if let Some(task) = self.task.as_mut() {
                    task.state = TaskState::Queued;
                }
            }
            TurnState::Running => {
                if let Some(task) = self.task.as_mut() {
                    task.state = TaskState::Running;
                }
            }
            TurnState::Done => {}
            TurnState::Paused | TurnState::Cancelled | TurnState::Failed => {
                self.end_turn(request, state, reason, out)
            }
        }
    }

    /// The task stopped without a final answer: its fragment stays, marked unfinished.
    fn end_turn(
        &mut self,
        request: RequestId,
        state: TurnState,
        reason: Option<String>,
        out: &mut Vec<Action>,
    ) {
        if let Some(p) = self.preview.take()
            && (p.shown > 0 || !p.text.trim().is_empty())
        {
            self.commit(Entry::Unfinished(p.rest().to_owned()));
        }
        let reason = reason.filter(|r| !r.trim().is_empty());
        match state {
            TurnState::Paused => {
                self.paused = Some(Paused { request, reason });
            }
            TurnState::Cancelled => {
                self.commit(Entry::Notice(Notice::new(Tone::Warn, "cancelled")))
            }
            _ => {
                let text = match reason {
                    Some(r) => format!("failed: {r}"),
                    None => "failed".to_owned(),
                };
                self.commit(Entry::Notice(Notice::new(Tone::Error, text)));
            }
        }
        self.end_task(out);
    }

    fn on_done(&mut self, request: RequestId, durable: bool, out: &mut Vec<Action>) {
        let streamed = self
            .preview
            .as_ref()
            .filter(|p| p.shown > 0)
            .map(|p| p.text[..p.shown].to_owned());
        match self.task.as_mut().and_then(|t| t.answer.take()) {
            // Its first blocks are in the dialog already: the rest follows, then the mark that
            // the answer is complete.
            Some(answer)
                if streamed
                    .as_ref()
                    .is_some_and(|s| answer.starts_with(s.as_str())) =>
            {
                let shown = streamed.map_or(0, |s| s.len());
                let rest = &answer[shown..];
                if !rest.trim().is_empty() {
                    self.commit(Entry::Answer(rest.to_owned()));
                }
                self.commit(Entry::Notice(Notice::new(Tone::Info, "answer complete")));
            }
            Some(answer) => self.commit(Entry::Answer(answer)),
            None => {
                let query = TranscriptQuery {
                    before: 0,
                    limit: 4,
                    forward: false,
                };
                self.ask_transcript(query, Purpose::Recover(request), out);
            }
        }
        if !durable {
            self.commit(Entry::Notice(Notice::new(
                Tone::Warn,
                "the answer was not saved (storage failed); it will be missing when the \
                 session is reopened",
            )));
        }
        self.end_task(out);
    }

    fn on_error(
        &mut self,
        command_id: Option<CommandId>,
        code: ErrorCode,
        message: String,
        out: &mut Vec<Action>,
    ) {
        self.diff_refused(command_id.as_ref());
        if let Some(id) = &command_id {
            if self.on_output_error(id, &message)
                || self.model_refused(id, &message)
                || self.on_rewind_error(id, &message, out)
                || self.on_story_error(id, out)
            {
                return;
            }
            if let Some(i) = self
                .queued
                .iter()
                .position(|q| q.follow.refused_by(Some(id)))
            {
                let task = self.queued.remove(i);
                if self.input.is_blank() {
                    self.input.restore(&task.text);
                }
                self.commit(Entry::Notice(Notice::new(
                    Tone::Error,
                    format!("the queued task was not accepted: {message}"),
                )));
                return;
            }
            self.queries.retain(|p| &p.id != id);
            let refused = self
                .task
                .as_ref()
                .is_some_and(|t| t.follow.refused_by(Some(id)));
            if refused && let Some(task) = self.task.take() {
                let what = match task.kind {
                    TaskKind::Submit => {
                        self.input.restore(&task.text);
                        "the task was not accepted"
                    }
                    TaskKind::Resume => "the request was not resumed",
                };
                self.commit(Entry::Notice(Notice::new(
                    Tone::Error,
                    format!("{what}: {message}"),
                )));
                self.task = None;
                self.end_task(out);
                return;
            }
        }
        if code == ErrorCode::ReadOnly {
            self.flags.read_only = true;
        }
        if code == ErrorCode::StorageFailed {
            self.flags.storage_failed = true;
        }
        self.commit(Entry::Notice(Notice::new(Tone::Error, message)));
    }

    fn on_page(&mut self, page: TranscriptPage, out: &mut Vec<Action>) {
        let Some(i) = self.queries.iter().position(|p| p.query == page.query) else {
            return;
        };
        let purpose = self.queries.remove(i).purpose;
        match purpose {
            Purpose::Opening => self.show_opening(page),
            Purpose::Recover(request) => {
                let found = page
                    .entries
                    .into_iter()
                    .rev()
                    .find(|e| e.request_id == request && e.role == Role::Assistant);
                match found {
                    Some(entry) => self.commit(Entry::Answer(entry.text)),
                    None => self.commit(Entry::Notice(Notice::new(
                        Tone::Warn,
                        format!(
                            "request {request} finished but its answer did not reach this \
                             terminal; it is in the session's journal"
                        ),
                    ))),
                }
            }
            Purpose::Pane(older) => self.on_pane_page(page, older, out),
            // Answered by a `story` page (`replay/`), never by a transcript page.
            Purpose::Replay => {}
        }
    }
}
