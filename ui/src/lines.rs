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
    // The turn `/resume` and `/cancel` act on: paused at the start or by a task of this run.
    let mut paused = opening
        .request_id
        .filter(|_| opening.state == Some(TurnState::Paused) && opening.resume_available);
    // Whether that paused turn is a task of this run (and so already counted unfinished).
    let mut paused_here = false;
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
        let command = LineCommand::parse(&text);
        if let Some(command) = command {
            match command {
                LineCommand::Exit => break,
                LineCommand::Status => {
                    status_line(&mut follower, status, session_hint.as_deref(), paused);
                    continue;
                }
                LineCommand::Resume | LineCommand::Cancel if paused.is_none() => {
                    say(status, "ansa: no paused task here to resume or cancel");
                    continue;
                }
                LineCommand::Resume | LineCommand::Cancel => {}
            }
        } else if paused.is_some() {
            // A later task may build on the paused one: never run it past it silently.
            say(
                status,
                "ansa: stopped reading input; later lines were not run (send /resume or /cancel first)",
            );
            break;
        }
        outcome.tasks += u64::from(command.is_none());
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
            let on = &mut |p: Progress<'_>| report(*shared.borrow_mut(), p);
            let approver = &mut |request: &ansa_sessions::protocol::ApprovalRequest| {
                crate::ask::ask(*shared.borrow_mut(), &mut read, request)
            };
            match (command, paused) {
                (Some(c), Some(target)) => {
                    follower.run_on_paused(target, c == LineCommand::Resume, on, approver)?
                }
                _ => follower.run_task(&text, mode, on, approver)?,
            }
        };
        let was_paused_here = paused_here;
        paused = end
            .outcome
            .request_id
            .filter(|_| end.outcome.state == TurnState::Paused);
        paused_here = paused.is_some() && (command.is_none() || was_paused_here);
        if let Some(msg) = end_line(&end, &reopen) {
            say(status, &msg);
        }
        let done = end.outcome.state == TurnState::Done && end.outcome.error.is_none();
        // A task of this run that paused was counted unfinished once; resuming it decides.
        match (command.is_some() && was_paused_here, done) {
            (true, true) => outcome.unfinished = outcome.unfinished.saturating_sub(1),
            (true, false) => {}
            (false, done) => outcome.unfinished += u64::from(!done),
        }
        if paused.is_some() {
            say(
                status,
                "ansa: send /resume to continue it here or /cancel to drop it",
            );
        }
        let stop = end.outcome.exit_code() == EXIT_SESSION_UNUSABLE;
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

/// The TUI's commands that line mode understands instead of sending them as tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineCommand {
    Resume,
    Cancel,
    Status,
    Exit,
}

impl LineCommand {
    /// The command a whole line is (surrounding blanks aside), if any.
    fn parse(line: &str) -> Option<Self> {
        match line.trim() {
            "/resume" => Some(LineCommand::Resume),
            "/cancel" => Some(LineCommand::Cancel),
            "/status" => Some(LineCommand::Status),
            "/exit" => Some(LineCommand::Exit),
            _ => None,
        }
    }
}

/// `/status`: the session, its latest turn and the tokens used, from a fresh snapshot.
fn status_line(
    follower: &mut Follower,
    status: &mut dyn Write,
    hint: Option<&str>,
    paused: Option<ansa_sessions::RequestId>,
) {
    let snapshot = match follower.snapshot() {
        Ok(s) => s,
        Err(e) => {
            say(status, &format!("ansa: /status: {e}"));
            return;
        }
    };
    let mut line = format!(
        "ansa: session {} ({})",
        hint.unwrap_or("(unnamed)"),
        snapshot.session.as_str()
    );
    match (snapshot.request_id, snapshot.state) {
        (Some(r), Some(state)) => line.push_str(&format!("; turn {r} {}", state_name(state))),
        _ => line.push_str("; no task yet"),
    }
    if let Some(reason) = snapshot.read_only_reason.as_deref() {
        line.push_str(&format!("; read-only: {reason}"));
    }
    if let Some(usage) = &snapshot.usage {
        line.push_str(&format!(
            "; {} input and {} output tokens",
            usage.input_tokens, usage.output_tokens
        ));
    }
    if paused.is_some() {
        line.push_str("; /resume continues the paused task");
    }
    say(status, &line);
}

fn state_name(state: TurnState) -> &'static str {
    match state {
        TurnState::Queued => "queued",
        TurnState::Running => "running",
        TurnState::Paused => "paused",
        TurnState::Done => "done",
        TurnState::Cancelled => "cancelled",
        TurnState::Failed => "failed",
    }
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
