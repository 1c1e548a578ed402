//! Paging a tool call's stored output: the text its outcome recorded (what the model was
//! given), by lines, so a frontend can show all of it without calling the tool again.

use serde::{Deserialize, Serialize};

use crate::ids::CallId;
use crate::record::Record;

/// Most lines per page.
pub const MAX_OUTPUT_LINES: u32 = 256;
/// Most bytes of line text per page (a longer single line is cut at a character boundary).
pub const MAX_OUTPUT_PAGE_BYTES: usize = 256 * 1024;

/// Which text of a call's output a page holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputView {
    /// What the model was given (the journaled outcome text, ASON for engine answers).
    #[default]
    Model,
    /// What a person reads: a command's stdout and stderr, a read's file text, a search's
    /// matches, a failure's reason; a running command's output so far. Kept by the runtime
    /// for recent calls; a call without it is answered in the model view.
    Readable,
}

impl OutputView {
    fn is_model(&self) -> bool {
        *self == OutputView::Model
    }
}

/// Which output, and which lines of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOutputQuery {
    /// The call; absent for the session's latest call with an outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<CallId>,
    /// First line wanted, from 0.
    pub offset: u64,
    /// Lines wanted, 1..=[`MAX_OUTPUT_LINES`].
    pub limit: u32,
    /// Which text; the model's when absent.
    #[serde(default, skip_serializing_if = "OutputView::is_model")]
    pub view: OutputView,
}

/// One page of a tool call's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOutputPage {
    /// The call.
    pub call_id: CallId,
    /// Its tool.
    pub tool: String,
    /// Index of the first line of `lines`.
    pub offset: u64,
    /// Lines in the whole output.
    pub total: u64,
    /// The lines, without their newlines.
    pub lines: Vec<String>,
    /// A line was cut to fit the page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Which text the lines are (the readable view falls back to the model's).
    #[serde(default, skip_serializing_if = "OutputView::is_model")]
    pub view: OutputView,
    /// The call is still running: the lines are its output so far (readable view only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub running: bool,
    /// The query that produced this page.
    pub query: ToolOutputQuery,
}

/// A call's stored output, found in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredOutput {
    /// The call.
    pub call_id: CallId,
    /// Its tool.
    pub tool: String,
    /// The outcome's text.
    pub text: String,
}

/// The stored output `query` names, from the journal's records in order.
pub fn find<'a>(
    records: impl IntoIterator<Item = &'a Record>,
    query: &ToolOutputQuery,
) -> Option<StoredOutput> {
    let mut tools: Vec<(CallId, String)> = Vec::new();
    let mut found = None;
    for record in records {
        match record {
            Record::ToolIntent(i) => tools.push((i.call_id.clone(), i.tool.clone())),
            Record::ToolOutcome(o) if query.call_id.as_ref().is_none_or(|c| *c == o.call_id) => {
                let tool = tools
                    .iter()
                    .rev()
                    .find(|(c, _)| *c == o.call_id)
                    .map_or_else(String::new, |(_, t)| t.clone());
                // Outcomes hold the model's text as a JSON string; anything else is shown raw.
                let text = serde_json::from_str::<String>(o.output.get())
                    .unwrap_or_else(|_| o.output.get().to_owned());
                found = Some(StoredOutput {
                    call_id: o.call_id.clone(),
                    tool,
                    text,
                });
            }
            _ => {}
        }
    }
    found
}

/// The page `query` asks for of `output`.
pub fn page(output: &StoredOutput, query: ToolOutputQuery) -> ToolOutputPage {
    let all: Vec<&str> = output.text.lines().collect();
    let total = all.len() as u64;
    let start = usize::try_from(query.offset.min(total)).unwrap_or(all.len());
    let mut lines = Vec::new();
    let mut bytes = 0;
    let mut truncated = false;
    for line in all.iter().skip(start).take(query.limit as usize) {
        let room = MAX_OUTPUT_PAGE_BYTES.saturating_sub(bytes);
        if line.len() > room {
            if lines.is_empty() {
                let mut at = room;
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                lines.push(line[..at].to_owned());
                truncated = true;
            }
            break;
        }
        bytes += line.len();
        lines.push((*line).to_owned());
    }
    ToolOutputPage {
        call_id: output.call_id.clone(),
        tool: output.tool.clone(),
        offset: start as u64,
        total,
        lines,
        truncated,
        view: OutputView::Model,
        running: false,
        query,
    }
}
