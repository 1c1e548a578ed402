//! Compaction: older history becomes the retained user messages plus one summary item (made
//! by the provider when it can summarise, else the offline synthetic form); the last two
//! completed turns stay whole.

use crate::provider::ContextItem;

use super::context::context_bytes;

/// Compaction is not applied before this many completed turns in the current epoch.
pub const MIN_COMPLETED_TURNS: u64 = 3;
/// Turns kept whole at the end of the context.
pub const KEPT_TURNS: usize = 2;
/// Characters of each older final answer kept in the summary.
const ANSWER_CHARS: usize = 240;

/// What compaction does to a context: older history (`old`) is summarised, every earlier user
/// message is kept, and the last two turns stay whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The history to summarise.
    pub old: Vec<ContextItem>,
    /// The last turns, kept whole.
    pub kept: Vec<ContextItem>,
}

/// Why compaction cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotDue {
    /// Under the budget.
    UnderBudget,
    /// Fewer than three completed turns in this epoch, or nothing older than the kept turns.
    TooFewTurns,
}

/// Splits the context when compaction is due (`force`: the provider said the context is too
/// long, so the budget does not matter, but the three-turn rule still does).
pub fn split(
    items: &[ContextItem],
    completed_in_epoch: u64,
    budget: u64,
    force: bool,
) -> Result<Split, NotDue> {
    if !force && context_bytes(items) < budget {
        return Err(NotDue::UnderBudget);
    }
    if completed_in_epoch < MIN_COMPLETED_TURNS {
        return Err(NotDue::TooFewTurns);
    }
    let starts: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, ContextItem::User { .. }))
        .map(|(n, _)| n)
        .collect();
    if starts.len() <= KEPT_TURNS {
        return Err(NotDue::TooFewTurns);
    }
    let keep_from = starts[starts.len() - KEPT_TURNS];
    let (old, kept) = items.split_at(keep_from);
    Ok(Split {
        old: old.to_vec(),
        kept: kept.to_vec(),
    })
}

/// The offline summary: earlier summaries and final answers, and what was removed.
pub fn offline_summary(old: &[ContextItem]) -> String {
    let mut summary = String::new();
    let mut answers = 0usize;
    let mut dropped = 0usize;
    let mut users = 0usize;
    for item in old {
        match item {
            ContextItem::User { .. } => users += 1,
            ContextItem::Compaction { summary: earlier } => {
                summary.push_str(earlier);
                summary.push('\n');
            }
            ContextItem::Assistant { text } => {
                answers += 1;
                summary.push_str(&format!("answer {answers}: {}\n", clip(text)));
            }
            _ => dropped += 1,
        }
    }
    format!(
        "[offline compaction: {users} earlier requests are kept as they were; {dropped} tool calls, \
         outputs and notes were removed from the context (they remain in the session journal); \
         earlier final answers follow]\n{summary}"
    )
}

/// The new context: earlier user messages, the summary, then the kept turns.
pub fn assemble(split: &Split, summary: String) -> Vec<ContextItem> {
    let mut out: Vec<ContextItem> = split
        .old
        .iter()
        .filter(|i| {
            matches!(
                i,
                ContextItem::Environment { .. } | ContextItem::User { .. }
            )
        })
        .cloned()
        .collect();
    out.push(ContextItem::Compaction { summary });
    out.extend_from_slice(&split.kept);
    out
}

/// The offline form in one step, when due.
#[cfg(test)]
pub fn offline(
    items: &[ContextItem],
    completed_in_epoch: u64,
    budget: u64,
) -> Option<Vec<ContextItem>> {
    let split = split(items, completed_in_epoch, budget, false).ok()?;
    let summary = offline_summary(&split.old);
    Some(assemble(&split, summary))
}

fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(ANSWER_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;

    fn turn(n: usize, output_bytes: usize) -> Vec<ContextItem> {
        vec![
            ContextItem::User {
                text: format!("task {n}"),
            },
            ContextItem::ToolCall(ToolCall {
                call_id: format!("c{n}"),
                name: "read".into(),
                arguments: "{}".into(),
            }),
            ContextItem::ToolOutput {
                call_id: format!("c{n}"),
                output: "x".repeat(output_bytes),
            },
            ContextItem::Assistant {
                text: format!("answer {n}"),
            },
        ]
    }

    #[test]
    fn keeps_the_last_two_turns_and_every_user_message() {
        let items: Vec<ContextItem> = (0..4).flat_map(|n| turn(n, 1000)).collect();
        let out = offline(&items, 4, 1000).unwrap();
        assert_eq!(&out[out.len() - 8..], &items[8..]);
        assert_eq!(
            &out[..2],
            &[
                ContextItem::User {
                    text: "task 0".into()
                },
                ContextItem::User {
                    text: "task 1".into()
                }
            ]
        );
        let ContextItem::Compaction { summary } = &out[2] else {
            panic!("no summary: {out:?}")
        };
        assert!(summary.contains("answer 1: answer 0"), "{summary}");
        assert!(summary.contains("4 tool calls"), "{summary}");
        assert!(context_bytes(&out) < context_bytes(&items));
    }

    #[test]
    fn not_before_three_completed_turns_or_under_budget() {
        let items: Vec<ContextItem> = (0..4).flat_map(|n| turn(n, 1000)).collect();
        assert!(offline(&items, 2, 10).is_none());
        assert!(offline(&items, 4, 1 << 20).is_none());
    }

    #[test]
    fn an_earlier_summary_is_folded_in() {
        let mut items = vec![ContextItem::Compaction {
            summary: "EARLIER".into(),
        }];
        items.extend((0..3).flat_map(|n| turn(n, 100)));
        let out = offline(&items, 3, 10).unwrap();
        let summary = out
            .iter()
            .find_map(|i| match i {
                ContextItem::Compaction { summary } => Some(summary.clone()),
                _ => None,
            })
            .unwrap();
        assert!(summary.contains("EARLIER"));
        assert_eq!(
            out.iter()
                .filter(|i| matches!(i, ContextItem::Compaction { .. }))
                .count(),
            1
        );
    }
}
