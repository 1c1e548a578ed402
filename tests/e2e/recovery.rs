//! Issue 43 items 5 and 6 against the mock provider, through the built binary's JSONL driver:
//! a stream cut mid-answer is retried by itself (announced as `connection lost`, previews
//! never go back, nothing is said twice), a server's `retry-after` is waited for exactly as
//! announced, Ctrl+C (`cancel`) ends a wait at once, and reasoning without
//! `encrypted_content` is accepted, noted once, and never re-sent.

use serde_json::{Value, json};

use crate::harness::{Jsonl, World};
use crate::live::{fixture, live_env};
use crate::mock_provider::{MockProvider, MockResponse};

fn session(w: &World, mock: &MockProvider) -> Jsonl {
    let mut c = w.command(&[
        "--live-jsonl",
        "--session",
        w.path("session").to_str().unwrap(),
    ]);
    for (k, v) in live_env(mock, "responses") {
        c.env(k, v);
    }
    Jsonl::spawn(c)
}

fn of_type<'a>(seen: &'a [Value], kind: &str) -> Vec<&'a Value> {
    seen.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn a_stream_cut_mid_answer_is_retried_by_itself_and_nothing_is_said_twice() {
    use ansa::provider::live::Wire;
    use ansa_sessions::protocol::EventBody;

    let mock = MockProvider::http();
    let text = fixture("responses-text.sse");
    // Cut after the answer started streaming: some text has been previewed already.
    let cut_at = text.find("\"delta\":\" model").expect("fixture text") + 40;
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&text, 64)
            .chunk_delay(std::time::Duration::from_millis(2))
            .drop_after(cut_at),
    );
    mock.push("/v1/responses", MockResponse::sse_text(&text, 64));
    // In process, with previews on as the TUI has them.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let link =
        crate::live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 1 << 20);
    crate::live_runtime::submit(&link, "c1", "hello");
    let mut previews = Vec::new();
    let mut retries = Vec::new();
    let mut answer = String::new();
    loop {
        let event = link
            .events
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("event");
        match event.body {
            EventBody::TextPreview { text, .. } => previews.push(text),
            EventBody::Retrying {
                attempt,
                of,
                reason,
                ..
            } => retries.push((attempt, of, reason)),
            EventBody::TextDelta { text, .. } => answer = text,
            EventBody::Done { .. } => break,
            EventBody::TurnState {
                state: ansa_sessions::TurnState::Paused | ansa_sessions::TurnState::Failed,
                reason,
                ..
            } => panic!("the turn stopped: {reason:?}"),
            _ => {}
        }
    }
    crate::live_runtime::close(link);
    assert_eq!(answer, "Hello from the model. The answer is 42.");
    assert_eq!(retries, [(2, 6, "connection lost".to_owned())]);
    assert!(
        previews.iter().any(|p| p.starts_with("Hello")),
        "the cut attempt previewed text: {previews:#?}"
    );
    // Each preview extends the one before: the retry's stream never restarts the text a
    // frontend already shows (and may have committed to its scrollback).
    for pair in previews.windows(2) {
        assert!(pair[1].starts_with(&pair[0]), "{previews:#?}");
    }
    assert_eq!(mock.requests_to("/v1/responses").len(), 2);
}

#[test]
fn retry_after_is_waited_for_as_announced_and_cancel_ends_the_wait_at_once() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::openai_error(429, "rate_limit_exceeded", "slow down")
            .header("retry-after", "30"),
    );
    let mut s = session(&w, &mock);
    let rid = s.submit("hello");
    let retry = s.expect_type("retrying", &[("request_id", json!(rid))]);
    assert_eq!(retry["delay_ms"], 30_000, "{retry}");
    assert_eq!(retry["reason"], "429 Too Many Requests");
    let t = std::time::Instant::now();
    s.send("cancel", json!({"target": rid}));
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );
    assert!(
        t.elapsed() < std::time::Duration::from_secs(3),
        "cancel waited {:?}",
        t.elapsed()
    );
    s.finish();
    assert_eq!(mock.requests_to("/v1/responses").len(), 1);
}

/// `responses-text.sse` as a host that does not encrypt its reasoning sends it.
fn unencrypted(text: &str) -> String {
    let key = r#","encrypted_content":""#;
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at]);
        let after = &rest[at + key.len()..];
        let end = after.find('"').expect("closing quote");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn reasoning_without_encrypted_content_is_accepted_noted_once_and_never_resent() {
    let w = World::new();
    let mock = MockProvider::http();
    let text = unencrypted(&fixture("responses-text.sse"));
    assert!(!text.contains("encrypted_content") && text.contains("\"type\":\"reasoning\""));
    mock.push("/v1/responses", MockResponse::sse_text(&text, 4096));
    mock.push("/v1/responses", MockResponse::sse_text(&text, 4096));
    let mut s = session(&w, &mock);
    let first = s.submit("hello");
    assert_eq!(s.answer(first), "Hello from the model. The answer is 42.");
    let second = s.submit("again");
    assert_eq!(s.answer(second), "Hello from the model. The answer is 42.");
    let notices = of_type(&s.seen, "provider_notice");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["kind"], "reasoning_not_carried");
    assert_eq!(notices[0]["request_id"], json!(first));
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be carried between requests")
    );
    s.finish();
    let requests = mock.requests_to("/v1/responses");
    assert_eq!(requests.len(), 2);
    let body = String::from_utf8(requests[1].body.clone()).unwrap();
    assert!(!body.contains("\"type\":\"reasoning\""), "{body}");
    // The answer that came with it is still carried.
    assert!(body.contains("Hello from the model."), "{body}");
}
