//! Golden JSONL of `@` mentions (`spec/jsonl/mentions.jsonl`): a submit's optional `mentions`
//! field parses and reserialises byte-exact, a `submit` without it is unchanged, the
//! `mention_refused` error event round-trips, and every malformed `mentions` has its message.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::PathBuf;

use ansa_sessions::protocol::{
    CommandBody, ErrorCode, Event, EventBody, ProtocolContext, parse_command,
};
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
fn mentions_round_trip_byte_exact() {
    let text = fixture("mentions.jsonl");
    let mut lines = text.lines();
    let mut submits = 0;
    for line in lines.by_ref().take(2) {
        let cmd = parse_command(line, &ctx()).unwrap_or_else(|e| panic!("{line}: {e}"));
        let CommandBody::Submit { mentions, .. } = &cmd.body else {
            panic!("{line}");
        };
        assert!(!mentions.is_empty());
        assert_eq!(cmd.to_json(&ctx()), line);
        submits += 1;
    }
    assert_eq!(submits, 2);
    let line = lines.next().unwrap();
    let event = Event::parse(line).unwrap();
    assert!(matches!(
        event.body,
        EventBody::Error {
            code: ErrorCode::MentionRefused,
            ..
        }
    ));
    assert_eq!(event.to_json().unwrap(), line);
    // Without mentions a submit is written as before (older clients and journals).
    let plain = fixture("commands.jsonl");
    let first = plain.lines().next().unwrap();
    assert_eq!(parse_command(first, &ctx()).unwrap().to_json(&ctx()), first);
    let null = first.replace(r#""mode":"basic""#, r#""mode":"basic","mentions":null"#);
    assert_eq!(parse_command(&null, &ctx()).unwrap().to_json(&ctx()), first);
}

#[test]
fn malformed_mentions_are_rejected_with_their_message() {
    for line in fixture("mentions-malformed.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap();
        let err = parse_command(input, &ctx()).unwrap_err();
        assert_eq!(err.to_string(), case["error"].as_str().unwrap(), "{input}");
    }
}
