//! Plain-text status lines for stderr (no colour, so NO_COLOR and TERM=dumb are always
//! respected).

use std::io::Write;

use ansa_sessions::protocol::ToolPhase;
use ansa_sessions::{Profile, TurnState};

use crate::follow::{Progress, TaskEnd};

/// Writes one status line in a single write (so lines from other writers of the same
/// stream do not split it); stderr failures must not stop the task, so they are ignored.
pub(crate) fn say(status: &mut dyn Write, line: &str) {
    let mut buf = String::with_capacity(line.len() + 1);
    buf.push_str(line);
    buf.push('\n');
    let _ = status.write_all(buf.as_bytes());
    let _ = status.flush();
}

/// The status line for a progress report, if it deserves one.
pub(crate) fn progress_line(progress: Progress<'_>) -> Option<String> {
    match progress {
        Progress::Accepted(_) => None,
        Progress::Tool { tool, phase } => Some(match phase {
            ToolPhase::Started => format!("  · {tool} started"),
            ToolPhase::Finished => format!("  ✓ {tool}"),
            ToolPhase::Failed => format!("  ✗ {tool} failed"),
            ToolPhase::EffectUnknown => {
                format!("  ? {tool}: effect unknown (it may or may not have run)")
            }
        }),
        Progress::Notice(message) => Some(format!("ansa: {message}")),
    }
}

/// The command that reopens this session.
pub(crate) fn reopen_command(profile: Profile, session: Option<&str>) -> String {
    let offline = if profile == Profile::Offline {
        " --offline"
    } else {
        ""
    };
    match session {
        Some(id) => format!("ansa{offline} --session {id}"),
        None => format!("ansa{offline} --continue"),
    }
}

/// The status line for how a task ended, if it needs one.
pub(crate) fn end_line(end: &TaskEnd, reopen: &str) -> Option<String> {
    let outcome = &end.outcome;
    let reason = match &outcome.reason {
        Some(r) if !r.trim().is_empty() => format!(": {}", r.trim_end()),
        _ => String::new(),
    };
    if outcome.error.is_some() {
        return Some(format!("ansa: the task was not accepted{reason}"));
    }
    Some(match outcome.state {
        TurnState::Done if end.answer.is_none() => format!(
            "ansa: the task finished but its final answer did not reach this terminal; reopen \
             the session to read it: {reopen}"
        ),
        TurnState::Done if !end.durable => "ansa: warning: the answer was not saved (storage \
                                           failed); it will be missing when the session is \
                                           reopened"
            .to_owned(),
        TurnState::Done => return None,
        TurnState::Paused => format!(
            "ansa: task paused{reason}. It is saved; to continue, reopen the session and \
             resume it: {reopen}"
        ),
        TurnState::Cancelled => format!("ansa: task cancelled{reason}"),
        TurnState::Failed => format!("ansa: task failed{reason}. The session is kept: {reopen}"),
        TurnState::Queued | TurnState::Running => format!(
            "ansa: the task stopped in state {:?}{reason}",
            outcome.state
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::TurnOutcome;
    use ansa_sessions::RequestId;

    fn end(state: TurnState, reason: Option<&str>, answer: Option<&str>) -> TaskEnd {
        TaskEnd {
            outcome: TurnOutcome {
                state,
                reason: reason.map(str::to_owned),
                request_id: Some(RequestId(1)),
                error: None,
            },
            answer: answer.map(str::to_owned),
            durable: true,
        }
    }

    #[test]
    fn lines_are_plain_and_say_how_to_continue() {
        let reopen = reopen_command(Profile::Offline, Some("ID"));
        assert_eq!(reopen, "ansa --offline --session ID");
        assert_eq!(
            reopen_command(Profile::Live, None),
            "ansa --continue".to_owned()
        );
        assert_eq!(
            end_line(&end(TurnState::Done, None, Some("a")), &reopen),
            None
        );
        let paused = end_line(
            &end(TurnState::Paused, Some("provider down"), None),
            &reopen,
        );
        let paused = paused.unwrap();
        assert!(paused.contains("paused: provider down"), "{paused}");
        assert!(paused.contains("ansa --offline --session ID"), "{paused}");
        for line in [
            paused,
            progress_line(Progress::Tool {
                tool: "exec",
                phase: ToolPhase::Failed,
            })
            .unwrap(),
        ] {
            assert!(!line.contains('\u{1b}'), "no escape sequences: {line:?}");
        }
    }
}
