//! The JSONL driver (docs/contract/agent-behaviour.md §7): commands on input, events on output, one JSON per line.

use std::borrow::Cow;
use std::io::{BufRead, ErrorKind, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use ansa_sessions::protocol::{
    CommandError, Event, EventBody, MAX_COMMAND_BYTES, ProtocolContext, parse_command,
};

use crate::error::UiError;
use crate::follow::{context, event_type};
use crate::line_reader::{LineContent, LineReader, not_utf8_message};
use crate::sanitize::json_line;
use crate::status::say;
use crate::{CommandSender, SessionLink, ToRuntime};

/// Runs the JSONL driver until the runtime stops.
///
/// Waits for the first event (a `snapshot`), writes it and every later event to `output`
/// as one JSON line each, flushing after every line. A reader thread parses each non-blank
/// `input` line with [`parse_command`] against the snapshot's session and incarnation and
/// sends it to the runtime; a line that does not parse (including lines over 1 MiB, which
/// are skipped without being buffered, and lines that are not UTF-8) is reported to
/// `errors` as `ansa: input line N: <error>` and sent as [`ToRuntime::Rejected`]. End of
/// input sends [`ToRuntime::InputClosed`].
///
/// Returns `Ok` when the event stream ends after input closed. When `output` is a closed
/// pipe, input is closed, the remaining events are discarded until the runtime stops, and
/// the call returns `Ok`. A runtime that stops while input is still open, a failed read of
/// `input` and other write failures are errors.
pub fn run_jsonl(
    link: SessionLink,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
    errors: impl Write + Send + 'static,
) -> Result<(), UiError> {
    let SessionLink { commands, events } = link;
    let Ok(first) = events.recv() else {
        let _ = commands.send(ToRuntime::InputClosed);
        return Err(UiError::stopped("before sending its first snapshot"));
    };
    let ctx = match &first.body {
        EventBody::Snapshot(s) => context(s),
        other => {
            let _ = commands.send(ToRuntime::InputClosed);
            return Err(UiError::Protocol(format!(
                "the first event must be a snapshot, got {}",
                event_type(other)
            )));
        }
    };
    let gate = Arc::new(Gate(Mutex::new(Some(commands))));
    // The snapshot goes out before any command is read, so clients can take the context.
    let mut written = write_event(&mut output, &first);
    let reader = if matches!(written, Ok(true)) {
        let shared = Arc::clone(&gate);
        let spawned = thread::Builder::new()
            .name("ansa-jsonl-input".into())
            .spawn(move || read_commands(input, errors, &ctx, &shared));
        match spawned {
            Ok(handle) => Some(handle),
            Err(e) => {
                gate.close();
                return Err(UiError::io("starting the input reader thread")(e));
            }
        }
    } else {
        None
    };
    while matches!(written, Ok(true)) {
        match events.recv() {
            Ok(event) => written = write_event(&mut output, &event),
            Err(_) => {
                // The stream ended. The runtime only stops by itself after input closed.
                if gate.is_open() {
                    gate.close_silently();
                    return Err(UiError::stopped("while input was still open"));
                }
                // The reader closed input and returns right after; collect its result.
                return match reader.map(thread::JoinHandle::join) {
                    Some(Ok(result)) => result,
                    Some(Err(_)) => Err(UiError::Protocol("the input reader panicked".into())),
                    None => Ok(()),
                };
            }
        }
    }
    gate.close();
    written?;
    // The output pipe is closed: let the runtime finish the accepted work, then stop.
    while events.recv().is_ok() {}
    Ok(())
}

/// Writes one event line and flushes; `Ok(false)` when the output pipe is closed.
fn write_event(output: &mut impl Write, event: &Event) -> Result<bool, UiError> {
    let json = event.to_json().map_err(|source| UiError::Encode {
        stream_sequence: event.stream_sequence,
        source,
    })?;
    // The same value, with no raw character a terminal could act on (no copy when clean).
    let escaped = match json_line(&json) {
        Cow::Owned(escaped) => Some(escaped),
        Cow::Borrowed(_) => None,
    };
    let mut line = escaped.unwrap_or(json);
    line.push('\n');
    match output
        .write_all(line.as_bytes())
        .and_then(|()| output.flush())
    {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(UiError::io("writing events to the output")(e)),
    }
}

/// The command sender, shared by the reader thread and the event loop; once closed (after
/// exactly one `InputClosed`) nothing more is sent.
struct Gate(Mutex<Option<CommandSender>>);

impl Gate {
    /// Sends `message`; false when input is closed or the runtime no longer listens.
    fn send(&self, message: ToRuntime) -> bool {
        let guard = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        guard.as_ref().is_some_and(|tx| tx.send(message).is_ok())
    }

    /// Sends `InputClosed` unless input is already closed.
    fn close(&self) {
        let mut guard = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tx) = guard.take() {
            let _ = tx.send(ToRuntime::InputClosed);
        }
    }

    /// Drops the sender without a message (the runtime is gone).
    fn close_silently(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn is_open(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }
}

/// The reader thread: parses command lines and forwards them until end of input.
fn read_commands(
    input: impl BufRead,
    mut errors: impl Write,
    ctx: &ProtocolContext,
    gate: &Gate,
) -> Result<(), UiError> {
    let mut reader = LineReader::new(input, MAX_COMMAND_BYTES);
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => {
                gate.close();
                return Ok(());
            }
            Err(e) => {
                gate.close();
                return Err(UiError::io("reading commands from the input")(e));
            }
        };
        let parsed = match line.content {
            LineContent::Text(text) if text.trim().is_empty() => continue,
            LineContent::Text(text) => parse_command(&text, ctx).map_err(|e| e.to_string()),
            LineContent::TooLong(len) => Err(CommandError::TooLong(len).to_string()),
            LineContent::NotUtf8(offset) => Err(not_utf8_message(offset)),
        };
        let message = match parsed {
            Ok(command) => ToRuntime::Command(command),
            Err(message) => {
                say(
                    &mut errors,
                    &format!("ansa: input line {}: {message}", line.number),
                );
                ToRuntime::Rejected {
                    line: line.number,
                    message,
                }
            }
        };
        if !gate.send(message) {
            return Ok(());
        }
    }
}
