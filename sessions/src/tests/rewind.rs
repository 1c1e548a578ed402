//! Checkpoint and rewind records: they survive a reopen, decode strictly, and the state's
//! `checkpoints` projection and code points follow them.

use super::*;

fn hex(b: u8) -> ManifestHex {
    ManifestHex::from_bytes(&[b; 32])
}

fn checkpoint(request: u64, phase: CheckpointPhase, m: u8, changed: &[&str]) -> Record {
    Record::Checkpoint(Checkpoint {
        request_id: RequestId(request),
        phase,
        manifest: hex(m),
        changed: changed.iter().map(|s| s.to_string()).collect(),
        changed_total: changed.len() as u64,
        not_restorable: 0,
        over_budget: false,
        time_ms: 1_000 + u64::from(m),
        rewind_to: None,
    })
}

fn intent(request: u64, tool: &str) -> Record {
    Record::ToolIntent(ToolIntent {
        request_id: RequestId(request),
        call_id: CallId(format!("call-{request}-{tool}")),
        tool: tool.into(),
        arguments: OpaqueJson::from_text("{}").expect("json"),
        implementation_revision: "1".into(),
        target: None,
    })
}

const MUTATING: &dyn Fn(&str) -> bool = &|t: &str| matches!(t, "edit" | "files" | "exec");

#[test]
fn checkpoints_and_rewinds_survive_a_reopen_and_mark_rewound_turns() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        for (i, text) in ["first\nmore", "second", "third"].iter().enumerate() {
            let Acceptance::Accepted(r) = submit(&mut s, &format!("c{i}"), text).expect("submit")
            else {
                panic!("replayed")
            };
            if r.0 != 2 {
                s.append(checkpoint(r.0, CheckpointPhase::Before, r.0 as u8, &[]))
                    .expect("cp");
                s.append(intent(r.0, "edit")).expect("intent");
                s.append(checkpoint(
                    r.0,
                    CheckpointPhase::After,
                    10 + r.0 as u8,
                    &["a.txt"],
                ))
                .expect("cp");
            } else {
                s.append(intent(r.0, "read")).expect("intent");
            }
            s.finish(r, format!("answer {i}")).expect("finish");
        }
        let before_rewind = Checkpoint {
            rewind_to: Some(hex(1)),
            ..match checkpoint(2, CheckpointPhase::BeforeRewind, 99, &[]) {
                Record::Checkpoint(c) => c,
                _ => unreachable!(),
            }
        };
        s.append(Record::Checkpoint(before_rewind)).expect("cp");
        assert!(s.state().interrupted_rewind().is_some());
        s.append(Record::ContextEpoch(ContextEpoch {
            epoch: 1,
            request_id: RequestId(2),
            compaction: None,
            rewound: Some(RequestId(2)),
        }))
        .expect("epoch");
        s.append(Record::Rewind(Rewind {
            command_id: CommandId::new("rw").expect("id"),
            request_id: RequestId(2),
            scope: RewindScope::Both,
            checkpoint: Some(hex(99)),
            restored_to: Some(hex(3)),
            applied: RewindApplied {
                restored: 1,
                recreated: 0,
                deleted: 0,
                kept: 0,
            },
            epoch: 1,
            recovered: None,
        }))
        .expect("rewind");
        s.sync().expect("sync");
    }
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    let st = s.state();
    assert!(st.interrupted_rewind().is_none());
    assert_eq!(st.rewinds().len(), 1);
    assert_eq!(st.checkpoints().len(), 5);
    assert!(!st.is_rewound(RequestId(1)));
    assert!(st.is_rewound(RequestId(2)) && st.is_rewound(RequestId(3)));
    // Turn 2 only read: its code point is turn 3's `before`.
    match st.code_point(RequestId(2), MUTATING) {
        CodePoint::Checkpoint(_, c) => assert_eq!(c.manifest, hex(3)),
        other => panic!("{other:?}"),
    }
    let items = st.checkpoint_items(MUTATING);
    let summary: Vec<_> = items
        .iter()
        .map(|i| (i.turn, i.rewound, i.checkpoint.is_some(), i.prompt.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (2, false, true, "second"),
            (3, true, false, "third"),
            (2, true, false, "second"),
            (1, false, false, "first"),
        ]
    );
    assert_eq!(items[3].files_changed, ["a.txt"]);
    assert_eq!(items[3].time, Some(1_001));
    assert_eq!(items[2].time, None);
    // The transcript flags the rewound turns' prompts and answers.
    let flags: Vec<(u64, bool)> = s
        .transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: true,
        })
        .entries
        .iter()
        .map(|e| (e.request_id.0, e.rewound))
        .collect();
    assert_eq!(
        flags,
        [
            (1, false),
            (1, false),
            (2, true),
            (2, true),
            (3, true),
            (3, true)
        ]
    );
}

#[test]
fn a_turn_after_a_rewind_is_not_flagged_and_the_flag_survives_a_reopen() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        let Acceptance::Accepted(r) = submit(&mut s, "a", "taken back").expect("submit") else {
            panic!("replayed")
        };
        s.finish(r, "old answer".into()).expect("finish");
        s.append(Record::ContextEpoch(ContextEpoch {
            epoch: 1,
            request_id: r,
            compaction: None,
            rewound: Some(r),
        }))
        .expect("epoch");
        let Acceptance::Accepted(r2) = submit(&mut s, "b", "asked again").expect("submit") else {
            panic!("replayed")
        };
        s.finish(r2, "new answer".into()).expect("finish");
    }
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    let page = s.transcript(TranscriptQuery {
        before: 0,
        limit: 64,
        forward: false,
    });
    let flags: Vec<(&str, bool)> = page
        .entries
        .iter()
        .map(|e| (e.text.as_str(), e.rewound))
        .collect();
    assert_eq!(
        flags,
        [
            ("taken back", true),
            ("old answer", true),
            ("asked again", false),
            ("new answer", false)
        ]
    );
}

#[test]
fn a_mutating_turn_without_a_checkpoint_is_not_restorable() {
    let (_t, dir) = session_dir();
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    submit(&mut s, "a", "old turn").expect("submit");
    s.append(intent(1, "exec")).expect("intent");
    submit(&mut s, "b", "new turn").expect("submit");
    s.append(checkpoint(2, CheckpointPhase::Before, 2, &[]))
        .expect("cp");
    assert_eq!(
        s.state().code_point(RequestId(1), MUTATING),
        CodePoint::Missing
    );
    assert!(s.state().code_point(RequestId(2), MUTATING).restorable());
    submit(&mut s, "c", "read only").expect("submit");
    assert_eq!(
        s.state().code_point(RequestId(3), MUTATING),
        CodePoint::Unchanged
    );
}

#[test]
fn checkpoint_and_rewind_bodies_decode_strictly() {
    let good = r#"{"request_id":1,"phase":"before","manifest":"0101010101010101010101010101010101010101010101010101010101010101","changed":[],"changed_total":0,"not_restorable":0,"over_budget":false,"time_ms":5}"#;
    assert!(Record::decode("checkpoint", good.as_bytes()).is_ok());
    let extra = good.replace("\"time_ms\":5", "\"time_ms\":5,\"extra\":1");
    let err = Record::decode("checkpoint", extra.as_bytes()).expect_err("unknown field");
    assert!(err.contains("unknown field `extra`"), "{err}");
    let short = good.replace("01010101010101010101010101010101", "01");
    let err = Record::decode("checkpoint", short.as_bytes()).expect_err("bad hex");
    assert!(err.contains("64 lowercase hex digits"), "{err}");
    let phase = good.replace("\"before\"", "\"sometime\"");
    assert!(Record::decode("checkpoint", phase.as_bytes()).is_err());
    let rewind = r#"{"command_id":"c","request_id":2,"scope":"conversation","checkpoint":null,"restored_to":null,"applied":{"restored":0,"recreated":0,"deleted":0,"kept":0},"epoch":3}"#;
    assert!(Record::decode("rewind", rewind.as_bytes()).is_ok());
    let bad_scope = rewind.replace("conversation", "everything");
    assert!(Record::decode("rewind", bad_scope.as_bytes()).is_err());
    // A context epoch from before rewinds existed has no `rewound` field and still decodes.
    let old = r#"{"epoch":1,"request_id":4,"compaction":null}"#;
    match Record::decode("context_epoch", old.as_bytes()).expect("old epoch") {
        Record::ContextEpoch(e) => assert_eq!(e.rewound, None),
        other => panic!("{other:?}"),
    }
}
