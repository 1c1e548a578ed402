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
        target: None,
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
        report: None,
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

fn user(request: u64, text: &str) -> Record {
    item(request, 0, &ContextItem::User { text: text.into() })
}

fn answer(request: u64, generation: u64, text: &str) -> Record {
    item(
        request,
        generation,
        &ContextItem::Assistant { text: text.into() },
    )
}

fn accepted(request: u64) -> Record {
    Record::CommandAccepted(ansa_sessions::CommandAccepted {
        command_id: ansa_sessions::CommandId::new(format!("c{request}")).expect("id"),
        request_id: RequestId(request),
        action: ansa_sessions::AcceptedAction::Submit {
            text: format!("task {request}"),
            mode: ansa_sessions::Mode::Basic,
            mentions: Vec::new(),
        },
    })
}

fn rewind_epoch(epoch: u64, target: u64) -> Record {
    Record::ContextEpoch(ansa_sessions::ContextEpoch {
        epoch,
        request_id: RequestId(target),
        compaction: None,
        rewound: Some(RequestId(target)),
    })
}

fn texts(items: &[ContextItem]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            ContextItem::User { text } | ContextItem::Assistant { text } => text.clone(),
            ContextItem::Environment { .. } => "env".into(),
            ContextItem::ToolOutput { output, .. } => format!("out:{output}"),
            ContextItem::ToolCall(c) => format!("call:{}", c.call_id),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_rewind_epoch_continues_from_before_the_chosen_prompt() {
    let records = numbered(vec![
        accepted(1),
        item(1, 0, &ContextItem::Environment { text: "e".into() }),
        user(1, "one"),
        answer(1, 1, "a1"),
        done(1),
        accepted(2),
        user(2, "two"),
        item(2, 2, &call("c2")),
        outcome(2, "c2", "o2"),
        answer(2, 3, "a2"),
        done(2),
        accepted(3),
        user(3, "three"),
        answer(3, 4, "a3"),
        done(3),
        rewind_epoch(1, 2),
        accepted(4),
        user(4, "four"),
        answer(4, 5, "a4"),
        done(4),
    ]);
    let r = replay(&records).expect("replays");
    assert_eq!(r.epoch, 1);
    // The environment message belongs to no turn and survives; turns 2 and 3 are gone.
    assert_eq!(texts(&r.items), ["env", "one", "a1", "four", "a4"]);
    assert_eq!(r.next_generation, 6, "generations keep counting");
    assert_eq!(r.completed_in_epoch, 2);
    assert_eq!(
        r.compacted_outputs, 1,
        "the rewound output is out of the context"
    );
    // A second rewind to a turn before the first rewind's start reaches back past it.
    let mut more = records.clone();
    more.push((Seq(100), rewind_epoch(2, 1)));
    let r = replay(&more).expect("replays");
    assert_eq!(texts(&r.items), ["env"]);
    // And one to the turn after it keeps what the first rewind kept.
    let mut more = records;
    more.push((Seq(100), rewind_epoch(2, 4)));
    let r = replay(&more).expect("replays");
    assert_eq!(texts(&r.items), ["env", "one", "a1"]);
}

#[test]
fn a_rewind_before_a_compaction_uses_the_epoch_before_it() {
    let summary = ContextItem::Note {
        text: "summary of 1-2".into(),
    };
    let records = numbered(vec![
        accepted(1),
        user(1, "one"),
        answer(1, 1, "a1"),
        done(1),
        accepted(2),
        user(2, "two"),
        answer(2, 2, "a2"),
        done(2),
        accepted(3),
        Record::ContextEpoch(ansa_sessions::ContextEpoch {
            epoch: 1,
            request_id: RequestId(3),
            compaction: Some(ansa_sessions::Compaction {
                items: vec![encode_item(&summary).expect("json")],
                covers_through: Seq(9),
                method: ansa_sessions::CompactionMethod::Offline,
                model: None,
            }),
            rewound: None,
        }),
        user(3, "three"),
        answer(3, 3, "a3"),
        done(3),
    ]);
    let mut to_three = records.clone();
    to_three.push((Seq(100), rewind_epoch(2, 3)));
    let r = replay(&to_three).expect("replays");
    assert_eq!(texts(&r.items).len(), 1, "the summary alone: {:?}", r.items);
    let mut to_two = records;
    to_two.push((Seq(100), rewind_epoch(2, 2)));
    let r = replay(&to_two).expect("replays");
    assert_eq!(texts(&r.items), ["one", "a1"]);
}
