//! Line mode (no TTY): every non-empty input line is one task, answered in order.

use std::io::{BufRead, ErrorKind, Write};

use ansa_sessions::protocol::MAX_COMMAND_BYTES;
use ansa_sessions::{Mode, TurnState};

use crate::SessionLink;
use crate::error::UiError;
use crate::follow::{Follower, Progress};
use crate::line_reader::{LineContent, LineReader, not_utf8_message};
use crate::outcome::{EXIT_SESSION_UNUSABLE, LinesOutcome};
use crate::sanitize::flowing;
use crate::status::{end_line, progress_line, reopen_command, say};

/// Runs line mode: reads tasks from `input` one line at a time (blank lines are skipped),
/// submits each in `mode`, waits for its turn to end and prints the final answer to
/// `output` (sanitised with [`flowing`]), with a blank line between answers. Compact progress (one line per tool call)
/// and problems go to `status` as plain text (never colour).
///
/// A paused turn stops the run (it waits for an explicit resume; the message names
/// `ansa --session <session_hint>`, or `ansa --continue` without a hint), and so does a
/// submit refused because the session is unusable; a failed or cancelled task does not.
/// Lines over 1 MiB or not UTF-8 are reported and skipped. At the end of input the runtime
/// is told input closed and the call returns once it has stopped. When `output` is a
/// closed pipe the run stops quietly.
pub fn run_lines(
    link: SessionLink,
    input: impl BufRead,
    mut output: impl Write,
    mut status: impl Write,
    mode: Mode,
    session_hint: Option<String>,
) -> Result<LinesOutcome, UiError> {
    let status: &mut dyn Write = &mut status;
    let (mut follower, opening) = Follower::start(link, "line")?;
    if let Some(reason) = &opening.read_only_reason {
        say(
            status,
            &format!("ansa: this session is read-only: {reason}"),
        );
    }
    let reopen = reopen_command(follower.profile(), session_hint.as_deref());
    let mut reader = LineReader::new(input, MAX_COMMAND_BYTES);
    let mut outcome = LinesOutcome::default();
    let mut answers = 0u64;
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                finish(follower, status);
                return Err(UiError::io("reading tasks from the input")(e));
            }
        };
        let text = match line.content {
            LineContent::Text(text) if text.trim().is_empty() => continue,
            LineContent::Text(text) => text,
            LineContent::TooLong(len) => {
                let msg = format!(
                    "ansa: input line {}: the task is {len} bytes long; at most \
                     {MAX_COMMAND_BYTES} bytes per line are accepted; skipped",
                    line.number
                );
                say(status, &msg);
                outcome.unfinished += 1;
                continue;
            }
            LineContent::NotUtf8(offset) => {
                let msg = format!(
                    "ansa: input line {}: {}; skipped",
                    line.number,
                    not_utf8_message(offset)
                );
                say(status, &msg);
                outcome.unfinished += 1;
                continue;
            }
        };
        outcome.tasks += 1;
        // Ask mode reads the answer to an approval from the same input as the tasks.
        let end = {
            let shared = std::cell::RefCell::new(&mut *status);
            let mut read = || {
                reader.next_line().map(|l| {
                    l.map(|l| match l.content {
                        LineContent::Text(t) => t,
                        _ => String::new(),
                    })
                })
            };
            follower.run_task(
                &text,
                mode,
                &mut |p| report(*shared.borrow_mut(), p),
                &mut |request| crate::ask::ask(*shared.borrow_mut(), &mut read, request),
            )?
        };
        if let Some(msg) = end_line(&end, &reopen) {
            say(status, &msg);
        }
        let done = end.outcome.state == TurnState::Done && end.outcome.error.is_none();
        if !done {
            outcome.unfinished += 1;
        }
        let stop = end.outcome.state == TurnState::Paused
            || end.outcome.exit_code() == EXIT_SESSION_UNUSABLE;
        let printed = match &end.answer {
            Some(answer) if done => print_answer(&mut output, answer, answers > 0),
            _ => Ok(true),
        };
        outcome.last = Some(end.outcome.clone());
        match printed {
            Ok(true) => answers += u64::from(done && end.answer.is_some()),
            Ok(false) => break,
            Err(e) => {
                finish(follower, status);
                return Err(e);
            }
        }
        if stop {
            say(
                status,
                "ansa: stopped reading input; later lines were not run",
            );
            break;
        }
    }
    finish(follower, status);
    Ok(outcome)
}

fn report(status: &mut dyn Write, progress: Progress<'_>) {
    if let Some(line) = progress_line(progress) {
        say(status, &line);
    }
}

fn finish(follower: Follower, status: &mut dyn Write) {
    follower.finish(&mut |p| report(status, p));
}

/// Prints one answer, sanitised ([`flowing`]); `Ok(false)` when the output pipe is closed.
fn print_answer(output: &mut impl Write, answer: &str, separate: bool) -> Result<bool, UiError> {
    let answer = flowing(answer);
    let result = (|| {
        if separate {
            output.write_all(b"\n")?;
        }
        output.write_all(answer.as_bytes())?;
        if !answer.ends_with('\n') {
            output.write_all(b"\n")?;
        }
        output.flush()
    })();
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(UiError::io("writing the answer to the output")(e)),
    }
}
