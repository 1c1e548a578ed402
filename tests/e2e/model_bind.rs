//! Switching models, never silently (issue 44 item 5): the `model` command and `--model` /
//! `--effort` on a reopened session record a `rebinding` before the next request; every request
//! is built from the binding in force when its turn started (checked on the mock provider's
//! recorded bodies, across a SIGKILL and a resume); a model the catalog does not list is
//! refused before any request, with the list.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Jsonl, World, journal_text};
use crate::live::{fixture, live_env};
use crate::mock_provider::{MockProvider, MockResponse};

/// The catalog the mock serves: two models, both configured as reasoning models below.
const CATALOG: &str = r#"{"object":"list","data":[{"id":"gpt-5.5","object":"model"},{"id":"gpt-6.1-sol","object":"model"}]}"#;

/// The config that makes both catalog models reasoning models on the loopback mock (whose
/// host has no catalog rule of its own), so they take `low`, `medium` and `high`.
fn reasoning_config(w: &World) {
    std::fs::write(
        w.ansa_home().join("config.json"),
        r#"{"models":{"gpt-5.5":{"reasoning":true},"gpt-6.1-sol":{"reasoning":true}}}"#,
    )
    .unwrap();
}

/// A final-answer stream reporting `model`.
fn text_stream(model: &str) -> MockResponse {
    let text = fixture("responses-text.sse")
        .replace("\"model\":\"gpt-5.5\"", &format!("\"model\":\"{model}\""));
    MockResponse::sse_text(&text, 4096)
}

/// `ansa --live-jsonl --session DIR EXTRA…` against `mock`.
fn live(w: &World, mock: &MockProvider, extra: &[&str]) -> Jsonl {
    let dir = w.path("session");
    let mut args = vec!["--live-jsonl", "--session", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut c = w.command(&args);
    for (k, v) in live_env(mock, "responses") {
        c.env(k, v);
    }
    Jsonl::spawn(c)
}

fn model_and_effort(body: &Value) -> (String, Value) {
    (
        body["model"].as_str().unwrap_or_default().to_owned(),
        body["reasoning"]["effort"].clone(),
    )
}

#[test]
fn a_model_command_rebinds_the_following_requests_and_is_journaled_first() {
    let w = World::new();
    reasoning_config(&w);
    let mock = MockProvider::http();
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    mock.push("/v1/responses", text_stream("gpt-5.5"));
    mock.push("/v1/responses", text_stream("gpt-6.1-sol"));
    let mut s = live(&w, &mock, &[]);
    let first = s.submit("one");
    s.answer(first);
    let id = s.send("model", json!({"model": "gpt-6.1-sol", "effort": "high"}));
    let rebound = s.expect_type("rebound", &[("command_id", json!(id))]);
    assert_eq!(rebound["from"]["model"], "gpt-5.5", "{rebound}");
    assert_eq!(rebound["to"]["model"], "gpt-6.1-sol", "{rebound}");
    assert_eq!(rebound["to"]["effort"], "high", "{rebound}");
    assert_eq!(rebound["source"], "command", "{rebound}");
    // Durable before it is published: the journal has it before the next turn's request.
    assert!(journal_text(&w.path("session")).contains("\"kind\":\"rebinding\""));
    assert_eq!(mock.requests_to("/v1/responses").len(), 1);
    let second = s.submit("two");
    s.answer(second);
    s.finish();
    let sent: Vec<(String, Value)> = mock
        .requests_to("/v1/responses")
        .iter()
        .map(|r| model_and_effort(&r.json()))
        .collect();
    assert_eq!(
        sent,
        [
            ("gpt-5.5".to_owned(), Value::Null),
            ("gpt-6.1-sol".to_owned(), json!("high")),
        ]
    );
}

#[test]
fn an_unknown_model_or_effort_is_refused_with_the_list_and_nothing_changes() {
    let w = World::new();
    reasoning_config(&w);
    let mock = MockProvider::http();
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    let mut s = live(&w, &mock, &[]);
    let id = s.send("model", json!({"model": "gpt-9-imaginary"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "model_refused", "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("`gpt-9-imaginary` is not in the provider's catalog")
            && message.contains("known models: gpt-5.5, gpt-6.1-sol"),
        "{message}"
    );
    let id = s.send(
        "model",
        json!({"model": "gpt-6.1-sol", "effort": "minimal"}),
    );
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("takes the reasoning efforts low, medium, high, not `minimal`"),
        "{err}"
    );
    s.finish();
    assert!(mock.requests_to("/v1/responses").is_empty());
    assert!(!journal_text(&w.path("session")).contains("\"kind\":\"rebinding\""));
}

#[test]
fn model_on_a_reopened_session_rebinds_at_open_and_an_unlisted_one_is_refused_before_any_request() {
    let w = World::new();
    reasoning_config(&w);
    let mock = MockProvider::http();
    mock.push("/v1/responses", text_stream("gpt-5.5"));
    let mut s = live(&w, &mock, &[]);
    let first = s.submit("one");
    s.answer(first);
    s.finish();
    // Not in the catalog: refused with the list, before any request but the catalog's.
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    let dir = w.path("session");
    let mut c = w.command(&[
        "--session",
        dir.to_str().unwrap(),
        "--model",
        "nope-1",
        "again",
    ]);
    for (k, v) in live_env(&mock, "responses") {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "`nope-1` is not in the provider's catalog; known models: gpt-5.5, gpt-6.1-sol"
        ),
        "{stderr}"
    );
    assert_eq!(mock.requests_to("/v1/responses").len(), 1);
    // A listed one: recorded at open, announced, and used by the next request.
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    mock.push("/v1/responses", text_stream("gpt-6.1-sol"));
    let mut s = live(&w, &mock, &["--model", "gpt-6.1-sol", "--effort", "low"]);
    let rebound = s.expect_type("rebound", &[("source", json!("open"))]);
    assert_eq!(rebound["command_id"], Value::Null);
    assert_eq!(rebound["to"]["model"], "gpt-6.1-sol");
    let second = s.submit("two");
    s.answer(second);
    s.finish();
    let last = mock.requests_to("/v1/responses").last().unwrap().json();
    assert_eq!(
        model_and_effort(&last),
        ("gpt-6.1-sol".to_owned(), json!("low"))
    );
    // Reopened without --model: the session keeps the model in force, no new rebinding.
    mock.push("/v1/responses", text_stream("gpt-6.1-sol"));
    let mut s = live(&w, &mock, &[]);
    let third = s.submit("three");
    s.answer(third);
    s.finish();
    let last = mock.requests_to("/v1/responses").last().unwrap().json();
    assert_eq!(
        model_and_effort(&last),
        ("gpt-6.1-sol".to_owned(), json!("low"))
    );
    assert_eq!(
        journal_text(&dir).matches("\"kind\":\"rebinding\"").count(),
        1
    );
}

/// The request bodies to `/v1/responses`, byte for byte.
fn bodies(mock: &MockProvider) -> Vec<Vec<u8>> {
    mock.requests_to("/v1/responses")
        .into_iter()
        .map(|r| r.body)
        .collect()
}

#[test]
fn after_a_sigkill_the_resumed_request_is_the_same_bytes_under_the_binding_it_started_with() {
    let w = World::new();
    reasoning_config(&w);
    let mock = MockProvider::http();
    mock.push("/v1/models", MockResponse::json(200, CATALOG));
    mock.push("/v1/responses", text_stream("gpt-5.5"));
    // The second turn's stream starts and never ends: the process is killed meanwhile.
    let created = fixture("responses-text.sse")
        .split("\n\n")
        .next()
        .unwrap()
        .replace("gpt-5.5", "gpt-6.1-sol")
        + "\n\n";
    mock.push("/v1/responses", MockResponse::sse([created]).stall());
    let mut s = live(&w, &mock, &[]);
    let first = s.submit("one");
    s.answer(first);
    let id = s.send("model", json!({"model": "gpt-6.1-sol", "effort": "medium"}));
    s.expect_type("rebound", &[("command_id", json!(id))]);
    let second = s.submit("two");
    crate::harness::eventually("the second request", || {
        mock.requests_to("/v1/responses").len() == 2
    });
    s.kill();
    // Reopened after the crash; the interrupted turn is resumed.
    mock.push("/v1/responses", text_stream("gpt-6.1-sol"));
    let mut s = live(&w, &mock, &[]);
    s.send("resume", json!({"target": second}));
    s.answer(second);
    s.finish();
    let sent = bodies(&mock);
    assert_eq!(sent.len(), 3);
    assert_eq!(
        String::from_utf8_lossy(&sent[2]),
        String::from_utf8_lossy(&sent[1]),
        "the resumed request differs from the one the crash cut"
    );
    let body: Value = serde_json::from_slice(&sent[2]).unwrap();
    assert_eq!(
        model_and_effort(&body),
        ("gpt-6.1-sol".to_owned(), json!("medium"))
    );
    let first_body: Value = serde_json::from_slice(&sent[0]).unwrap();
    assert_eq!(
        model_and_effort(&first_body),
        ("gpt-5.5".to_owned(), Value::Null)
    );
}

/// An offline script with a catalog of its own.
fn scripted(w: &World) -> std::path::PathBuf {
    let p = w.path("models.json");
    std::fs::write(
        &p,
        json!({
            "models": [{"id": "alpha"}, {"id": "beta", "efforts": ["low", "high"]}],
            "turns": [{"text": "one"}, {"text": "two"}]
        })
        .to_string(),
    )
    .unwrap();
    p
}

fn offline(w: &World, script: &Path, extra: &[&str]) -> Jsonl {
    let dir = w.path("session");
    let mut args = vec![
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    w.jsonl_with(&args, &[("AI_MODEL", "alpha")])
}

#[test]
fn a_scripted_session_switches_within_its_catalog_and_refuses_the_rest() {
    let w = World::new();
    let script = scripted(&w);
    let mut s = offline(&w, &script, &[]);
    s.send("models", json!({}));
    let catalog = s.expect_type("model_catalog", &[]);
    assert_eq!(
        catalog["models"],
        json!([{"id": "alpha", "efforts": []}, {"id": "beta", "efforts": ["low", "high"]}])
    );
    assert_eq!(catalog["current"]["model"], "alpha");
    let id = s.send("model", json!({"model": "gamma"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("known models: alpha, beta"),
        "{err}"
    );
    let id = s.send("model", json!({"model": "alpha", "effort": "high"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("takes no reasoning effort"),
        "{err}"
    );
    let id = s.send("model", json!({"model": "beta", "effort": "high"}));
    s.expect_type("rebound", &[("command_id", json!(id))]);
    let id = s.send("model", json!({"model": "beta", "effort": "high"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("already uses beta"),
        "{err}"
    );
    let r = s.submit("go");
    assert_eq!(s.answer(r), "one");
    s.finish();
    let journal = journal_text(&w.path("session"));
    assert_eq!(journal.matches("\"kind\":\"rebinding\"").count(), 1);
    assert!(
        journal.contains(r#""to":{"model":"beta","returned_model":"beta","reasoning":true,"effort":"high"},"source":"command""#),
        "{journal}"
    );
    // A bad `effort` is a parse error naming the field.
    let mut s = offline(&w, &script, &[]);
    let id = s.send("model", json!({"model": "beta", "effort": "extreme"}));
    let err = s.expect("a parse error", |e| e["type"] == "error");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("`extreme` is not a reasoning effort"),
        "{err} {id}"
    );
    s.finish();
}

#[test]
fn the_config_naming_another_model_than_the_sessions_is_refused_with_what_to_do() {
    let w = World::new();
    let script = scripted(&w);
    let mut s = offline(&w, &script, &[]);
    let r = s.submit("go");
    s.answer(r);
    s.finish();
    let dir = w.path("session");
    let out = w
        .command(&[
            "--offline",
            "--session",
            dir.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "again",
        ])
        .env("AI_MODEL", "beta")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("runs the model `alpha`")
            && stderr.contains("asks for `beta`: pass --model beta"),
        "{stderr}"
    );
}
