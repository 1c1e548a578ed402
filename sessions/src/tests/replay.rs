//! What survives a restart: command deduplication, interrupted turns, provider items.

use super::*;

#[test]
fn submit_ids_are_deduplicated_across_restarts() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        assert_eq!(
            submit(&mut s, "a", "hello").expect("a"),
            Acceptance::Accepted(RequestId(1))
        );
        assert_eq!(
            submit(&mut s, "a", "hello").expect("a"),
            Acceptance::Replayed(RequestId(1))
        );
    }
    let mut s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert_eq!(
        submit(&mut s, "a", "hello").expect("a"),
        Acceptance::Replayed(RequestId(1))
    );
    let err = submit(&mut s, "a", "other").expect_err("conflict");
    assert_eq!(
        err.to_string(),
        "command_id a was already used for a different command (request 1); use a new command_id"
    );
    assert_eq!(
        submit(&mut s, "b", "next").expect("b"),
        Acceptance::Accepted(RequestId(2))
    );
}

#[test]
fn unfinished_turn_comes_back_paused_and_open_intents_are_reported() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        submit(&mut s, "a", "run ls").expect("submit");
        let r = RequestId(1);
        s.append(Record::TurnState(TurnStateChange {
            request_id: r,
            state: TurnState::Running,
            reason: None,
        }))
        .expect("running");
        s.append(Record::ToolIntent(ToolIntent {
            request_id: r,
            call_id: CallId("call_1".into()),
            tool: "exec".into(),
            arguments: OpaqueJson::from_text(r#"{"program":"ls","args":[]}"#).expect("json"),
            implementation_revision: "1".into(),
            target: None,
        }))
        .expect("intent");
        s.sync().expect("sync");
    }
    let mut s = open_or_create(&dir, 64 << 20).expect("reopen");
    let rec = s.recovery().clone();
    assert_eq!(rec.paused, vec![RequestId(1)]);
    assert_eq!(rec.open_intents.len(), 1);
    assert_eq!(rec.open_intents[0].call_id, CallId("call_1".into()));
    let turn = s.state().turn(RequestId(1)).expect("turn");
    assert_eq!(turn.state, TurnState::Paused);
    assert_eq!(turn.reason.as_deref(), Some(session::INTERRUPTED_REASON));
    assert!(
        !s.state().resume_available(RequestId(1)),
        "open intent blocks resume"
    );
    s.append(Record::ToolOutcome(ToolOutcome {
        request_id: RequestId(1),
        call_id: CallId("call_1".into()),
        status: ToolOutcomeStatus::EffectUnknown,
        reconciled: false,
        output: OpaqueJson::from_text("null").expect("json"),
        answer: None,
        instructions: Vec::new(),
        report: None,
    }))
    .expect("outcome");
    s.sync().expect("sync");
    assert!(
        !s.state().resume_available(RequestId(1)),
        "effect_unknown blocks resume"
    );
    drop(s);
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert!(s.recovery().paused.is_empty(), "already paused");
    assert!(s.recovery().open_intents.is_empty());
    assert!(s.state().turn(RequestId(1)).expect("turn").effect_unknown);
}

#[test]
fn provider_items_round_trip_byte_exact() {
    let (_t, dir) = session_dir();
    let item = r#"{"type":"reasoning","encrypted_content":"gAAA==","n":1e400,"x":0.10000000000000000001,"k":{"b":1,"a":2}}"#;
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    submit(&mut s, "a", "q").expect("submit");
    s.append(Record::ProviderItem(ProviderItem {
        request_id: RequestId(1),
        generation: 1,
        epoch: 0,
        item: OpaqueJson::from_text(item).expect("json"),
    }))
    .expect("item");
    s.sync().expect("sync");
    let records = s.read_records().expect("read");
    let got = records
        .iter()
        .find_map(|(_, r)| match r {
            Record::ProviderItem(p) => Some(p.item.get().to_owned()),
            _ => None,
        })
        .expect("item");
    assert_eq!(got, item);
    assert_eq!(s.state().provider_items(), 1);
}
