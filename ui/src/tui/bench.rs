//! A TUI state driven by real events and drawn into memory, for the render benchmarks
//! (`ui/benches/render.rs`): a running turn with finished tool rows and a streaming preview,
//! and a history pane loaded from a long session. Not part of the frontend's API.

use std::time::Instant;

use ansa_sessions::child::{ChildId, ChildProfile, ChildState};
use ansa_sessions::protocol::{
    ChildEvent, ChildStatus, DiffLine, DiffSign, Event, EventBody, FileDiff, PreviewState,
    ReportTone, SnapshotEvent, ToolPhase, ToolReport,
};
use ansa_sessions::{
    CallId, CommandId, Incarnation, Mode, Profile, RequestId, Role, TranscriptEntry, TranscriptPage,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::Theme;
use super::app::{Action, App};
use super::terminal::{InlineTerminal, render};

/// A state and the terminal it draws on.
#[derive(Debug)]
pub struct BenchFrame {
    app: App,
    term: InlineTerminal<Vec<u8>>,
    sequence: u64,
    sent: Vec<CommandId>,
    request: Option<RequestId>,
}

impl BenchFrame {
    /// An opened session of `exchanges` earlier exchanges on a `width`×`height` terminal.
    pub fn new(width: u16, height: u16, exchanges: u64) -> Self {
        let mut app = App::new(
            "/home/dev/project".into(),
            "gpt-5.5".into(),
            String::new(),
            Theme { plain: false },
        );
        app.resize(width, height);
        let mut frame = BenchFrame {
            app,
            term: InlineTerminal::new(Vec::new(), (width, height), Some((0, 0))),
            sequence: 0,
            sent: Vec::new(),
            request: None,
        };
        frame.event(EventBody::Snapshot(SnapshotEvent {
            session: Profile::Live,
            incarnation: Incarnation::from_wire("bench"),
            mode: Mode::Basic,
            transcript_size: exchanges * 2,
            request_id: None,
            turn: exchanges,
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
        }));
        frame
    }

    fn event(&mut self, body: EventBody) {
        self.sequence += 1;
        let actions = self.app.on_event(Event {
            stream_sequence: self.sequence,
            body,
        });
        self.record(actions);
    }

    fn record(&mut self, actions: Vec<Action>) {
        for action in actions {
            if let Action::Send(command) = action {
                self.sent.push(command.command_id);
            }
        }
    }

    fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        let actions = self.app.on_key(KeyEvent::new(code, modifiers));
        self.record(actions);
    }

    /// Types a task and has it accepted; its request, once accepted.
    pub fn submit(&mut self) -> Option<RequestId> {
        for c in "fix the failing tests".chars() {
            self.key(KeyCode::Char(c), KeyModifiers::NONE);
        }
        self.key(KeyCode::Enter, KeyModifiers::NONE);
        let command_id = self.sent.last().cloned()?;
        let request = RequestId(self.app.turn() + 1);
        self.event(EventBody::CommandAccepted {
            command_id,
            request_id: request,
            turn: request.0,
        });
        self.request = Some(request);
        Some(request)
    }

    /// The submitted task's answer so far is `text` (one streamed chunk arrived).
    pub fn stream_preview(&mut self, text: &str) {
        let Some(request) = self.request else {
            return;
        };
        self.event(EventBody::TextPreview {
            request_id: request,
            generation: 1,
            text: text.to_owned(),
            state: PreviewState::Preview,
        });
    }

    /// Submits a task and has `tools` tool calls finish with reports (exec output lines with
    /// more lines above them, an edit diff), then a preview of `preview_lines` lines streaming.
    pub fn running_with_tools(&mut self, tools: usize, preview_lines: usize) {
        let Some(request) = self.submit() else {
            return;
        };
        for n in 0..tools {
            let call_id = CallId(format!("call-{n}"));
            self.event(EventBody::ToolStatus {
                request_id: request,
                call_id: call_id.clone(),
                tool: "exec".into(),
                target: Some(format!("cargo test --package crate_{n}")),
                status: ToolPhase::Started,
                report: None,
                server: None,
            });
            let mut report = ToolReport::new(ReportTone::Warn, "exit 101");
            report.tail = vec![
                format!("test crate_{n}::parse::last_line ... FAILED"),
                "failures: 1".into(),
                "error: test failed, to rerun pass `--lib`".into(),
            ];
            report.lines = 50;
            report.diffs = vec![FileDiff {
                path: format!("src/crate_{n}.rs"),
                added: 2,
                removed: 1,
                lines: vec![
                    DiffLine {
                        sign: DiffSign::Removed,
                        text: "    lines.pop();".into(),
                    },
                    DiffLine {
                        sign: DiffSign::Added,
                        text: "    lines.retain(|l| !l.is_empty());".into(),
                    },
                ],
            }];
            self.event(EventBody::ToolStatus {
                request_id: request,
                call_id,
                tool: "exec".into(),
                target: None,
                status: ToolPhase::Finished,
                report: Some(report),
                server: None,
            });
        }
        // Running tools stay in the live region; start one more so it is not empty.
        self.event(EventBody::ToolStatus {
            request_id: request,
            call_id: CallId("call-running".into()),
            tool: "read".into(),
            target: Some("src/lib.rs".into()),
            status: ToolPhase::Started,
            report: None,
            server: None,
        });
        let text: String = (1..=preview_lines)
            .map(|n| format!("Line {n} of the **answer** with `code` and more words.\n"))
            .collect();
        self.event(EventBody::TextPreview {
            request_id: request,
            generation: 1,
            text,
            state: PreviewState::Preview,
        });
    }

    /// Submits a task in orchestrate mode whose `delegate` call runs `children` children:
    /// its row and one nested row per child, each running.
    pub fn delegating(&mut self, children: u32) {
        self.app.mode = Mode::Orchestrate;
        let Some(request) = self.submit() else {
            return;
        };
        self.event(EventBody::ToolStatus {
            request_id: request,
            call_id: CallId("call-delegate".into()),
            tool: "delegate".into(),
            target: Some(format!("{children} tasks")),
            status: ToolPhase::Started,
            report: None,
            server: None,
        });
        for index in 1..=children {
            self.child_status(request, index, 0);
        }
    }

    fn child_status(&mut self, request: RequestId, index: u32, tools: u32) {
        let Ok(child) = ChildId::new(format!("r1-0badc0de-{index}")) else {
            return;
        };
        self.event(EventBody::ChildStatus(ChildStatus {
            request_id: request,
            call_id: CallId("call-delegate".into()),
            child,
            index,
            task: format!(
                "Child task {index}: refactor the parser module so that every error carries its \
                 span, then update the tests under tests/parser/ and the docs"
            ),
            profile: ChildProfile::Full,
            state: ChildState::Running,
            tools,
            elapsed_ms: u64::from(tools) * 200,
            reason: None,
        }));
    }

    /// Child `index` (from 1) streams one more event: its `step`-th tool call starts (even
    /// steps, with its status row's new count) or finishes with a report (odd steps).
    pub fn child_streams(&mut self, index: u32, step: u32) {
        let (Some(request), Ok(child)) =
            (self.request, ChildId::new(format!("r1-0badc0de-{index}")))
        else {
            return;
        };
        let call = step / 2;
        let (status, target, report) = if step.is_multiple_of(2) {
            (
                ToolPhase::Started,
                Some(format!("src/parser/part_{call}.rs")),
                None,
            )
        } else {
            (
                ToolPhase::Finished,
                None,
                Some(ToolReport::new(ReportTone::Ok, "120 lines")),
            )
        };
        self.event(EventBody::Child(ChildEvent {
            child,
            event: Box::new(EventBody::ToolStatus {
                request_id: RequestId(1),
                call_id: CallId(format!("call-{call}")),
                tool: "read".into(),
                target,
                status,
                report,
                server: None,
            }),
        }));
        if step.is_multiple_of(2) {
            self.child_status(request, index, call + 1);
        }
    }

    /// Ctrl+O: the viewer opens (on a child's transcript while children run) or closes.
    pub fn toggle_viewer(&mut self) {
        self.key(KeyCode::Char('o'), KeyModifiers::CONTROL);
    }

    /// Opens the history pane and loads it from a session of `exchanges` exchanges, one
    /// page per PgUp (the pane keeps a bounded window of entries).
    pub fn history_open(&mut self, exchanges: u64, pages: usize) {
        self.key(KeyCode::Char('f'), KeyModifiers::CONTROL);
        let mut before = exchanges * 2 + 1;
        for _ in 0..pages {
            let Some(query) = self.app_last_query() else {
                break;
            };
            let begin = before.saturating_sub(u64::from(query.limit)).max(1);
            let entries: Vec<TranscriptEntry> = (begin..before)
                .map(|index| TranscriptEntry {
                    index,
                    request_id: RequestId(index.div_ceil(2)),
                    role: if index % 2 == 1 {
                        Role::User
                    } else {
                        Role::Assistant
                    },
                    text: format!(
                        "Exchange {index}: a paragraph long enough to wrap at narrow widths, \
                         with **emphasis** and a list:\n\n- one\n- two"
                    ),
                    truncated: false,
                    rewound: false,
                })
                .collect();
            self.event(EventBody::Transcript(TranscriptPage {
                begin,
                end: before,
                total: exchanges * 2,
                entries,
                query,
            }));
            before = begin;
            // PgUp scrolls through what is loaded before it asks for the older page.
            for _ in 0..200 {
                self.key(KeyCode::PageUp, KeyModifiers::NONE);
                if self.app_last_query().is_some() {
                    break;
                }
            }
        }
    }

    /// Transcript entries loaded in the history pane.
    pub fn history_entries(&self) -> usize {
        self.app.history.entries.len()
    }

    fn app_last_query(&self) -> Option<ansa_sessions::TranscriptQuery> {
        self.app.queries.last().map(|p| p.query)
    }

    /// One frame of the real driver: commits, then the live region, into memory. Returns the
    /// bytes written.
    pub fn frame(&mut self) -> usize {
        self.app.now = Instant::now();
        // A failed write into memory cannot happen; a frame that failed would show as 0 bytes.
        let _ = render(&mut self.term, &mut self.app);
        std::mem::take(self.term.writer_mut()).len()
    }

    /// Ctrl+L: the next frame repaints the whole live region (the worst case of a frame).
    pub fn repaint(&mut self) {
        self.key(KeyCode::Char('l'), KeyModifiers::CONTROL);
    }

    /// The terminal changed size.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.term
            .resize((width, height), Some((0, height.saturating_sub(1))));
        self.app.resize(width, height);
    }
}
