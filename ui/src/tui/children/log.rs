//! A child's events as the lines of its transcript in the viewer: its task, each tool call
//! as it starts and ends (with its report's summary), its turn's state changes and its final
//! answer. Lines are kept raw; the viewer sanitises every line it draws.

use ansa_sessions::TurnState;
use ansa_sessions::protocol::{EventBody, ToolPhase};

use super::super::blocks::one_line;

/// The first lines of a child's log: its task, line by line.
pub(super) fn opening(task: &str) -> Vec<String> {
    let mut lines = vec!["task:".to_owned()];
    lines.extend(task.lines().map(|l| format!("  {l}")));
    lines
}

/// What one of the child's events adds to its log (most events add nothing).
pub(super) fn lines(event: &EventBody) -> Vec<String> {
    match event {
        EventBody::ToolStatus {
            tool,
            target,
            status,
            report,
            ..
        } => {
            let target = target.as_deref().map(one_line).unwrap_or_default();
            let summary = report
                .as_ref()
                .map(|r| format!(": {}", one_line(&r.summary)))
                .unwrap_or_default();
            let line = match status {
                ToolPhase::Started => format!("▸ {tool} {target}"),
                ToolPhase::Finished => format!("  ✓ {tool}{summary}"),
                ToolPhase::Failed => format!("  ✗ {tool}{summary}"),
                ToolPhase::EffectUnknown => format!("  ? {tool}: effect unknown"),
            };
            vec![line.trim_end().to_owned()]
        }
        EventBody::TurnState { state, reason, .. } => {
            let reason = reason
                .as_deref()
                .map(|r| format!(" — {}", one_line(r)))
                .unwrap_or_default();
            let state = match state {
                TurnState::Queued => "queued",
                TurnState::Running => "running",
                TurnState::Paused => "paused",
                TurnState::Done => "done",
                TurnState::Cancelled => "cancelled",
                TurnState::Failed => "failed",
            };
            vec![format!("· turn {state}{reason}")]
        }
        EventBody::TextDelta { text, .. } => {
            let mut lines = vec!["final answer:".to_owned()];
            lines.extend(text.lines().map(|l| format!("  {l}")));
            lines
        }
        EventBody::ApprovalRequired(request) => {
            vec![format!(
                "! waits for approval: {}",
                one_line(&request.summary)
            )]
        }
        EventBody::ApprovalDecided { decision, .. } => {
            vec![format!("  approval: {}", decision.as_str())]
        }
        EventBody::Retrying {
            attempt,
            of,
            reason,
            ..
        } => vec![format!(
            "· model retry {attempt} of {of}: {}",
            one_line(reason)
        )],
        EventBody::Error { message, .. } => vec![format!("· error: {}", one_line(message))],
        _ => Vec::new(),
    }
}
