//! Plain-text status lines for stderr (no colour, so NO_COLOR and TERM=dumb are always
//! respected). Every line is shown [`exact`]: whatever part of it came from a model, a tool,
//! a file or a server, its control characters are visible and one line stays one line.

use std::io::Write;

use ansa_sessions::protocol::{ReportTone, ToolPhase};
use ansa_sessions::{Profile, TurnState};

use crate::follow::{Progress, TaskEnd};
use crate::sanitize::exact;

/// Writes one status line, sanitised ([`exact`]), in a single write (so lines from other
/// writers of the same stream do not split it); stderr failures must not stop the task, so
/// they are ignored.
pub(crate) fn say(status: &mut dyn Write, line: &str) {
    let line = exact(line);
    let mut buf = String::with_capacity(line.len() + 1);
    buf.push_str(&line);
    buf.push('\n');
    let _ = status.write_all(buf.as_bytes());
    let _ = status.flush();
}

/// The status line for a progress report, if it deserves one.
pub(crate) fn progress_line(progress: Progress<'_>) -> Option<String> {
    match progress {
        Progress::Accepted(_) => None,
        Progress::Tool {
            tool,
            phase,
            report,
        } => Some(match phase {
            ToolPhase::Started => format!("  · {tool} started"),
            // A call can finish with the engine's refusal or a failing command: say so.
            ToolPhase::Finished => match report.map(|r| (r.tone, r.summary.trim())) {
                Some((ReportTone::Error, reason)) if !reason.is_empty() => {
                    format!("  ✗ {tool}: {reason}")
                }
                Some((ReportTone::Warn, what)) if !what.is_empty() => format!("  ! {tool}: {what}"),
                _ => format!("  ✓ {tool}"),
            },
            // The reason is bounded where the report is made (`ToolReport::failed`).
            ToolPhase::Failed => match report.map(|r| r.summary.trim()) {
                Some(reason) if !reason.is_empty() => format!("  ✗ {tool} failed: {reason}"),
                _ => format!("  ✗ {tool} failed"),
            },
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
                report: None,
            })
            .unwrap(),
        ] {
            assert!(!line.contains('\u{1b}'), "no escape sequences: {line:?}");
        }
    }

    #[test]
    fn a_status_line_shows_every_control_and_stays_one_line() {
        let mut out = Vec::new();
        say(
            &mut out,
            "ansa: approve? run true; #\x1b[2K\x1b[1A\nansa: approve? run echo hello",
        );
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "ansa: approve? run true; #␛[2K␛[1A␊ansa: approve? run echo hello\n"
        );
    }

    #[test]
    fn a_failed_tool_says_why() {
        let report = ansa_sessions::protocol::ToolReport::failed("program `nope` not found");
        let line = progress_line(Progress::Tool {
            tool: "exec",
            phase: ToolPhase::Failed,
            report: Some(&report),
        });
        assert_eq!(
            line.as_deref(),
            Some("  ✗ exec failed: program `nope` not found")
        );
        let finished = |tone, summary: &str| {
            let report = ansa_sessions::protocol::ToolReport::new(tone, summary);
            progress_line(Progress::Tool {
                tool: "exec",
                phase: ToolPhase::Finished,
                report: Some(&report),
            })
        };
        assert_eq!(
            finished(
                ReportTone::Error,
                "failed to start: program or cwd not found"
            )
            .as_deref(),
            Some("  ✗ exec: failed to start: program or cwd not found")
        );
        assert_eq!(
            finished(ReportTone::Warn, "exit 2").as_deref(),
            Some("  ! exec: exit 2")
        );
        assert_eq!(
            finished(ReportTone::Ok, "exit 0").as_deref(),
            Some("  ✓ exec")
        );
    }
}
