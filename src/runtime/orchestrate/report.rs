//! What the parent's `delegate` call returns: per child its state, tool count, time, final
//! answer (bounded, so all of them fit the tool-output budget) and a retained `@N` holding its
//! whole transcript, which the model reads with `evidence`.

use std::fmt::Write as _;

use ansa_sessions::child::ChildState;
use ansa_sessions::protocol::{ReportTone, ToolReport};
use ansa_sessions::{Record, Seq, ToolOutcomeStatus};

use super::ChildJob;
use super::child::ChildEnd;
use crate::provider::ContextItem;
use crate::runtime::context;
use crate::runtime::worker::Delegated;
use crate::tools::ToolExecutor;

/// Bytes one `delegate` output may take: the tool-output budget of a read-side call
/// (`READ_TOK` tokens at 4 bytes each), like any tool's output the model gets.
pub const OUTPUT_BYTES: usize = (crate::tools::READ_TOK * 4) as usize;

/// Bytes of child answers one `delegate` output carries in all (the rest of the budget is
/// for the sections' heads and reasons); what is cut is in each child's `@N`.
pub const ANSWERS_BYTES: usize = OUTPUT_BYTES - 8 * 1024;

/// Bytes of one child's reason (a pause or failure) the output carries.
const REASON_BYTES: usize = 512;

/// The call's outcome from its children's ends.
pub fn delegated(ends: &[ChildEnd], tools: &ToolExecutor, cancelled: bool) -> Delegated {
    let per_child = ANSWERS_BYTES / ends.len().max(1);
    let count = |s: ChildState| ends.iter().filter(|e| e.progress.state == s).count();
    let (done, failed) = (count(ChildState::Done), count(ChildState::Failed));
    let mut text = format!(
        "delegate: {} child{} ended: {done} done, {failed} failed, {} cancelled.\n",
        ends.len(),
        if ends.len() == 1 { "" } else { "ren" },
        count(ChildState::Cancelled),
    );
    for end in ends {
        let retained = retain(tools, &end.transcript);
        let _ = write!(
            text,
            "\n## child {} of {} ({}): {}, {} tool call{}, {:.1} s",
            end.index,
            end.of,
            end.id,
            state_name(end.progress.state),
            end.progress.tools,
            if end.progress.tools == 1 { "" } else { "s" },
            end.progress.elapsed().as_secs_f64(),
        );
        match &retained {
            Ok(alias) => {
                let _ = writeln!(text, "; whole transcript: @{alias}");
            }
            Err(why) => {
                let _ = writeln!(text, "; transcript not retained ({why})");
            }
        }
        if let Some(reason) = &end.progress.reason {
            let _ = writeln!(text, "reason: {}", bounded(reason, REASON_BYTES));
        }
        match &end.answer {
            Some(answer) => {
                text.push_str(&bounded(answer, per_child));
                text.push('\n');
            }
            None => text.push_str("(no final answer)\n"),
        }
    }
    let status = if cancelled {
        ToolOutcomeStatus::Cancelled
    } else if done == ends.len() {
        ToolOutcomeStatus::Ok
    } else {
        ToolOutcomeStatus::Error
    };
    let tone = match status {
        ToolOutcomeStatus::Ok => ReportTone::Ok,
        _ => ReportTone::Warn,
    };
    let summary = format!("{done} of {} children done", ends.len());
    Delegated::Ended {
        status,
        text,
        report: ToolReport::new(tone, summary),
    }
}

fn state_name(state: ChildState) -> &'static str {
    match state {
        ChildState::Queued => "queued",
        ChildState::Running => "running",
        ChildState::Done => "done",
        ChildState::Paused => "paused",
        ChildState::Failed => "failed",
        ChildState::Cancelled => "cancelled",
    }
}

/// Keeps the transcript in the engine's retained store; its alias is what `evidence` reads.
fn retain(tools: &ToolExecutor, transcript: &str) -> Result<u64, String> {
    tools
        .session()
        .store()
        .retain(transcript.as_bytes().to_vec())
        .map_err(|e| e.to_string())
}

/// `text` cut at a character boundary within `max` bytes, saying how much was left out.
fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max.saturating_sub(64);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n[… {} more bytes are in the child's transcript]",
        &text[..cut],
        text.len() - cut
    )
}

/// A child's whole transcript as text: its task, each call with its arguments and output,
/// runtime notes and the final answer, from its journal (the context as replayed).
pub fn transcript(job: &ChildJob, records: &[(Seq, Record)]) -> String {
    let mut out = format!("child {} of {} ({})\n", job.index, job.of, job.id);
    let items = match context::replay(records) {
        Ok(replayed) => replayed.items,
        Err(e) => return format!("{out}(the journal cannot be replayed: {e})\n"),
    };
    for item in items {
        match item {
            ContextItem::User { text } => {
                let _ = write!(out, "\n# task\n{text}\n");
            }
            ContextItem::Assistant { text } => {
                let _ = write!(out, "\n# final answer\n{text}\n");
            }
            ContextItem::ToolCall(call) => {
                let _ = write!(
                    out,
                    "\n# call {} {}\n{}\n",
                    call.call_id, call.name, call.arguments
                );
            }
            ContextItem::ToolOutput { call_id, output } => {
                let _ = write!(out, "\n# output of {call_id}\n{output}\n");
            }
            ContextItem::MalformedOutput { raw } => {
                let _ = write!(out, "\n# malformed model output\n{raw}\n");
            }
            ContextItem::Note { text } => {
                let _ = write!(out, "\n# note\n{text}\n");
            }
            ContextItem::Compaction { summary } => {
                let _ = write!(out, "\n# compacted history\n{summary}\n");
            }
            ContextItem::Environment { .. } | ContextItem::Native(_) => {}
        }
    }
    out
}
