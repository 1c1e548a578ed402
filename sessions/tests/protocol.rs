//! Golden JSONL fixtures (`spec/jsonl/`) for every command and event, and every malformed
//! command with its exact message.

use std::path::PathBuf;

use ansa_sessions::protocol::{Event, ProtocolContext, parse_command};
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
fn every_golden_command_parses_and_reserialises_byte_exact() {
    let text = fixture("commands.jsonl");
    let mut types = std::collections::BTreeSet::new();
    for line in text.lines() {
        let cmd = parse_command(line, &ctx()).unwrap_or_else(|e| panic!("{line}: {e}"));
        types.insert(cmd.body.type_name());
        assert_eq!(cmd.to_json(&ctx()), line);
    }
    assert_eq!(
        types.len(),
        5,
        "every command type has a fixture: {types:?}"
    );
}

#[test]
fn every_golden_event_parses_and_reserialises_byte_exact() {
    let text = fixture("events.jsonl");
    let mut types = std::collections::BTreeSet::new();
    for (expected_seq, line) in (1..).zip(text.lines()) {
        let ev = Event::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(
            ev.stream_sequence, expected_seq,
            "stream_sequence has no gaps"
        );
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        types.insert(v["type"].as_str().expect("type").to_owned());
        assert_eq!(ev.to_json().expect("serialises"), line);
    }
    for t in [
        "snapshot",
        "command_accepted",
        "command_replayed",
        "text_preview",
        "text_delta",
        "tool_status",
        "turn_state",
        "done",
        "resync_required",
        "transcript",
        "error",
    ] {
        assert!(types.contains(t), "no fixture for event `{t}`");
    }
}

#[test]
fn every_malformed_command_is_rejected_with_its_message() {
    let text = fixture("malformed-commands.jsonl");
    let mut n = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        let input = case["input"].as_str().expect("input");
        let want = case["error"].as_str().expect("error");
        let err = parse_command(input, &ctx()).expect_err(input);
        assert_eq!(err.to_string(), want, "input: {input}");
        n += 1;
    }
    assert!(n >= 25);
    let long = format!("{{\"text\":\"{}\"}}", "x".repeat(1 << 20));
    assert_eq!(
        parse_command(&long, &ctx())
            .expect_err("too long")
            .to_string(),
        format!(
            "command is {} bytes long; at most 1048576 bytes per line are accepted",
            long.len()
        )
    );
}

#[test]
fn malformed_events_are_rejected() {
    for (line, want) in [
        (
            r#"{"type":"done","request_id":1,"durable":true}"#,
            "event needs an unsigned integer `stream_sequence`",
        ),
        (
            r#"{"stream_sequence":1,"type":"done","request_id":1,"durable":true,"extra":1}"#,
            "invalid event: unknown field `extra`, expected `request_id` or `durable`",
        ),
        (
            r#"{"stream_sequence":1,"type":"bogus"}"#,
            "invalid event: unknown variant `bogus`",
        ),
    ] {
        let err = Event::parse(line).expect_err(line).to_string();
        assert!(err.starts_with(want), "{err}");
    }
}
