//! The TUI's event loop: terminal input, runtime events and signals arrive on one channel
//! from their own threads, so neither ever blocks rendering; every batch is applied to the
//! [`App`] and followed by at most one frame.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use ansa_sessions::protocol::Event;
use crossterm::event::{self as term_event, Event as TermEvent};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;
use signal_hook::iterator::Signals;

use super::app::{Action, App};
use super::model::{Entry, Notice, Tone};
use super::renew::{Renew, RenewError, Renewed};
use super::terminal::{Frames, InlineTerminal, TerminalGuard, render};
use super::view;
use super::{TuiExit, TuiInfo};
use crate::error::UiError;
use crate::sanitize::exact;
use crate::{CommandSender, SessionLink, ToRuntime};

/// Shortest time between two frames.
const FRAME: Duration = Duration::from_millis(16);
/// Redraw interval while a task runs (durations tick).
const TICK: Duration = Duration::from_millis(100);
/// How often the input thread looks at its stop flag.
const POLL: Duration = Duration::from_millis(50);
/// Longest wait for an idle runtime to stop after `/new` closed its input.
const STOP_WAIT: Duration = Duration::from_secs(30);
/// The exit code after a termination signal.
const EXIT_SIGNALLED: u8 = 130;

/// Something for the loop.
enum Input {
    Term(TermEvent),
    TermFailed(io::Error),
    Runtime(Event),
    RuntimeClosed,
    Signal,
}

fn spawn_runtime(events: Receiver<Event>, tx: Sender<Input>) -> io::Result<()> {
    thread::Builder::new()
        .name("ansa-tui-events".into())
        .spawn(move || {
            for event in events.iter() {
                if tx.send(Input::Runtime(event)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Input::RuntimeClosed);
        })
        .map(drop)
}

fn spawn_input(tx: Sender<Input>, stop: Arc<AtomicBool>) -> io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("ansa-tui-input".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let ready = match term_event::poll(POLL) {
                    Ok(ready) => ready,
                    Err(e) => {
                        let _ = tx.send(Input::TermFailed(e));
                        return;
                    }
                };
                if !ready {
                    continue;
                }
                let input = match term_event::read() {
                    Ok(event) => Input::Term(event),
                    Err(e) => Input::TermFailed(e),
                };
                let failed = matches!(input, Input::TermFailed(_));
                if tx.send(input).is_err() || failed {
                    return;
                }
            }
        })
}

/// SIGTERM, SIGHUP and SIGINT reach the loop as [`Input::Signal`] while the TUI runs (a
/// hung-up terminal sends SIGHUP: the loop must hear it even while the input thread is stuck
/// reading a dead terminal); once `after` is set (the TUI has ended) they take their default
/// action again.
fn watch_signals(tx: Sender<Input>, after: &Arc<AtomicBool>) -> io::Result<()> {
    for signal in [SIGTERM, SIGHUP, SIGINT] {
        flag::register_conditional_default(signal, Arc::clone(after))?;
    }
    let mut signals = Signals::new([SIGTERM, SIGHUP, SIGINT])?;
    thread::Builder::new()
        .name("ansa-tui-signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                if tx.send(Input::Signal).is_err() {
                    return;
                }
            }
        })
        .map(drop)
}

/// How the loop ended.
enum End {
    Exit(u8),
    RuntimeStopped,
    Failed(UiError),
}

struct Loop<'r> {
    app: App,
    term: InlineTerminal<Frames>,
    commands: CommandSender,
    rx: Receiver<Input>,
    /// For the events thread of a session opened by `/new`.
    tx: Sender<Input>,
    resize: Option<(u16, u16)>,
    /// Opens a new session for `/new` (absent: `/new` is not offered by the caller).
    renew: Option<&'r mut dyn Renew>,
}

/// A fresh state for a session's TUI (at start and after `/new`).
fn new_app(info: TuiInfo) -> App {
    let mut app = App::new(info.cwd, info.model, info.session_hint, info.theme);
    app.provider = info.provider;
    app.credentials = info.credentials;
    app.sandbox = info.sandbox;
    app.access = info.access;
    app.meter.window = info.context_window;
    app.meter.windows = info.context_windows;
    if let Some(source) = info.mentions {
        // Its own thread walks the tree: the first frame never waits for it.
        app.mentions = super::mention::Mentions::new(super::mention::MentionIndex::spawn(source));
    }
    app.sessions = info.sessions_home.map(crate::picker::SessionsPager::new);
    if let Some(line) = info.resumed {
        app.commit(Entry::Notice(Notice::new(Tone::Info, line)));
    }
    app
}

impl Loop<'_> {
    fn apply(&mut self, input: Input) -> Option<End> {
        let actions = match input {
            Input::Term(TermEvent::Key(key)) => self.app.on_key(key),
            Input::Term(TermEvent::Paste(text)) => {
                self.app.on_paste(&text);
                Vec::new()
            }
            Input::Term(TermEvent::Resize(w, h)) => {
                self.resize = Some((w, h));
                Vec::new()
            }
            Input::Term(_) => Vec::new(),
            Input::TermFailed(e) => {
                return Some(End::Failed(UiError::io("reading the terminal")(e)));
            }
            Input::Runtime(event) => self.app.on_event(event),
            Input::RuntimeClosed => return Some(End::RuntimeStopped),
            Input::Signal => self.app.on_signal(),
        };
        self.send(actions)
    }

    /// Carries out the state's actions.
    fn send(&mut self, actions: Vec<Action>) -> Option<End> {
        let mut end = None;
        for action in actions {
            match action {
                Action::Send(command) => {
                    if self.commands.send(ToRuntime::Command(command)).is_err() {
                        return Some(End::RuntimeStopped);
                    }
                }
                Action::Exit(code) => end = end.or(Some(End::Exit(code))),
                Action::NewSession => {
                    if let Some(stop) = self.switch_session() {
                        return Some(stop);
                    }
                }
            }
        }
        end
    }

    /// `/new`: closes this session's runtime, waits until it has stopped (its journal synced,
    /// its lock released), and continues on the session the caller opens. Keys typed meanwhile
    /// are applied afterwards.
    fn switch_session(&mut self) -> Option<End> {
        let Some(renew) = self.renew.as_deref_mut() else {
            self.app.say(
                Tone::Warn,
                "/new is not available here; start ansa again for a new session",
            );
            return None;
        };
        if self.commands.send(ToRuntime::InputClosed).is_err() {
            return Some(End::RuntimeStopped);
        }
        let mut held = Vec::new();
        let give_up = Instant::now() + STOP_WAIT;
        loop {
            match self
                .rx
                .recv_timeout(give_up.saturating_duration_since(Instant::now()))
            {
                Ok(Input::RuntimeClosed) => break,
                // The closing session's last events: nothing of them is shown any more.
                Ok(Input::Runtime(_)) => {}
                Ok(Input::Signal) => return Some(End::Exit(EXIT_SIGNALLED)),
                Ok(input) => held.push(input),
                Err(_) => {
                    return Some(End::Failed(UiError::stopped(
                        "too slowly after /new closed its input (30 s)",
                    )));
                }
            }
        }
        let previous = self.app.session_hint.clone();
        let (renewed, failure) = match renew.renew() {
            Ok(renewed) => (renewed, None),
            Err(RenewError {
                reason,
                restored: Some(restored),
            }) => (*restored, Some(reason)),
            Err(RenewError {
                reason,
                restored: None,
            }) => {
                return Some(End::Failed(UiError::stopped(format!(
                    "after /new: no session could be opened: {reason}"
                ))));
            }
        };
        if let Some(end) = self.adopt(renewed, &previous, failure) {
            return Some(end);
        }
        for input in held {
            if let Some(end) = self.apply(input) {
                return Some(end);
            }
        }
        None
    }

    /// Continues on `renewed`: a fresh state under a new header, saying which session is
    /// active now.
    fn adopt(&mut self, renewed: Renewed, previous: &str, failure: Option<String>) -> Option<End> {
        let Renewed { link, info } = renewed;
        let SessionLink { commands, events } = link;
        if let Err(e) = spawn_runtime(events, self.tx.clone()) {
            return Some(End::Failed(UiError::io("starting the event thread")(e)));
        }
        self.commands = commands;
        let prompts = info.prompts.clone();
        let mut app = new_app(info);
        app.set_prompts(&prompts);
        app.resize(self.app.width, self.app.height);
        // The same command `/status` and the exit line give: an offline session reopened
        // without `--offline` is refused for want of credentials.
        let reopen = match self.app.cursor.as_ref() {
            Some(cursor) => crate::status::reopen_command(cursor.context().session, Some(previous)),
            None => format!("ansa --session {previous}"),
        };
        let line = match failure {
            None => Notice::new(
                Tone::Info,
                format!(
                    "new session {} is active · the previous one is closed (reopen it with \
                     {reopen})",
                    app.session_hint
                ),
            ),
            Some(reason) => Notice::new(
                Tone::Error,
                format!(
                    "/new could not start a session: {reason} · session {} is open again",
                    app.session_hint
                ),
            ),
        };
        app.commit(Entry::Notice(line));
        // What the old state committed but was not drawn yet still goes first.
        let mut commits = self.app.take_commits();
        commits.append(&mut app.commits);
        app.commits = commits;
        self.app = app;
        None
    }

    fn frame(&mut self, guard: &TerminalGuard) -> io::Result<()> {
        // A terminal that reflows on resize has already moved its rows when the resize event
        // is still on its way: drawing at the old size then lands on the wrong rows (and
        // leaves ghost lines), so the size is checked before every frame.
        if let Ok(size) = crossterm::terminal::size()
            && size != self.term.size()
        {
            self.resize = Some(size);
        }
        if let Some(size) = self.resize.take() {
            // Every frame leaves the terminal's cursor at the region's top-left corner.
            let cursor = crossterm::cursor::position().ok();
            self.term.resize(size, cursor);
            self.app.resize(size.0, size.1);
        }
        self.app.now = Instant::now();
        render(&mut self.term, &mut self.app)?;
        guard.set_live_top(self.term.top());
        Ok(())
    }

    fn run(&mut self, guard: &TerminalGuard) -> End {
        let mut last_frame = Instant::now();
        loop {
            let wait = if self.app.busy() {
                TICK
            } else {
                Duration::from_secs(3600)
            };
            let first = match self.rx.recv_timeout(wait) {
                Ok(input) => Some(input),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return End::RuntimeStopped,
            };
            self.app.now = Instant::now();
            if let Some(input) = first
                && let Some(end) = self.apply(input)
            {
                return end;
            }
            // What the state asks for by time (a viewer following a running command).
            let due = self.app.on_tick();
            if let Some(end) = self.send(due) {
                return end;
            }
            // Coalesce what arrives within one frame time.
            let deadline = last_frame + FRAME;
            loop {
                let now = Instant::now();
                let next = if now < deadline {
                    self.rx.recv_timeout(deadline - now).ok()
                } else {
                    self.rx.try_recv().ok()
                };
                let Some(input) = next else { break };
                self.app.now = Instant::now();
                if let Some(end) = self.apply(input) {
                    return end;
                }
            }
            if let Err(e) = self.frame(guard) {
                return End::Failed(UiError::io("drawing the terminal")(e));
            }
            last_frame = Instant::now();
        }
    }
}

/// Runs the Carbon TUI on the process's terminal until the user leaves (see the module docs
/// of [`super`]).
pub(crate) fn run(
    link: SessionLink,
    info: TuiInfo,
    renew: Option<&mut dyn Renew>,
) -> Result<TuiExit, UiError> {
    let SessionLink { commands, events } = link;
    let (tx, rx) = mpsc::channel();
    spawn_runtime(events, tx.clone()).map_err(UiError::io("starting the event thread"))?;
    let after = Arc::new(AtomicBool::new(false));
    watch_signals(tx.clone(), &after).map_err(UiError::io("watching signals"))?;
    let guard = TerminalGuard::enter().map_err(UiError::io("entering raw mode"))?;
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let cursor = crossterm::cursor::position().ok();
    let stop = Arc::new(AtomicBool::new(false));
    let (input, started) = match spawn_input(tx.clone(), Arc::clone(&stop)) {
        Ok(handle) => (Some(handle), Ok(())),
        Err(e) => (None, Err(UiError::io("starting the input thread")(e))),
    };
    let prompts = info.prompts.clone();
    let mut app = new_app(info);
    app.resize(size.0, size.1);
    let mut main = Loop {
        app,
        term: InlineTerminal::new(Frames::default(), size, cursor),
        commands,
        rx,
        tx,
        resize: None,
        renew,
    };
    let end = match started {
        Ok(()) => match main.frame(&guard) {
            Ok(()) => {
                if let Some(renew) = main.renew.as_deref_mut() {
                    renew.first_frame_drawn();
                }
                // After the first frame: the files are small but the user's to fill.
                main.app.set_prompts(&prompts);
                main.run(&guard)
            }
            Err(e) => End::Failed(UiError::io("drawing the terminal")(e)),
        },
        Err(e) => End::Failed(e),
    };
    // Dialog committed on the way out (a last notice) still goes into scrollback.
    let width = main.term.width();
    let commits = main.app.take_commits();
    let lines: Vec<_> = commits
        .iter()
        .flat_map(|entry| view::entry_lines(&main.app, entry, width))
        .collect();
    let _ = main.term.insert(&lines);
    let _ = main.term.clear();
    guard.set_live_top(main.term.top());
    let _ = main.commands.send(ToRuntime::InputClosed);
    // The input thread stops at its next poll; it is not joined, because after a hangup
    // it can be stuck inside a read of the dead terminal, and the process ends soon anyway.
    stop.store(true, Ordering::SeqCst);
    drop(input);
    drop(guard);
    after.store(true, Ordering::SeqCst);
    // The session hint is a path the user gave, printed after the TUI's own screen is gone.
    eprintln!("{}", exact(&view::continue_line(&main.app)));
    match end {
        End::Exit(code) => Ok(TuiExit { code }),
        End::RuntimeStopped if main.app.cursor.is_none() => {
            Err(UiError::stopped("before sending its first snapshot"))
        }
        End::RuntimeStopped => Err(UiError::stopped("while the TUI was open")),
        End::Failed(e) => Err(e),
    }
}
