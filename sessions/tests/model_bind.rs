//! Golden JSONL of switching models (`spec/jsonl/model-bind.jsonl`): the `models` and `model`
//! commands and the `model_catalog`, `rebound` and `model_refused` events round-trip
//! byte-exact; every malformed `model` command has its message
//! (`spec/jsonl/model-bind-malformed.jsonl`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::PathBuf;

use ansa_sessions::protocol::{CommandBody, Event, EventBody, ProtocolContext, parse_command};
use ansa_sessions::{Effort, Incarnation, Profile};

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
fn model_commands_and_events_round_trip_byte_exact() {
    let text = fixture("model-bind.jsonl");
    let mut lines = text.lines();
    let mut bodies = Vec::new();
    for line in lines.by_ref().take(3) {
        let cmd = parse_command(line, &ctx()).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(cmd.to_json(&ctx()), line);
        bodies.push(cmd.body);
    }
    assert_eq!(bodies[0], CommandBody::Models);
    let CommandBody::Model(choice) = &bodies[1] else {
        panic!("{:?}", bodies[1]);
    };
    assert_eq!(
        (choice.model.as_str(), choice.effort),
        ("gpt-6.1-sol", Some(Effort::High))
    );
    let mut kinds = Vec::new();
    for line in lines {
        let event = Event::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(event.to_json().unwrap(), line);
        kinds.push(match event.body {
            EventBody::ModelCatalog(_) => "model_catalog",
            EventBody::Rebound(_) => "rebound",
            EventBody::Error { .. } => "error",
            _ => "other",
        });
    }
    assert_eq!(kinds, ["model_catalog", "rebound", "rebound", "error"]);
}

#[test]
fn malformed_model_commands_are_rejected_with_their_message() {
    for line in fixture("model-bind-malformed.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap();
        let err = parse_command(input, &ctx()).unwrap_err();
        assert_eq!(err.to_string(), case["error"].as_str().unwrap(), "{input}");
    }
}
