//! The story projection: commentary, tool rows with their journaled reports, refused calls and
//! outcomes from older journals, in journal order; final answers and reasoning never appear.

use ansa_sessions::protocol::{ReportTone, StoryStep, ToolPhase, ToolReport};
use ansa_sessions::{
    CallId, OpaqueJson, ProviderItem, Record, RequestId, Seq, ToolIntent, ToolOutcome,
    ToolOutcomeStatus,
};

use super::StoryIndex;
use crate::provider::{ContextItem, NativeItem, ToolCall};
use crate::runtime::context::{encode_item, encode_output};

fn item(request: u64, generation: u64, item: &ContextItem) -> Record {
    Record::ProviderItem(ProviderItem {
        request_id: RequestId(request),
        generation,
        epoch: 0,
        item: encode_item(item).expect("encodes"),
    })
}

fn native(json: &str) -> ContextItem {
    ContextItem::Native(NativeItem::from_json(json).expect("json"))
}

fn call(id: &str, name: &str) -> ContextItem {
    ContextItem::ToolCall(ToolCall {
        call_id: id.into(),
        name: name.into(),
        arguments: "{}".into(),
    })
}

fn intent(request: u64, id: &str, target: &str) -> Record {
    Record::ToolIntent(ToolIntent {
        request_id: RequestId(request),
        call_id: CallId(id.into()),
        tool: "exec".into(),
        arguments: OpaqueJson::from_text("{}").expect("json"),
        implementation_revision: "1".into(),
        target: Some(target.into()),
    })
}

fn outcome(
    request: u64,
    id: &str,
    status: ToolOutcomeStatus,
    report: Option<ToolReport>,
) -> Record {
    Record::ToolOutcome(ToolOutcome {
        request_id: RequestId(request),
        call_id: CallId(id.into()),
        status,
        reconciled: false,
        output: encode_output("edits[0].old was not found").expect("json"),
        answer: None,
        instructions: Vec::new(),
        report,
    })
}

#[test]
fn a_turn_reads_as_it_looked_live() {
    let records: Vec<(Seq, Record)> = (1..)
        .map(Seq)
        .zip(vec![
            item(1, 0, &ContextItem::User { text: "go".into() }),
            item(1, 1, &native(r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"secret plan"}]}"#)),
            item(1, 1, &native(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me run the tests."}]}"#)),
            item(1, 1, &call("c1", "exec")),
            item(1, 1, &call("c2", "edit")),
            intent(1, "c1", "cargo test"),
            outcome(1, "c1", ToolOutcomeStatus::Ok, Some(ToolReport::new(ReportTone::Warn, "exit 2"))),
            // Refused before it ran: no intent, the name comes from the call item.
            outcome(1, "c2", ToolOutcomeStatus::Error, None),
            item(1, 2, &native(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All done."}]}"#)),
            item(1, 2, &ContextItem::Assistant { text: "All done.".into() }),
        ])
        .collect();
    let index = StoryIndex::build(&records);
    let steps = &index.turns[&RequestId(1)].steps;
    assert_eq!(
        steps,
        &vec![
            StoryStep::Commentary {
                text: "Let me run the tests.".into()
            },
            StoryStep::Tool {
                call_id: CallId("c1".into()),
                tool: "exec".into(),
                target: Some("cargo test".into()),
                status: ToolPhase::Finished,
                report: Some(ToolReport::new(ReportTone::Warn, "exit 2")),
            },
            StoryStep::Tool {
                call_id: CallId("c2".into()),
                tool: "edit".into(),
                target: None,
                status: ToolPhase::Failed,
                report: Some(ToolReport::failed("edits[0].old was not found")),
            },
        ],
        "the final answer's text and the reasoning are not steps"
    );
}

#[test]
fn a_call_without_an_outcome_stays_started_and_chat_commentary_is_read() {
    let records: Vec<(Seq, Record)> = (1..)
        .map(Seq)
        .zip(vec![
            item(
                2,
                1,
                &native(r#"{"role":"assistant","content":"Checking.","tool_calls":[]}"#),
            ),
            item(2, 1, &call("c9", "exec")),
            intent(2, "c9", "sleep 100"),
        ])
        .collect();
    let index = StoryIndex::build(&records);
    let steps = &index.turns[&RequestId(2)].steps;
    assert_eq!(steps.len(), 2);
    assert_eq!(
        steps[0],
        StoryStep::Commentary {
            text: "Checking.".into()
        }
    );
    assert!(matches!(
        &steps[1],
        StoryStep::Tool {
            status: ToolPhase::Started,
            report: None,
            ..
        }
    ));
}
