//! The state of the Carbon TUI and what keys do to it.
//!
//! Everything here is pure: [`App::on_key`], [`App::on_paste`] and [`App::on_event`] (in
//! `events.rs`) change the state and return [`Action`]s (commands to send, exit); dialog that
//! is finished goes into an outbox ([`App::take_commits`]) that the driver prints into the
//! terminal's scrollback exactly once. Time is the `now` field, set by the driver before each
//! batch of input, so tests control every duration shown.

use std::time::Instant;

use ansa_sessions::protocol::{Command, CommandBody, ContextSize, SessionUsage};
use ansa_sessions::{Mode, TranscriptQuery};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use super::blocks;
use super::input::Input;
use super::keys::{self, Intent, Slash, slash_help};
pub(crate) use super::model::{
    Action, Entry, Flags, HistoryPane, LivePreview, Notice, OutputPane, Paused, Pending, Purpose,
    RecentCall, RetryStatus, Task, TaskKind, TaskState, Tone, ToolLine,
};
use super::theme::Theme;
use crate::follow::{Cursor, TaskMatch};

/// Exit code after a second Ctrl+C or a termination signal.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// Transcript entries asked for on open: the last three exchanges and an unfinished request.
pub(crate) const OPEN_PAGE: u32 = 8;

/// The whole TUI state.
#[derive(Debug)]
pub(crate) struct App {
    /// Colours.
    pub theme: Theme,
    /// Working directory for the header.
    pub cwd: String,
    /// Model for the header.
    pub model: String,
    /// The session ID (or empty) for `--session`.
    pub session_hint: String,
    /// Which provider answers (for `/status`).
    pub provider: String,
    /// How requests are authorised (for `/status`).
    pub credentials: String,
    /// The OS sandbox (footer and `/status`).
    pub sandbox: super::SandboxInfo,
    /// The access mode (footer and `/status`).
    pub access: super::AccessInfo,

    /// Where `/sessions` is in the home's sessions (`None`: no home to list).
    pub sessions: Option<crate::picker::SessionsPager>,
    /// The current time, set by the driver.
    pub now: Instant,
    /// Terminal width.
    pub width: u16,
    /// Terminal height.
    pub height: u16,
    /// The input line.
    pub input: Input,
    /// `@` completion of workspace files.
    pub mentions: super::mention::Mentions,
    /// `/name` commands from prompt files.
    pub prompts: super::prompts::Prompts,
    /// Mode of the next task.
    pub mode: Mode,
    /// The place in the event stream, from the first snapshot on.
    pub cursor: Option<Cursor>,
    /// Snapshot flags.
    pub flags: Flags,
    /// The context's size against the compaction budget, from the latest snapshot.
    pub context: Option<ContextSize>,
    /// Tokens the session used so far (live providers report them).
    pub usage: Option<SessionUsage>,
    /// The model's window and the compaction warning (`usage.rs`).
    pub(crate) meter: super::usage::Meter,
    /// The task being followed.
    pub task: Option<Task>,
    /// Tasks typed ahead while `task` runs, in the runtime's FIFO order.
    pub queued: Vec<Task>,
    /// A paused turn.
    pub paused: Option<Paused>,
    /// Running tool calls of the task.
    pub tools: Vec<ToolLine>,
    /// Orchestrate mode's children of the running `delegate` call (`children/`).
    pub children: super::children::Children,
    /// The streaming answer.
    pub preview: Option<LivePreview>,
    /// The task's provider request is waiting to be tried again.
    pub retry: Option<RetryStatus>,
    /// The model's reasoning summary of the current generation, shown dimmed until the
    /// answer or the tool calls start; never committed.
    pub reasoning: Option<String>,
    /// A tool call of the task waiting for the user's approval (ask mode).
    pub approval: Option<super::approval::ApprovalPrompt>,
    /// A transient hint in the live region.
    pub notice: Option<Notice>,
    /// `/status` is shown.
    pub status_open: bool,
    /// The output pane.
    pub output: OutputPane,
    /// The tool calls of the latest turn, in order (the output pane steps through them).
    pub recent_calls: Vec<RecentCall>,
    /// The history pane.
    pub history: HistoryPane,
    /// The rewind screens (`/rewind`, Esc Esc), while open.
    pub rewind: Option<super::rewind::Rewind>,
    /// The `/diff` pane, while open.
    pub diff: Option<super::diff::DiffView>,
    /// `/model`: the picker and the model in force.
    pub model_switch: super::model_picker::ModelSwitch,
    /// The session's MCP servers as last reported (`/mcp`).
    pub(crate) mcp: super::mcp::McpPane,
    /// When Esc was last pressed on an empty input (a second one soon after opens the rewind).
    pub last_esc: Option<Instant>,
    /// A Ctrl+C was the last key: another one exits.
    pub armed: bool,
    /// Exit when the task ends (Ctrl+D, `/exit`).
    pub exit_after_task: bool,
    /// The live region must be repainted from scratch (Ctrl+L).
    pub repaint: bool,
    pub(crate) commits: Vec<Entry>,
    pub(crate) queries: Vec<Pending>,
}

impl App {
    /// A fresh state; the header is the first thing committed.
    pub fn new(cwd: String, model: String, session_hint: String, theme: Theme) -> Self {
        App {
            theme,
            cwd,
            model,
            session_hint,
            provider: String::new(),
            credentials: String::new(),
            sandbox: super::SandboxInfo::default(),
            access: super::AccessInfo::default(),

            sessions: None,
            now: Instant::now(),
            width: 80,
            height: 24,
            input: Input::default(),
            mentions: super::mention::Mentions::default(),
            prompts: super::prompts::Prompts::default(),
            mode: Mode::Basic,
            cursor: None,
            flags: Flags::default(),
            usage: None,
            meter: super::usage::Meter::default(),
            context: None,
            task: None,
            queued: Vec::new(),
            paused: None,
            tools: Vec::new(),
            children: super::children::Children::default(),
            preview: None,
            retry: None,
            reasoning: None,
            approval: None,
            notice: None,
            status_open: false,
            history: HistoryPane::default(),
            output: OutputPane::default(),
            recent_calls: Vec::new(),
            rewind: None,
            diff: None,
            model_switch: super::model_picker::ModelSwitch::default(),
            mcp: super::mcp::McpPane::default(),
            last_esc: None,
            armed: false,
            exit_after_task: false,
            repaint: false,
            commits: vec![Entry::Header],
            queries: Vec::new(),
        }
    }

    /// Dialog to print into scrollback, in order; each entry is returned once.
    pub fn take_commits(&mut self) -> Vec<Entry> {
        std::mem::take(&mut self.commits)
    }

    pub(crate) fn commit(&mut self, entry: Entry) {
        self.commits.push(entry);
    }

    pub(crate) fn say(&mut self, tone: Tone, text: impl Into<String>) {
        self.notice = Some(Notice::new(tone, text));
    }

    /// The terminal was resized.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.width = width.max(1);
        self.height = height.max(1);
    }

    /// Columns the input text wraps at.
    pub fn input_columns(&self) -> u16 {
        blocks::input_columns(self.width)
    }

    /// True while a submitted or resumed task has not ended, or an approval waits.
    pub fn busy(&self) -> bool {
        // A waiting approval is redrawn when its settle time passes (`approval::SETTLE`); a
        // viewer on a running command asks for its output again until it has ended.
        self.task.is_some()
            || self.approval.is_some()
            || (self.output.open && self.output.running)
            || self.mentions.waiting(&self.input)
    }

    /// A command with a fresh ID (`tui-<incarnation>-<n>`), or `None` before the first
    /// snapshot.
    pub(crate) fn command(&mut self, body: CommandBody) -> Option<Command> {
        self.cursor.as_mut()?.command(body).ok()
    }

    /// The latest turn number the runtime reported.
    pub(crate) fn turn(&self) -> u64 {
        self.cursor.as_ref().map_or(0, Cursor::turn)
    }

    /// Asks for a transcript page for `purpose`.
    pub(crate) fn ask_transcript(
        &mut self,
        query: TranscriptQuery,
        purpose: Purpose,
        out: &mut Vec<Action>,
    ) -> bool {
        let Some(command) = self.command(CommandBody::Transcript(query)) else {
            return false;
        };
        self.queries.push(Pending {
            id: command.command_id.clone(),
            query,
            purpose,
        });
        out.push(Action::Send(command));
        true
    }

    /// Asks for a snapshot after lost events (once at a time).
    pub(crate) fn ask_snapshot(&mut self, out: &mut Vec<Action>) {
        if let Some(Ok(Some(command))) = self.cursor.as_mut().map(Cursor::resync) {
            out.push(Action::Send(command));
        }
    }

    /// Handles a bracketed paste: the text goes into the input as typed text.
    pub fn on_paste(&mut self, text: &str) {
        self.armed = false;
        self.input.paste(text);
    }

    /// Handles a key press.
    pub fn on_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let mut out = Vec::new();
        if key.kind == KeyEventKind::Release {
            return out;
        }
        let Some(intent) = keys::intent(key) else {
            return out;
        };
        if intent != Intent::Interrupt {
            self.armed = false;
            if matches!(
                self.notice,
                Some(Notice {
                    tone: Tone::Info,
                    ..
                })
            ) {
                self.notice = None;
            }
        }
        if self.approval_key(intent, &mut out) {
            return out;
        }
        if intent != Intent::Dismiss {
            self.last_esc = None;
        }
        if self.rewind_key(intent, &mut out) || self.mention_key(intent) || self.prompt_key(intent)
        {
            return out;
        }
        if self.diff_key(intent) || self.model_key(intent, &mut out) {
            return out;
        }
        let columns = self.input_columns();
        match intent {
            Intent::Insert(c) => self.input.insert_char(c),
            Intent::Newline => self.input.newline(),
            Intent::Submit => self.submit(&mut out),
            Intent::Backspace => self.input.backspace(),
            Intent::Delete => self.input.delete(),
            Intent::Left if self.output.open => self.output_step(-1, &mut out),
            Intent::Right if self.output.open => self.output_step(1, &mut out),
            Intent::Left => self.input.left(),
            Intent::Right => self.input.right(),
            Intent::WordLeft => self.input.word_left(),
            Intent::WordRight => self.input.word_right(),
            Intent::Home if self.output.open => self.output_home(&mut out),
            Intent::End if self.output.open => self.output_end(&mut out),
            Intent::Home => self.input.home(),
            Intent::End => self.input.end(),
            Intent::Up if self.input.is_blank() && !self.queued.is_empty() => {
                self.recall_queued(&mut out)
            }
            Intent::Up => self.input.up(columns),
            Intent::Down => self.input.down(columns),
            Intent::DeleteWordBack => self.input.delete_word_back(),
            Intent::KillToStart => self.input.kill_to_start(),
            Intent::KillToEnd => self.input.kill_to_end(),
            Intent::ToggleMode if self.output.open => self.output_toggle_view(&mut out),
            Intent::ToggleMode if keys::slash_completion(self.input.text()).is_some() => {
                if let Some(done) = keys::slash_completion(self.input.text()) {
                    self.input.set(&done);
                }
            }
            // Tab goes basic → plan → orchestrate, Shift+Tab the other way.
            Intent::ToggleMode if key.code == KeyCode::BackTab => {
                self.mode = match self.mode {
                    Mode::Basic => Mode::Orchestrate,
                    Mode::Plan => Mode::Basic,
                    Mode::Orchestrate => Mode::Plan,
                }
            }
            Intent::ToggleMode => {
                self.mode = match self.mode {
                    Mode::Basic => Mode::Plan,
                    Mode::Plan => Mode::Orchestrate,
                    Mode::Orchestrate => Mode::Basic,
                }
            }
            Intent::Interrupt => self.interrupt(&mut out),
            Intent::FinishThenExit => self.finish_then_exit(&mut out),
            Intent::ToggleHistory => {
                self.output.open = false;
                self.toggle_history(&mut out)
            }
            Intent::ToggleOutput => {
                self.history.open = false;
                self.toggle_output(&mut out)
            }
            Intent::PageUp if self.output.open => self.output_page_up(&mut out),
            Intent::PageDown if self.output.open => self.output_page_down(&mut out),
            Intent::PageUp => self.page_up(&mut out),
            Intent::PageDown => self.page_down(&mut out),
            Intent::Dismiss if self.double_esc() => self.open_rewind(&mut out),
            Intent::Dismiss => {
                self.status_open = false;
                self.notice = None;
                self.history.open = false;
                self.output.open = false;
            }
            Intent::Repaint => self.repaint = true,
            Intent::ExpandPaste => {
                if !self.input.expand_paste() {
                    self.say(Tone::Info, "no collapsed paste in the input");
                }
            }
        }
        out
    }

    /// A termination signal (SIGTERM, SIGHUP, SIGINT): cancel the running task and leave.
    pub fn on_signal(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        if self.task.as_ref().is_some_and(|t| !t.cancelling) {
            self.cancel(&mut out);
        }
        out.push(Action::Exit(EXIT_INTERRUPTED));
        out
    }

    fn submit(&mut self, out: &mut Vec<Action>) {
        let prompt = self.prompts.expand(&self.input.expanded());
        if prompt.is_none()
            && let Some(command) = keys::slash(self.input.text())
        {
            if !matches!(command, Slash::Unknown(_)) {
                self.input.take();
            }
            self.slash(command, out);
            return;
        }
        if self.input.is_blank() {
            return;
        }
        if self.cursor.is_none() {
            self.say(
                Tone::Warn,
                "the session is still opening; your text is kept",
            );
            return;
        }
        let Some(mentions) = self.mentions_to_send() else {
            return;
        };
        let text = prompt.unwrap_or_else(|| self.input.expanded());
        let body = CommandBody::Submit {
            text: text.clone(),
            mode: self.mode,
            mentions,
        };
        let submitted_turn = self.turn();
        let Some(command) = self.command(body) else {
            return;
        };
        self.input.take();
        self.status_open = false;
        self.notice = None;
        let task = Task {
            kind: TaskKind::Submit,
            follow: TaskMatch::submitted(command.command_id.clone(), submitted_turn),
            text,
            mode: self.mode,
            state: TaskState::Sending,
            cancelling: false,
            cancel_on_accept: false,
            started: self.now,
            answer: None,
        };
        // Typed ahead: the runtime queues it behind the running task, one runs at a time.
        if self.task.is_some() {
            self.queued.push(task);
        } else {
            self.task = Some(task);
        }
        out.push(Action::Send(command));
    }

    fn slash(&mut self, command: Slash, out: &mut Vec<Action>) {
        self.status_open = false;
        match command {
            Slash::Basic => self.mode = Mode::Basic,
            Slash::Plan => self.mode = Mode::Plan,
            Slash::Orchestrate => self.mode = Mode::Orchestrate,
            Slash::Status => {
                self.status_open = true;
                // A fresh snapshot brings the context size as of the last turn boundary.
                if let Some(Ok(command)) = self.cursor.as_mut().map(Cursor::snapshot) {
                    out.push(Action::Send(command));
                }
            }
            Slash::Cancel => self.cancel(out),
            Slash::Resume => self.resume(out),
            Slash::Rewind => self.open_rewind(out),
            Slash::Exit => self.finish_then_exit(out),
            Slash::Diff => self.open_diff(out),
            Slash::Compact => self.compact(out),
            Slash::Mcp => self.mcp_slash(out),
            Slash::Help => self.say(
                Tone::Info,
                format!(
                    "{} · Shift+Enter or Ctrl+J new line · Tab basic/plan/orchestrate · Ctrl+C \
                     cancel · Ctrl+D exit · Ctrl+F history · Ctrl+O tool output · PgUp/PgDn \
                     page",
                    slash_help()
                ),
            ),
            Slash::New => self.new_session(out),
            Slash::Unknown(word) => self.say(
                Tone::Warn,
                format!(
                    "{word} is not a command ({}); your text is kept",
                    slash_help()
                ),
            ),
            Slash::Sessions => super::sessions::slash_sessions(self),
            Slash::Model => self.open_model_picker(out),
        }
    }

    /// Ctrl+C: cancel the task; a second one in a row exits.
    fn interrupt(&mut self, out: &mut Vec<Action>) {
        if self.armed {
            out.push(Action::Exit(EXIT_INTERRUPTED));
            return;
        }
        self.armed = true;
        if self.task.as_ref().is_some_and(|t| !t.cancelling) {
            self.cancel(out);
            self.say(Tone::Info, "cancelling… press Ctrl+C again to exit");
        } else {
            self.say(Tone::Info, "press Ctrl+C again to exit");
        }
    }

    /// Cancels the task (or the paused turn).
    pub(crate) fn cancel(&mut self, out: &mut Vec<Action>) {
        let target = match self.task.as_mut() {
            Some(task) if task.cancelling => {
                self.notice = Some(Notice::new(Tone::Info, "already cancelling"));
                return;
            }
            Some(task) => {
                task.cancelling = true;
                match task.follow.request() {
                    Some(request) => request,
                    None => {
                        task.cancel_on_accept = true;
                        return;
                    }
                }
            }
            None => match &self.paused {
                Some(paused) => paused.request,
                None => {
                    self.say(Tone::Info, "nothing to cancel");
                    return;
                }
            },
        };
        if let Some(command) = self.command(CommandBody::Cancel { target }) {
            out.push(Action::Send(command));
        }
    }

    fn resume(&mut self, out: &mut Vec<Action>) {
        if self.task.is_some() {
            self.say(
                Tone::Warn,
                "a task is running; /resume works when it has ended",
            );
            return;
        }
        let Some(target) = self.paused.as_ref().map(|p| p.request) else {
            self.say(Tone::Info, "no paused request to resume");
            return;
        };
        let submitted_turn = self.turn();
        let Some(command) = self.command(CommandBody::Resume { target }) else {
            return;
        };
        self.task = Some(Task {
            kind: TaskKind::Resume,
            follow: TaskMatch::resumed(command.command_id.clone(), submitted_turn, target),
            text: String::new(),
            mode: self.mode,
            state: TaskState::Sending,
            cancelling: false,
            cancel_on_accept: false,
            started: self.now,
            answer: None,
        });
        out.push(Action::Send(command));
    }

    /// Ctrl+D and `/exit`: leave now when idle, else when the task ends.
    fn finish_then_exit(&mut self, out: &mut Vec<Action>) {
        if self.task.is_some() {
            self.exit_after_task = true;
            let what = if self.queued.is_empty() {
                "exiting when this task ends (Ctrl+C cancels it)"
            } else {
                "exiting when the queued tasks have run (Ctrl+C cancels the running one)"
            };
            self.say(Tone::Info, what);
        } else {
            out.push(Action::Exit(0));
        }
    }

    /// The task ended: the rest of its live state goes, and a pending exit happens.
    pub(crate) fn end_task(&mut self, out: &mut Vec<Action>) {
        for mut tool in std::mem::take(&mut self.tools) {
            tool.ended = Some(self.now);
            self.commit(Entry::Tool(tool));
        }
        self.preview = None;
        self.retry = None;
        self.reasoning = None;
        self.approval = None;
        // A paused or cancelled `delegate` call has no outcome to clear its children's rows.
        self.children.clear();
        self.task = None;
        self.mentions.turn_ended();
        if !self.queued.is_empty() {
            let mut next = self.queued.remove(0);
            next.started = self.now;
            self.recent_calls.clear();
            let accepted = next.follow.accepted();
            let text = next.text.clone();
            self.task = Some(next);
            // Its text joins the dialog when it starts; an acceptance still on its way
            // commits it when it arrives.
            if accepted {
                self.commit(Entry::User(text));
            }
            return;
        }
        if self.armed {
            self.say(Tone::Info, "press Ctrl+C again to exit");
        }
        if self.exit_after_task {
            out.push(Action::Exit(0));
        }
    }

    /// Up on an empty input with tasks typed ahead: the last one comes back for editing, and
    /// its queued turn is cancelled before it starts.
    fn recall_queued(&mut self, out: &mut Vec<Action>) {
        let Some(last) = self.queued.last() else {
            return;
        };
        let Some(request) = last.follow.request() else {
            self.say(
                Tone::Info,
                "the queued task is still on its way; try again in a moment",
            );
            return;
        };
        let Some(command) = self.command(CommandBody::Cancel { target: request }) else {
            return;
        };
        out.push(Action::Send(command));
        if let Some(task) = self.queued.pop() {
            self.input.restore(&task.text);
        }
        self.say(
            Tone::Info,
            "the queued task is back in the input; Enter sends it again",
        );
    }
}
