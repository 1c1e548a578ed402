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

/// One context epoch as replay saw it: where it starts and its items, each with the turn it
/// came from (`None` for the environment message and compaction summaries, which belong to no
/// turn and survive every rewind).
struct Epoch {
    /// The first turn whose items may be in it (a turn before it is summarised or rewound).
    start: RequestId,
    items: Vec<(Option<RequestId>, ContextItem)>,
}

/// Rebuilds the context from every verified record.
pub fn replay(records: &[(Seq, Record)]) -> Result<Replayed, ContextError> {
    let mut r = Replayed::default();
    let mut epoch_turns: BTreeSet<RequestId> = BTreeSet::new();
    let mut done: BTreeSet<RequestId> = BTreeSet::new();
    // Earlier epochs, kept whole: a rewind may go back to before a compaction or a rewind.
    let mut history: Vec<Epoch> = Vec::new();
    let mut tags: Vec<Option<RequestId>> = Vec::new();
    let mut start = RequestId(0);
    let mut user_seq: BTreeMap<RequestId, Seq> = BTreeMap::new();
    let mut latest = RequestId(0);
    let mut outputs_seen = 0u64;
    for (seq, record) in records {
        match record {
            Record::CommandAccepted(c) => latest = latest.max(c.request_id),
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
                        user_seq.entry(p.request_id).or_insert(*seq);
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
                let tag = match item {
                    ContextItem::Environment { .. } => None,
                    _ => Some(p.request_id),
                };
                tags.push(tag);
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
                outputs_seen += 1;
                tags.push(Some(o.request_id));
                r.items.push(ContextItem::ToolOutput {
                    call_id: o.call_id.0.clone(),
                    output,
                });
            }
            Record::ContextEpoch(e) => {
                r.epoch = e.epoch;
                let items = std::mem::take(&mut r.items);
                let item_tags = std::mem::take(&mut tags);
                history.push(Epoch {
                    start,
                    items: item_tags.into_iter().zip(items).collect(),
                });
                if let Some(target) = e.rewound {
                    // The latest epoch that began at or before the target holds everything the
                    // context had just before its prompt.
                    let base = history
                        .iter()
                        .rev()
                        .find(|ep| ep.start <= target)
                        .map(|ep| ep.items.as_slice())
                        .unwrap_or_default();
                    for (tag, item) in base {
                        if tag.is_none_or(|t| t < target) {
                            tags.push(*tag);
                            r.items.push(item.clone());
                        }
                    }
                    r.pending.retain(|id, _| *id < target);
                    r.compacted_outputs = outputs_seen - count_outputs(&r.items).min(outputs_seen);
                    epoch_turns = tags
                        .iter()
                        .flatten()
                        .filter(|t| done.contains(t))
                        .copied()
                        .collect();
                    r.completed_in_epoch = epoch_turns.len() as u64;
                    start = RequestId(latest.0 + 1);
                } else if let Some(c) = &e.compaction {
                    for (n, item) in c.items.iter().enumerate() {
                        // Native provider items are kept verbatim, like in provider items.
                        let item = ContextItem::from_json(item.get()).map_err(|err| {
                            ContextError::Undecodable {
                                seq: *seq,
                                what: "compaction item",
                                reason: format!("item {n}: {err}"),
                            }
                        })?;
                        tags.push(None);
                        r.items.push(item);
                    }
                    r.compacted_outputs = outputs_seen - count_outputs(&r.items).min(outputs_seen);
                    epoch_turns.clear();
                    r.completed_in_epoch = 0;
                    // A compaction in the middle of a turn summarises part of it too.
                    let mid_turn = user_seq
                        .get(&e.request_id)
                        .is_some_and(|s| *s <= c.covers_through);
                    start = if mid_turn {
                        RequestId(e.request_id.0 + 1)
                    } else {
                        e.request_id
                    };
                } else {
                    // An epoch without a change of content (none is written today).
                    for (tag, item) in history.pop().map(|ep| ep.items).unwrap_or_default() {
                        tags.push(tag);
                        r.items.push(item);
                    }
                }
            }
            Record::Done(d) => {
                done.insert(d.request_id);
                if epoch_turns.insert(d.request_id) {
                    r.completed_in_epoch += 1;
                }
            }
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
