//! One-shot mode (`ansa 'TASK'`): one task, only the verified final answer on stdout.

use std::io::{BufRead, ErrorKind, Write};

use ansa_sessions::{Mode, TurnState};

use crate::SessionLink;
use crate::error::UiError;
use crate::follow::{Follower, Progress};
use crate::outcome::OneShotOutcome;
use crate::sanitize::flowing;
use crate::status::{end_line, progress_line, reopen_command, say};

/// Runs one task: submits `task` in `mode`, closes input as soon as the runtime accepts it
/// (so the runtime stops after the turn), and waits until the runtime has stopped.
///
/// `output` receives only the verified final answer (the `text_delta` text sanitised with
/// [`flowing`], plus a newline when it does not end with one), and only when the turn is
/// done. Tool progress, a paused,
/// cancelled or failed turn (with its reason and how to continue), and an `error` event
/// answering the submit go to `status` as plain text. [`OneShotOutcome::exit_code`] maps
/// the result to the process exit code. The caller rejects a blank task as a usage error.
///
/// In ask mode `answers` is the terminal: each call waiting for approval is printed to
/// `status` and one answer line read from it; input then stays open until the turn ends.
/// Without it, an approval is denied (nobody can be asked).
///
/// `session` names the session (its ID, or its directory for `--session DIR`): it is said
/// first on `status` (`ansa: session ID`), and a paused or failed task's hint reopens exactly
/// it (`ansa --session ID`) rather than the directory's latest.
pub fn run_one_shot(
    link: SessionLink,
    task: &str,
    mode: Mode,
    mut output: impl Write,
    mut status: impl Write,
    mut answers: Option<&mut dyn BufRead>,
    session: Option<&str>,
) -> Result<OneShotOutcome, UiError> {
    let status: &mut dyn Write = &mut status;
    let (mut follower, _) = Follower::start(link, "oneshot")?;
    if let Some(session) = session {
        say(status, &format!("ansa: session {session}"));
    }
    let reopen = reopen_command(follower.profile(), session);
    if answers.is_none() {
        follower.close_input_after_acceptance();
    }
    let shared = std::cell::RefCell::new(&mut *status);
    let mut read = || match answers.as_mut() {
        Some(input) => {
            let mut line = String::new();
            match input.read_line(&mut line)? {
                0 => Ok(None),
                _ => Ok(Some(line)),
            }
        }
        None => Ok(None),
    };
    let ran = follower.run_task(
        task,
        mode,
        &mut |p| report(*shared.borrow_mut(), p),
        &mut |request| crate::ask::ask(*shared.borrow_mut(), &mut read, request),
    );
    let end = match ran {
        Ok(end) => end,
        Err(e) => {
            follower.close_input();
            return Err(e);
        }
    };
    if let Some(msg) = end_line(&end, &reopen) {
        say(status, &msg);
    }
    let mut outcome = end.outcome;
    if outcome.state == TurnState::Done && outcome.error.is_none() {
        match &end.answer {
            Some(answer) => {
                if let Err(e) = print_answer(&mut output, answer) {
                    follower.finish(&mut |p| report(status, p));
                    return Err(e);
                }
            }
            None => {
                // Nothing verified can be printed: report the task as not delivered.
                outcome.state = TurnState::Failed;
                outcome.reason = Some("the final answer did not reach this terminal".into());
            }
        }
    }
    follower.finish(&mut |p| report(status, p));
    Ok(outcome)
}

fn report(status: &mut dyn Write, progress: Progress<'_>) {
    if let Some(line) = progress_line(progress) {
        say(status, &line);
    }
}

/// Prints the answer, sanitised ([`flowing`]); a closed output pipe is not an error (nobody
/// is reading).
fn print_answer(output: &mut impl Write, answer: &str) -> Result<(), UiError> {
    let answer = flowing(answer);
    let result = (|| {
        output.write_all(answer.as_bytes())?;
        if !answer.ends_with('\n') {
            output.write_all(b"\n")?;
        }
        output.flush()
    })();
    match result {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(UiError::io("writing the answer to the output")(e))
        }
        _ => Ok(()),
    }
}
