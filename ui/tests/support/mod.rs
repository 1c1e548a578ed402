//! An in-test stand-in for the session runtime: it reads `ToRuntime` from a frontend and
//! answers with scripted events, numbering them like the real runtime.

#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use ansa_sessions::Inbound;
use ansa_sessions::protocol::{
    Command, CommandBody, ErrorCode, Event, EventBody, SnapshotEvent, ToolPhase,
};
use ansa_sessions::{CallId, Incarnation, Mode, Profile, RequestId, TurnState};
use ansa_ui::{CommandSender, SessionLink, ToRuntime};

pub const INCARNATION: &str = "inc-1";
pub const SESSION_ID: &str = "20250101-000000-000000-abcdef";

/// The runtime side of a link.
pub struct Runtime {
    rx: Receiver<Inbound>,
    tx: Sender<Event>,
    seq: u64,
    /// Everything the frontend sent, in order.
    pub log: Vec<ToRuntime>,
}

/// Starts `script` as the runtime of a fresh link; the thread returns what the frontend
/// sent. The link is handed to the frontend under test.
pub fn spawn(
    script: impl FnOnce(&mut Runtime) + Send + 'static,
) -> (SessionLink, JoinHandle<Vec<ToRuntime>>) {
    let (cmd_tx, cmd_rx) = mpsc::channel();
    let (ev_tx, ev_rx) = mpsc::channel();
    let handle = thread::spawn(move || {
        let mut rt = Runtime {
            rx: cmd_rx,
            tx: ev_tx,
            seq: 0,
            log: Vec::new(),
        };
        script(&mut rt);
        rt.log
    });
    let link = SessionLink {
        commands: CommandSender::new(cmd_tx),
        events: ev_rx,
    };
    (link, handle)
}

pub fn snapshot_body(turn: u64) -> EventBody {
    EventBody::Snapshot(SnapshotEvent {
        session: Profile::Offline,
        incarnation: Incarnation::from_wire(INCARNATION),
        mode: Mode::Basic,
        transcript_size: 0,
        request_id: None,
        turn,
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
    })
}

impl Runtime {
    /// Emits an event with the next `stream_sequence`; false when the frontend is gone.
    pub fn emit(&mut self, body: EventBody) -> bool {
        self.seq += 1;
        self.tx
            .send(Event {
                stream_sequence: self.seq,
                body,
            })
            .is_ok()
    }

    /// Skips a `stream_sequence` number (as if an event was lost).
    pub fn lose_event(&mut self) {
        self.seq += 1;
    }

    pub fn snapshot(&mut self, turn: u64) {
        self.emit(snapshot_body(turn));
    }

    /// The next message from the frontend (logged); `None` when it dropped its sender.
    /// Panics after 10 s so a stuck frontend fails the test instead of hanging it.
    pub fn recv(&mut self) -> Option<ToRuntime> {
        match self.rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Inbound::Frontend(msg)) => {
                self.log.push(msg.clone());
                Some(msg)
            }
            Ok(Inbound::WorkerStopped) => panic!("a frontend cannot send WorkerStopped"),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("frontend sent nothing for 10 s"),
        }
    }

    /// The next message, which must be a command.
    pub fn command(&mut self) -> Command {
        match self.recv() {
            Some(ToRuntime::Command(c)) => c,
            other => panic!("expected a command, got {other:?}"),
        }
    }

    /// The next message, which must be `InputClosed`.
    pub fn input_closed(&mut self) {
        match self.recv() {
            Some(ToRuntime::InputClosed) => {}
            other => panic!("expected InputClosed, got {other:?}"),
        }
    }

    /// Accepts a submit as turn `request`.
    pub fn accept(&mut self, command: &Command, request: u64) {
        assert!(
            matches!(command.body, CommandBody::Submit { .. }),
            "{command:?}"
        );
        self.emit(EventBody::CommandAccepted {
            command_id: command.command_id.clone(),
            request_id: RequestId(request),
            turn: request,
        });
        self.emit(EventBody::TurnState {
            request_id: RequestId(request),
            state: TurnState::Running,
            reason: None,
        });
    }

    pub fn tool(&mut self, request: u64, tool: &str, status: ToolPhase) {
        self.emit(EventBody::ToolStatus {
            request_id: RequestId(request),
            call_id: CallId(format!("call-{request}")),
            tool: tool.into(),
            target: None,
            status,
            report: None,
            server: None,
        });
    }

    /// Ends turn `request` with `answer`.
    pub fn answer(&mut self, request: u64, answer: &str) {
        self.emit(EventBody::TextPreview {
            request_id: RequestId(request),
            generation: 1,
            text: answer.into(),
            state: ansa_sessions::protocol::PreviewState::Committed,
        });
        self.emit(EventBody::TextDelta {
            request_id: RequestId(request),
            text: answer.into(),
        });
        self.emit(EventBody::Done {
            request_id: RequestId(request),
            durable: true,
        });
    }

    /// Ends turn `request` in `state` (paused, cancelled, failed).
    pub fn end(&mut self, request: u64, state: TurnState, reason: &str) {
        self.emit(EventBody::TurnState {
            request_id: RequestId(request),
            state,
            reason: Some(reason.into()),
        });
    }

    /// Answers `command` with an error event.
    pub fn error(&mut self, command: &Command, code: ErrorCode, message: &str) {
        self.emit(EventBody::Error {
            command_id: Some(command.command_id.clone()),
            code,
            message: message.into(),
        });
    }
}

/// The submit text of a command.
pub fn submit_text(command: &Command) -> &str {
    match &command.body {
        CommandBody::Submit { text, .. } => text,
        other => panic!("expected a submit, got {other:?}"),
    }
}

/// A cloneable in-memory writer (for `Send + 'static` writers).
#[derive(Clone, Default)]
pub struct SharedBuf(pub Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer that accepts `ok_writes` write calls, then fails with `BrokenPipe`.
pub struct ClosedPipe {
    pub ok_writes: usize,
    pub written: Vec<u8>,
}

impl Write for ClosedPipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.ok_writes == 0 {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.ok_writes -= 1;
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Input that yields `data`, then blocks until the returned sender is dropped (an open
/// terminal or pipe with nothing more to say).
pub fn open_input(data: &[u8]) -> (impl Read + Send + 'static, Sender<()>) {
    struct Open {
        data: io::Cursor<Vec<u8>>,
        wait: Receiver<()>,
    }
    impl Read for Open {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.data.read(buf)?;
            if n == 0 {
                let _ = self.wait.recv();
            }
            Ok(n)
        }
    }
    let (tx, rx) = mpsc::channel();
    let input = Open {
        data: io::Cursor::new(data.to_vec()),
        wait: rx,
    };
    (input, tx)
}
