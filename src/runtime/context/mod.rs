//! The exact saved context of a session, rebuilt from the journal and extended as it grows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use ansa_sessions::{OpaqueJson, Record, RequestId, Seq};

use crate::provider::{ContextItem, ToolCall};

/// Why a journal could not be turned back into a context.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// A provider item or tool output is not what this runtime writes.
    #[error("journal record {seq}: {what} cannot be replayed: {reason}")]
    Undecodable {
        /// The record.
        seq: Seq,
        /// What kind of record.
        what: &'static str,
        /// The decoder's explanation.
        reason: String,
    },
}

/// A tool call of a turn that has no outcome yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCall {
    /// The call as admitted.
    pub call: ToolCall,
    /// An intent was journaled: it may have run.
    pub intent: bool,
}

/// The context plus what the runtime needs to continue from the journal.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Items of the current context epoch, oldest first.
    pub items: Vec<ContextItem>,
    /// Index the next generation gets (counting across Resume and restarts).
    pub next_generation: u64,
    /// Current context epoch.
    pub epoch: u64,
    /// Turns whose user message is in the context.
    pub started: BTreeSet<RequestId>,
    /// Calls without outcome, per turn, in call order.
    pub pending: BTreeMap<RequestId, Vec<PendingCall>>,
    /// Nested instruction scopes already delivered.
    pub delivered: Vec<PathBuf>,
    /// Completed turns in the current epoch (compaction waits for three).
    pub completed_in_epoch: u64,
    /// Tool outputs of the session that compaction removed from `items`.
    pub compacted_outputs: u64,
}

impl Replayed {
    /// Records that `generation` produced its items: the next generation is the one after it.
    /// The only place the worker moves the counter.
    pub fn generated(&mut self, generation: u64) {
        self.next_generation = generation + 1;
    }
}

/// Tool outputs among `items`.
pub fn count_outputs(items: &[ContextItem]) -> u64 {
    items
        .iter()
        .filter(|i| matches!(i, ContextItem::ToolOutput { .. }))
        .count() as u64
}

/// Encodes a context item for a `provider_item` record.
pub fn encode_item(item: &ContextItem) -> Result<OpaqueJson, serde_json::Error> {
    OpaqueJson::from_text(item.to_json()?)
}

/// Encodes a tool output (a JSON string) for a `tool_outcome` record.
pub fn encode_output(output: &str) -> Result<OpaqueJson, serde_json::Error> {
    OpaqueJson::from_text(serde_json::Value::String(output.to_owned()).to_string())
}

/// Rebuilds the context from every verified record.
pub fn replay(records: &[(Seq, Record)]) -> Result<Replayed, ContextError> {
    let mut r = Replayed::default();
    let mut epoch_turns: BTreeSet<RequestId> = BTreeSet::new();
    for (seq, record) in records {
        match record {
            Record::ProviderItem(p) => {
                let item = ContextItem::from_json(p.item.get()).map_err(|e| {
                    ContextError::Undecodable {
                        seq: *seq,
                        what: "provider item",
                        reason: e.to_string(),
                    }
                })?;
                match &item {
                    ContextItem::User { .. } => {
                        r.started.insert(p.request_id);
                    }
                    ContextItem::ToolCall(call) => {
                        r.pending
                            .entry(p.request_id)
                            .or_default()
                            .push(PendingCall {
                                call: call.clone(),
                                intent: false,
                            });
                    }
                    _ => {}
                }
                if !matches!(
                    item,
                    ContextItem::User { .. } | ContextItem::Environment { .. }
                ) {
                    r.next_generation = r.next_generation.max(p.generation + 1);
                }
                r.items.push(item);
            }
            Record::ToolIntent(i) => {
                if let Some(calls) = r.pending.get_mut(&i.request_id)
                    && let Some(c) = calls.iter_mut().find(|c| c.call.call_id == i.call_id.0)
                {
                    c.intent = true;
                }
            }
            Record::ToolOutcome(o) => {
                let output: String = serde_json::from_str(o.output.get()).map_err(|e| {
                    ContextError::Undecodable {
                        seq: *seq,
                        what: "tool output",
                        reason: e.to_string(),
                    }
                })?;
                if let Some(calls) = r.pending.get_mut(&o.request_id) {
                    calls.retain(|c| c.call.call_id != o.call_id.0);
                }
                r.delivered.extend(o.instructions.iter().map(PathBuf::from));
                r.items.push(ContextItem::ToolOutput {
                    call_id: o.call_id.0.clone(),
                    output,
                });
            }
            Record::ContextEpoch(e) => {
                r.epoch = e.epoch;
                if let Some(c) = &e.compaction {
                    let before = r.compacted_outputs + count_outputs(&r.items);
                    r.items.clear();
                    for (n, item) in c.items.iter().enumerate() {
                        // Native provider items are kept verbatim, like in provider items.
                        let item = ContextItem::from_json(item.get()).map_err(|err| {
                            ContextError::Undecodable {
                                seq: *seq,
                                what: "compaction item",
                                reason: format!("item {n}: {err}"),
                            }
                        })?;
                        r.items.push(item);
                    }
                    r.compacted_outputs = before - count_outputs(&r.items).min(before);
                    epoch_turns.clear();
                    r.completed_in_epoch = 0;
                }
            }
            Record::Done(d) if epoch_turns.insert(d.request_id) => r.completed_in_epoch += 1,
            _ => {}
        }
    }
    r.pending.retain(|_, calls| !calls.is_empty());
    Ok(r)
}

/// Bytes of the context as JSON: what compaction budgets.
pub fn context_bytes(items: &[ContextItem]) -> u64 {
    items
        .iter()
        .map(|i| i.to_json().map_or(0, |s| s.len() as u64 + 1))
        .sum()
}

#[cfg(test)]
mod tests;
