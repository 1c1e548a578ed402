//! Replay of the journal into the saved context: which turns started, which calls are still
//! open (and whether their intent was journaled), and how many turns completed in the epoch.

use ansa_sessions::{CallId, Done, OpaqueJson, ProviderItem, Record, RequestId, Seq, ToolIntent};

use super::{encode_item, replay};
use crate::provider::{ContextItem, ToolCall};

fn item(request: u64, generation: u64, item: &ContextItem) -> Record {
    Record::ProviderItem(ProviderItem {
        request_id: RequestId(request),
        generation,
        epoch: 0,
        item: encode_item(item).expect("encodes"),
    })
}

fn call(id: &str) -> ContextItem {
    ContextItem::ToolCall(ToolCall {
        call_id: id.into(),
        name: "read".into(),
        arguments: "{}".into(),
    })
}

fn intent(request: u64, id: &str) -> Record {
    Record::ToolIntent(ToolIntent {
        request_id: RequestId(request),
        call_id: CallId(id.into()),
        tool: "read".into(),
        arguments: OpaqueJson::from_text("{}").expect("json"),
        implementation_revision: "1".into(),
    })
}

fn done(request: u64) -> Record {
    Record::Done(Done {
        request_id: RequestId(request),
        final_text: "ok".into(),
    })
}

fn numbered(records: Vec<Record>) -> Vec<(Seq, Record)> {
    (1..).map(Seq).zip(records).collect()
}

#[test]
fn open_calls_are_pending_and_know_whether_their_intent_was_journaled() {
    let records = numbered(vec![
        item(
            1,
            0,
            &ContextItem::User {
                text: "task".into(),
            },
        ),
        item(1, 1, &call("c1")),
        item(1, 1, &call("c2")),
        intent(1, "c1"),
    ]);
    let r = replay(&records).expect("replays");
    assert!(
        r.started.contains(&RequestId(1)),
        "the user message started turn 1"
    );
    let pending = &r.pending[&RequestId(1)];
    let seen: Vec<(&str, bool)> = pending
        .iter()
        .map(|p| (p.call.call_id.as_str(), p.intent))
        .collect();
    assert_eq!(seen, [("c1", true), ("c2", false)]);
    assert_eq!(r.next_generation, 2);
}

#[test]
fn a_turn_done_twice_counts_once_in_its_epoch() {
    let records = numbered(vec![done(1), done(1), done(2)]);
    let r = replay(&records).expect("replays");
    assert_eq!(r.completed_in_epoch, 2);
}

fn outcome(request: u64, id: &str, output: &str) -> Record {
    Record::ToolOutcome(ansa_sessions::ToolOutcome {
        request_id: RequestId(request),
        call_id: CallId(id.into()),
        status: ansa_sessions::ToolOutcomeStatus::Ok,
        reconciled: false,
        output: super::encode_output(output).expect("json"),
        answer: None,
        instructions: vec!["sub".into()],
    })
}

#[test]
fn an_outcome_closes_its_call_and_joins_the_context() {
    let records = numbered(vec![
        item(
            1,
            0,
            &ContextItem::User {
                text: "task".into(),
            },
        ),
        item(1, 1, &call("c1")),
        intent(1, "c1"),
        outcome(1, "c1", "the answer"),
    ]);
    let r = replay(&records).expect("replays");
    assert!(r.pending.is_empty(), "{:?}", r.pending);
    assert_eq!(
        r.items.last(),
        Some(&ContextItem::ToolOutput {
            call_id: "c1".into(),
            output: "the answer".into(),
        })
    );
    assert_eq!(r.delivered, [std::path::PathBuf::from("sub")]);
}

#[test]
fn a_compaction_epoch_replaces_the_items_and_counts_the_outputs_it_removed() {
    let summary = ContextItem::Note {
        text: "summary".into(),
    };
    let kept = ContextItem::ToolOutput {
        call_id: "c2".into(),
        output: "two".into(),
    };
    let records = numbered(vec![
        item(
            1,
            0,
            &ContextItem::User {
                text: "task".into(),
            },
        ),
        item(1, 1, &call("c1")),
        outcome(1, "c1", "one"),
        item(1, 2, &call("c2")),
        outcome(1, "c2", "two"),
        done(1),
        Record::ContextEpoch(ansa_sessions::ContextEpoch {
            epoch: 1,
            request_id: RequestId(2),
            compaction: Some(ansa_sessions::Compaction {
                // The summary keeps the last output.
                items: vec![
                    encode_item(&summary).expect("json"),
                    encode_item(&kept).expect("json"),
                ],
                covers_through: Seq(6),
                method: ansa_sessions::CompactionMethod::Offline,
                model: None,
            }),
            rewound: None,
        }),
        item(2, 3, &call("c3")),
        outcome(2, "c3", "three"),
    ]);
    let r = replay(&records).expect("replays");
    assert_eq!(r.epoch, 1);
    assert_eq!(r.items.first(), Some(&summary));
    assert_eq!(
        r.items.len(),
        4,
        "summary, kept output, call, output: {:?}",
        r.items
    );
    assert_eq!(
        r.compacted_outputs, 1,
        "of the two outputs before, the summary kept one"
    );
    assert_eq!(r.completed_in_epoch, 0, "the epoch starts a new count");
}
