//! Golden JSONL fixtures of issue 43's commands (`diff`, `compact`) and events
//! (`workspace_diff`, `compacted`, `provider_notice`, their error codes, a cut stream's
//! `retrying`): each parses and re-serialises byte for byte.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::PathBuf;

use ansa_sessions::protocol::{CommandBody, Event, EventBody, ProtocolContext, parse_command};
use ansa_sessions::{Incarnation, Profile};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/jsonl")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ctx() -> ProtocolContext {
    ProtocolContext {
        session: Profile::Offline,
        incarnation: Incarnation::from_wire("inc-1"),
    }
}

#[test]
fn diff_and_compact_commands_round_trip() {
    let text = fixture("tui-provider-commands.jsonl");
    let bodies: Vec<CommandBody> = text
        .lines()
        .map(|line| {
            let cmd = parse_command(line, &ctx()).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(cmd.to_json(&ctx()), line);
            cmd.body
        })
        .collect();
    assert_eq!(bodies, [CommandBody::Diff, CommandBody::Compact]);
    let extra = r#"{"schema_version":1,"session":"offline","incarnation":"inc-1","turn":3,"command_id":"c-22","type":"diff","path":"a.txt"}"#;
    let err = parse_command(extra, &ctx()).expect_err("no fields");
    assert!(err.to_string().contains("path"), "{err}");
}

#[test]
fn the_new_events_round_trip_byte_exact() {
    let text = fixture("tui-provider-events.jsonl");
    let mut kinds = Vec::new();
    for (expected_seq, line) in (1..).zip(text.lines()) {
        let ev = Event::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(ev.stream_sequence, expected_seq);
        assert_eq!(ev.to_json().expect("serialises"), line);
        kinds.push(match ev.body {
            EventBody::WorkspaceDiff(_) => "workspace_diff",
            EventBody::Compacted(_) => "compacted",
            EventBody::ProviderNotice(_) => "provider_notice",
            EventBody::Error { .. } => "error",
            EventBody::Retrying { .. } => "retrying",
            _ => "other",
        });
    }
    assert_eq!(
        kinds,
        [
            "workspace_diff",
            "compacted",
            "provider_notice",
            "error",
            "error",
            "retrying"
        ]
    );
    let unknown = text
        .lines()
        .next()
        .unwrap()
        .replace("\"omitted\":\"binary\"", "\"omitted\":\"huge\"");
    assert!(
        Event::parse(&unknown).is_err(),
        "unknown omission reasons are rejected"
    );
}
