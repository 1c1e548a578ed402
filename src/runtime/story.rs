//! The `story` command: what each turn did between its prompt and its answer, projected from
//! the journal's records (the model's commentary from its provider items, one row per tool
//! call from its intent and outcome) so a reopened session's frontend shows the turns as they
//! looked live. Reasoning and previews are not journaled as text and never appear.

use std::collections::{BTreeMap, HashMap};

use ansa_sessions::protocol::{
    MAX_STORY_STEPS, ReportTone, StoryPage, StoryStep, ToolPhase, ToolReport, TurnStory,
};
use ansa_sessions::{
    CallId, Record, RequestId, Seq, SessionState, ToolOutcomeStatus, TranscriptPage,
};

use crate::provider::ContextItem;

/// Every turn's steps, built once from the records and reused while the journal has not grown.
#[derive(Debug, Default)]
pub struct StoryIndex {
    /// Records the index was built from (the session's count then).
    pub records: u64,
    turns: HashMap<RequestId, Steps>,
}

#[derive(Debug, Default)]
struct Steps {
    steps: Vec<StoryStep>,
    omitted: u64,
}

impl Steps {
    fn push(&mut self, step: StoryStep) {
        if self.steps.len() < MAX_STORY_STEPS {
            self.steps.push(step);
        } else {
            self.omitted += 1;
        }
    }

    /// The latest row of `call`, to be completed by its outcome.
    fn tool_mut(&mut self, call: &CallId) -> Option<&mut StoryStep> {
        self.steps
            .iter_mut()
            .rev()
            .find(|s| matches!(s, StoryStep::Tool { call_id, .. } if call_id == call))
    }
}

/// Text of a provider-native assistant message (Responses `message` items and Chat assistant
/// messages); other native items (reasoning, function calls) have none.
fn native_text(json: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    if value.get("role").and_then(|r| r.as_str()) != Some("assistant") {
        return None;
    }
    let text = match value.get("content")? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(|t| t.as_str()) == Some("output_text"))
            .filter_map(|p| p.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join(""),
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// A row for an outcome journaled without its report (older journals, crash recovery).
fn fallback_report(status: ToolOutcomeStatus, output: &str) -> ToolReport {
    match status {
        ToolOutcomeStatus::Ok => ToolReport::new(ReportTone::Ok, "done"),
        ToolOutcomeStatus::Error => ToolReport::failed(output),
        ToolOutcomeStatus::Cancelled => ToolReport::new(ReportTone::Warn, "cancelled"),
        ToolOutcomeStatus::TimedOut => ToolReport::new(ReportTone::Warn, "timed out"),
        ToolOutcomeStatus::EffectUnknown => ToolReport::new(
            ReportTone::Error,
            "effect unknown: the process ended while it ran; it was not run again",
        ),
    }
}

impl StoryIndex {
    /// Projects every turn's steps from the journal's records, in order.
    pub fn build(records: &[(Seq, Record)]) -> StoryIndex {
        let mut turns: HashMap<RequestId, Steps> = HashMap::new();
        // Commentary of a generation waits for its first tool call (a generation without calls
        // is a final answer, which the transcript already has).
        let mut said: BTreeMap<(RequestId, u64), String> = BTreeMap::new();
        let mut names: HashMap<(RequestId, CallId), String> = HashMap::new();
        for (_, record) in records {
            match record {
                Record::ProviderItem(p) => match ContextItem::from_json(p.item.get()) {
                    Ok(ContextItem::Native(n)) => {
                        if let Some(text) = native_text(n.get()) {
                            let kept = said.entry((p.request_id, p.generation)).or_default();
                            if !kept.is_empty() {
                                kept.push_str("\n\n");
                            }
                            kept.push_str(&text);
                        }
                    }
                    Ok(ContextItem::ToolCall(call)) => {
                        if let Some(text) = said.remove(&(p.request_id, p.generation)) {
                            turns
                                .entry(p.request_id)
                                .or_default()
                                .push(StoryStep::Commentary { text });
                        }
                        names.insert(
                            (p.request_id, CallId(call.call_id.clone())),
                            call.name.clone(),
                        );
                    }
                    // An item that does not decode is the context's concern (replay reports
                    // it); the story simply has nothing to show for it.
                    _ => {}
                },
                Record::ToolIntent(i) => {
                    turns
                        .entry(i.request_id)
                        .or_default()
                        .push(StoryStep::Tool {
                            call_id: i.call_id.clone(),
                            tool: i.tool.clone(),
                            target: i.target.clone(),
                            status: ToolPhase::Started,
                            report: None,
                        })
                }
                Record::ToolOutcome(o) => {
                    let output = serde_json::from_str::<String>(o.output.get())
                        .unwrap_or_else(|_| o.output.get().to_owned());
                    let report = o
                        .report
                        .clone()
                        .unwrap_or_else(|| fallback_report(o.status, &output));
                    let steps = turns.entry(o.request_id).or_default();
                    let ran = steps.tool_mut(&o.call_id).is_some();
                    let phase = match o.status {
                        ToolOutcomeStatus::Ok => ToolPhase::Finished,
                        ToolOutcomeStatus::Cancelled if ran => ToolPhase::Finished,
                        ToolOutcomeStatus::EffectUnknown => ToolPhase::EffectUnknown,
                        _ => ToolPhase::Failed,
                    };
                    match steps.tool_mut(&o.call_id) {
                        Some(StoryStep::Tool {
                            status, report: r, ..
                        }) => {
                            *status = phase;
                            *r = Some(report);
                        }
                        _ => {
                            let tool = names
                                .get(&(o.request_id, o.call_id.clone()))
                                .cloned()
                                .unwrap_or_else(|| "tool".to_owned());
                            steps.push(StoryStep::Tool {
                                call_id: o.call_id.clone(),
                                tool,
                                target: None,
                                status: phase,
                                report: Some(report),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        StoryIndex {
            records: records.len() as u64,
            turns,
        }
    }

    /// `page` with the story of every turn that has an entry in it.
    pub fn page(&self, state: &SessionState, page: TranscriptPage) -> StoryPage {
        let mut order: Vec<RequestId> = Vec::new();
        for entry in &page.entries {
            if order.last() != Some(&entry.request_id) && !order.contains(&entry.request_id) {
                order.push(entry.request_id);
            }
        }
        let turns = order
            .into_iter()
            .filter_map(|id| {
                let turn = state.turn(id)?;
                let steps = self.turns.get(&id);
                Some(TurnStory {
                    request_id: id,
                    steps: steps.map(|s| s.steps.clone()).unwrap_or_default(),
                    state: turn.state,
                    reason: turn.reason.clone(),
                    rewound: state.is_rewound(id),
                    omitted: steps.map_or(0, |s| s.omitted),
                })
            })
            .collect();
        StoryPage { page, turns }
    }
}

#[cfg(test)]
mod tests;
