//! Tests of the Carbon TUI: app state driven by keys and events (`keys`), rendered views as
//! insta snapshots of a `TestBackend` (`render`), and the inline terminal's byte stream
//! parsed by `vt100` (`scrollback`).

mod children;
mod hidden;
mod keys;
mod mcp;
mod provider;
mod reflow;

mod ghosts;
mod mention;
mod prompts;
mod render;
mod rewind;
mod scrollback;
mod status;
mod streaming;
mod viewer;

use std::time::{Duration, Instant};

use ansa_sessions::protocol::{
    Command, CommandBody, Event, EventBody, PreviewState, ReportTone, SnapshotEvent, StoryPage,
    ToolPhase, ToolReport,
};
use ansa_sessions::{
    CallId, Incarnation, Mode, Profile, RequestId, Role, TranscriptEntry, TranscriptPage,
    TranscriptQuery, TurnState,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Line;

use super::app::{Action, App, OPEN_PAGE};
use super::theme::Theme;
use super::view;

/// An app with a fixed size and clock, the actions it produced and the lines it committed.
pub(super) struct Harness {
    pub app: App,
    pub seq: u64,
    pub sent: Vec<Command>,
    pub exits: Vec<u8>,
    /// `/new` asked the driver for a new session this many times.
    pub renews: usize,
    pub scrollback: Vec<Line<'static>>,
    pub start: Instant,
    /// Commits are moved into `scrollback` (off: they stay for the terminal code).
    pub drain: bool,
}

pub(super) fn snapshot_body(transcript_size: u64) -> SnapshotEvent {
    SnapshotEvent {
        session: Profile::Offline,
        incarnation: Incarnation::from_wire("inc7"),
        mode: Mode::Basic,
        transcript_size,
        request_id: None,
        turn: 0,
        resume_available: false,
        state: None,
        durable: true,
        storage_failed: false,
        read_only: false,
        read_only_reason: None,
        preview: None,
        usage: None,
        context: None,
        approval: None,
        through_sequence: 1,
    }
}

/// The `story` page the history pane asks for, its turns without steps.
pub(super) fn pane_page(page: TranscriptPage) -> EventBody {
    EventBody::Story(ansa_sessions::protocol::StoryPage {
        page,
        turns: Vec::new(),
    })
}

pub(super) fn entry(index: u64, role: Role, text: &str) -> TranscriptEntry {
    TranscriptEntry {
        index,
        request_id: RequestId(index.div_ceil(2)),
        role,
        text: text.to_owned(),
        truncated: false,
        rewound: false,
    }
}

/// `n` exchanges `question i` / `answer i`, indexes from 1.
pub(super) fn exchanges(n: u64) -> Vec<TranscriptEntry> {
    (1..=n)
        .flat_map(|i| {
            [
                entry(2 * i - 1, Role::User, &format!("question {i}")),
                entry(2 * i, Role::Assistant, &format!("answer {i}")),
            ]
        })
        .collect()
}

impl Harness {
    pub fn new(width: u16, height: u16, plain: bool) -> Self {
        let mut h = Harness::raw(width, height, plain);
        h.drain = true;
        h.drain();
        h
    }

    /// Like [`Harness::new`], but commits stay in the app.
    pub fn raw(width: u16, height: u16, plain: bool) -> Self {
        let mut app = App::new(
            "/home/dev/project".into(),
            "test-model".into(),
            "S-0001".into(),
            Theme { plain },
        );
        app.provider = "responses at https://api.example.test/v1".into();
        app.credentials = "API key".into();
        app.resize(width, height);
        let start = app.now;
        Harness {
            app,
            seq: 0,
            sent: Vec::new(),
            exits: Vec::new(),
            renews: 0,
            scrollback: Vec::new(),
            start,
            drain: false,
        }
    }

    /// Opened on a session whose transcript holds `entries` (answers the opening query).
    pub fn opened(width: u16, height: u16, plain: bool, entries: Vec<TranscriptEntry>) -> Self {
        let mut h = Harness::new(width, height, plain);
        h.open(entries);
        h
    }

    /// Delivers the first snapshot and the opening transcript page for `entries`.
    pub fn open(&mut self, entries: Vec<TranscriptEntry>) {
        let h = self;
        let total = entries.len() as u64;
        h.event(EventBody::Snapshot(snapshot_body(total)));
        if total > 0 {
            let query = TranscriptQuery {
                before: 0,
                limit: OPEN_PAGE,
                forward: false,
            };
            let picked: Vec<_> = entries
                .iter()
                .skip(entries.len().saturating_sub(OPEN_PAGE as usize))
                .cloned()
                .collect();
            // The opening asks for a `story` page; these turns have no steps.
            h.event(EventBody::Story(StoryPage {
                page: TranscriptPage {
                    begin: picked.first().map_or(1, |e| e.index),
                    end: total + 1,
                    total,
                    entries: picked,
                    query,
                },
                turns: Vec::new(),
            }));
        }
    }

    pub fn at(&mut self, secs: f64) {
        self.app.now = self.start + Duration::from_secs_f64(secs);
    }

    fn record(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Send(command) => self.sent.push(command),
                Action::Exit(code) => self.exits.push(code),
                Action::NewSession => self.renews += 1,
            }
        }
        self.drain();
        // As the real loop does after every event and key: draw, and note what was shown.
        if let Some(window) = view::live(&self.app).approval {
            self.app.approval_drawn(window);
        }
    }

    /// Moves committed entries into `scrollback` as rendered lines.
    pub fn drain(&mut self) {
        if !self.drain {
            return;
        }
        let width = self.app.width;
        for entry in self.app.take_commits() {
            let lines = view::entry_lines(&self.app, &entry, width);
            self.scrollback.extend(lines);
        }
    }

    pub fn event(&mut self, body: EventBody) {
        self.seq += 1;
        let actions = self.app.on_event(Event {
            stream_sequence: self.seq,
            body,
        });
        self.record(actions);
    }

    pub fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        let actions = self.app.on_key(KeyEvent::new(code, modifiers));
        self.record(actions);
    }

    pub fn press(&mut self, code: KeyCode) {
        self.key(code, KeyModifiers::NONE);
    }

    pub fn ctrl(&mut self, c: char) {
        self.key(KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            if c == '\n' {
                self.ctrl('j');
            } else {
                self.press(KeyCode::Char(c));
            }
        }
    }

    pub fn last(&self) -> &Command {
        &self.sent[self.sent.len() - 1]
    }

    /// Types `text`, presses Enter and accepts the submit as request `request`.
    pub fn submit_accepted(&mut self, text: &str, request: u64) -> RequestId {
        self.type_text(text);
        self.press(KeyCode::Enter);
        let command = self.last().clone();
        assert!(
            matches!(command.body, CommandBody::Submit { .. }),
            "{command:?}"
        );
        let request = RequestId(request);
        self.event(EventBody::CommandAccepted {
            command_id: command.command_id,
            request_id: request,
            turn: request.0,
        });
        self.event(EventBody::TurnState {
            request_id: request,
            state: TurnState::Running,
            reason: None,
        });
        request
    }

    pub fn preview(&mut self, request: RequestId, text: &str, state: PreviewState) {
        self.event(EventBody::TextPreview {
            request_id: request,
            generation: 1,
            text: text.to_owned(),
            state,
        });
    }

    pub fn tool(&mut self, request: RequestId, call: &str, tool: &str, phase: ToolPhase) {
        self.event(EventBody::ToolStatus {
            request_id: request,
            call_id: CallId(call.to_owned()),
            tool: tool.to_owned(),
            target: None,
            status: phase,
            report: None,
            server: None,
        });
    }

    /// A whole tool call: started on `target`, then ending with `report` (`finished`, or
    /// `failed` for an error tone).
    pub fn tool_call(
        &mut self,
        request: RequestId,
        call: &str,
        tool: &str,
        target: Option<&str>,
        report: ToolReport,
    ) {
        self.event(EventBody::ToolStatus {
            request_id: request,
            call_id: CallId(call.to_owned()),
            tool: tool.to_owned(),
            target: target.map(str::to_owned),
            status: ToolPhase::Started,
            report: None,
            server: None,
        });
        let status = match report.tone {
            ReportTone::Error => ToolPhase::Failed,
            _ => ToolPhase::Finished,
        };
        self.event(EventBody::ToolStatus {
            request_id: request,
            call_id: CallId(call.to_owned()),
            tool: tool.to_owned(),
            target: None,
            status,
            report: Some(report),
            server: None,
        });
    }

    pub fn answer(&mut self, request: RequestId, text: &str) {
        self.event(EventBody::TextDelta {
            request_id: request,
            text: text.to_owned(),
        });
        self.event(EventBody::Done {
            request_id: request,
            durable: true,
        });
    }

    pub fn turn_state(&mut self, request: RequestId, state: TurnState, reason: Option<&str>) {
        self.event(EventBody::TurnState {
            request_id: request,
            state,
            reason: reason.map(str::to_owned),
        });
    }

    /// The scrollback as text, one string per line.
    pub fn scrollback_text(&self) -> Vec<String> {
        self.scrollback.iter().map(line_text).collect()
    }
}

pub(super) fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}
