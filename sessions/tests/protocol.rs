//! Golden JSONL fixtures (`spec/jsonl/`) for every command and event, and every malformed
//! command with its exact message.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

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
        9,
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
        "tool_output",
        "retrying",
        "reasoning_preview",
        "approval_required",
        "approval_decided",
        "checkpoints",
        "rewind_plan",
        "rewind_done",
        "checkpoint_notice",
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

/// Tiny deterministic PRNG (xorshift64*), so the robustness test needs no dependency and every
/// run sees the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One random mutation of `line`, biased towards JSON-significant bytes and boundary numbers.
fn mutate(rng: &mut Rng, line: &[u8], other: &[u8], rounds: usize) -> Vec<u8> {
    const TOKENS: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b":",
        b",",
        b"\\",
        b"\\u0000",
        b"\\ud800",
        b"null",
        b"true",
        b"0",
        b"-1",
        b"1e3",
        b"1.5",
        b"18446744073709551615",
        b"18446744073709551616",
        b"4294967296",
        b"\"type\":\"submit\"",
        b"\"mode\":\"plan\"",
        b"\"forward\":true",
        b"\"limit\":0",
        b"\xff",
        b"\xc3\xa9",
        b"\n",
        b" ",
        b"\"schema_version\":1",
    ];
    let mut v = line.to_vec();
    for _ in 0..rounds {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(v.len());
                v.drain(at.min(end)..end);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 => v.truncate(at),
            4 => {
                let from = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[from..]);
            }
            5 if !v.is_empty() => {
                let i = rng.below(v.len());
                let end = (i + 1 + rng.below(16)).min(v.len());
                let chunk = v[i..end].to_vec();
                v.splice(at..at, chunk);
            }
            _ => {
                const BYTES: &[u8] = b"{}[]\":,0123456789-.eE\\ntfu";
                v.insert(at, BYTES[rng.below(BYTES.len())]);
            }
        }
    }
    v
}

#[test]
fn mutated_fixture_lines_never_panic_and_every_error_has_a_message() {
    let golden: Vec<String> = fixture("commands.jsonl")
        .lines()
        .map(str::to_owned)
        .collect();
    let mut lines = golden.clone();
    for line in fixture("malformed-commands.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        lines.push(case["input"].as_str().expect("input").to_owned());
    }
    lines.extend(fixture("events.jsonl").lines().map(str::to_owned));
    let mut rng = Rng(0x5eed_a115_a5e5_5101);
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..5000 {
        // Half the inputs are one light mutation away from a valid command, so that the
        // accepting paths and the round trip are exercised too.
        let (line, rounds) = if rng.below(2) == 0 {
            (golden[rng.below(golden.len())].as_bytes(), 1)
        } else {
            (lines[rng.below(lines.len())].as_bytes(), 1 + rng.below(4))
        };
        let other = lines[rng.below(lines.len())].as_bytes();
        let bytes = mutate(&mut rng, line, other, rounds);
        let input = String::from_utf8_lossy(&bytes);
        let result =
            std::panic::catch_unwind(|| parse_command(&input, &ctx())).unwrap_or_else(|_| {
                panic!("parse_command panicked on {input:?}");
            });
        match result {
            Ok(cmd) => {
                accepted += 1;
                let json = cmd.to_json(&ctx());
                assert_eq!(
                    parse_command(&json, &ctx()).as_ref(),
                    Ok(&cmd),
                    "{input:?} re-serialised as {json}"
                );
            }
            Err(e) => {
                rejected += 1;
                assert!(
                    !e.to_string().trim().is_empty(),
                    "empty message for {input:?}"
                );
            }
        }
    }
    // The mutations must exercise both sides, or the test proves little.
    assert!(
        accepted >= 50 && rejected >= 2500,
        "{accepted} accepted, {rejected} rejected"
    );
}
