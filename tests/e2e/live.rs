//! Live sessions over `--live-jsonl` and one-shot against the mock provider (HTTP and HTTPS
//! with a test CA): recorded Responses and Chat streams drive real tools; the exact wire shape
//! of every request is checked; broken streams never run a tool and Resume retries safely.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Jsonl, World};
use crate::mock_provider::{MockProvider, MockResponse};

pub(crate) fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec/sse")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `usage.input_tokens` of a stream's `response.completed` event.
fn input_tokens(stream: &str) -> u64 {
    let data = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|d| d.contains("\"type\":\"response.completed\""))
        .unwrap();
    let v: Value = serde_json::from_str(data).unwrap();
    v["response"]["usage"]["input_tokens"].as_u64().unwrap()
}

/// The raw `item` of every `output_item.done` event of a Responses stream, byte for byte.
fn done_items(stream: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Done<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        #[serde(borrow)]
        item: Option<&'a serde_json::value::RawValue>,
    }
    stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Done<'_>>(d).ok())
        .filter(|d| d.kind == "response.output_item.done")
        .filter_map(|d| d.item.map(|i| i.get().to_owned()))
        .collect()
}

/// The environment that points `ansa` at `mock` speaking `wire`.
pub(crate) fn live_env(mock: &MockProvider, wire: &str) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("AI_PROVIDER", wire.to_owned()),
        ("AI_ENDPOINT", mock.base_url()),
        ("AI_API_KEY", "sk-test-key".to_owned()),
        ("AI_MODEL", "gpt-5.5".to_owned()),
    ];
    if let Some(ca) = mock.ca_file() {
        env.push(("AI_CA_FILE", ca.display().to_string()));
    }
    env
}

/// `ansa ARGS` in `w` against `mock` speaking `wire`.
fn live_command(
    w: &World,
    mock: &MockProvider,
    wire: &str,
    args: &[&str],
) -> std::process::Command {
    let mut c = w.command(args);
    for (k, v) in live_env(mock, wire) {
        c.env(k, v);
    }
    c
}

fn live_jsonl(w: &World, env: &[(&str, String)]) -> Jsonl {
    let mut c = w.command(&[
        "--live-jsonl",
        "--session",
        w.path("session").to_str().unwrap(),
    ]);
    for (k, v) in env {
        c.env(k, v);
    }
    Jsonl::spawn(c)
}

fn notes(w: &World) {
    std::fs::write(w.ws().join("notes.txt"), "the secret number is 42\n").unwrap();
}

#[test]
fn responses_session_over_https_resends_output_items_exactly() {
    let w = World::new();
    notes(&w);
    let mock = MockProvider::https();
    let tool = fixture("responses-tool.sse");
    mock.push("/v1/responses", MockResponse::sse_text(&tool, 700));
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 333),
    );
    let env = live_env(&mock, "responses");
    let mut s = live_jsonl(&w, &env);
    assert_eq!(s.session, "live");
    let rid = s.submit("what is in notes.txt?");
    s.expect_type(
        "tool_status",
        &[("tool", json!("read")), ("status", json!("finished"))],
    );
    assert_eq!(s.answer(rid), "Hello from the model. The answer is 42.");
    // Usage is summed over both generations and reported in events and the snapshot.
    let expected = input_tokens(&tool) + input_tokens(&fixture("responses-text.sse"));
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["usage"]["input_tokens"], json!(expected), "{snap}");
    let usage_events = s.seen.iter().filter(|e| e["type"] == "usage").count();
    assert_eq!(usage_events, 2);
    s.finish();

    let requests = mock.requests_to("/v1/responses");
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-test-key")
    );
    let first = requests[0].json();
    assert_eq!(first["stream"], true);
    assert_eq!(first["store"], false);
    assert_eq!(first["model"], "gpt-5.5");
    // ansa's base prompt leads the instructions; the session's environment message comes
    // before the first task, and the live profile offers only real tools.
    assert!(
        first["instructions"]
            .as_str()
            .unwrap()
            .starts_with(ansa::prompt::BASE)
    );
    let input = first["input"].as_array().unwrap();
    assert_eq!(input.len(), 2, "{input:?}");
    assert_eq!(input[0]["role"], "user");
    let environment = input[0]["content"].as_str().unwrap();
    assert!(
        environment.starts_with("<environment>\ncwd: ") && environment.contains("\nos: linux "),
        "{environment}"
    );
    assert_eq!(
        input[1],
        json!({"role": "user", "content": "what is in notes.txt?"})
    );
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"read") && tools.contains(&"exec") && !tools.contains(&"get_test_value"),
        "{tools:?}"
    );
    assert!(
        first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["strict"] == true)
    );

    let second = String::from_utf8(requests[1].body.clone()).unwrap();
    for item in done_items(&tool) {
        assert!(
            second.contains(&item),
            "output item not re-sent exactly: {item}"
        );
    }
    let body: Value = serde_json::from_str(&second).unwrap();
    let input = body["input"].as_array().unwrap();
    let output = input.last().unwrap();
    assert_eq!(output["type"], "function_call_output");
    assert_eq!(output["call_id"], "call_waIINYNvDMbZoOlJLl3fZJZ2");
    assert!(
        output["output"]
            .as_str()
            .unwrap()
            .contains("the secret number is 42")
    );
}

#[test]
fn chat_session_over_http_assembles_tool_calls_and_answers() {
    let w = World::new();
    notes(&w);
    let mock = MockProvider::http();
    mock.push(
        "/v1/chat/completions",
        MockResponse::sse_text(&fixture("chat-tool.sse"), 97),
    );
    mock.push(
        "/v1/chat/completions",
        MockResponse::sse_text(&fixture("chat-text.sse"), 1),
    );
    let env = live_env(&mock, "chat");
    let mut s = live_jsonl(&w, &env);
    let rid = s.submit("what is in notes.txt?");
    s.expect_type(
        "tool_status",
        &[("tool", json!("read")), ("status", json!("finished"))],
    );
    let answer = s.answer(rid);
    assert!(!answer.is_empty());
    s.finish();
    let requests = mock.requests_to("/v1/chat/completions");
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    assert_eq!(first["stream_options"], json!({"include_usage": true}));
    let second = requests[1].json();
    let messages = second["messages"].as_array().unwrap();
    let assistant = messages.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "read");
    let tool = messages.last().unwrap();
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], assistant["tool_calls"][0]["id"]);
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("the secret number is 42")
    );
}

#[test]
fn a_cut_stream_runs_nothing_and_is_retried_without_rerunning_tools() {
    let w = World::new();
    notes(&w);
    let mock = MockProvider::http();
    let tool = fixture("responses-tool.sse");
    // Cut in the middle of the stream: the function call is never admitted; the retry that
    // follows by itself streams it whole.
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&tool, 512).drop_after(tool.len() / 2),
    );
    mock.push("/v1/responses", MockResponse::sse_text(&tool, 4096));
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 4096),
    );
    let env = live_env(&mock, "responses");
    let mut s = live_jsonl(&w, &env);
    let rid = s.submit("read it");
    let retry = s.expect_type("retrying", &[("request_id", json!(rid))]);
    assert_eq!(retry["reason"], "connection lost", "{retry}");
    assert!(
        !s.seen.iter().any(|e| e["type"] == "tool_status"),
        "a tool ran from a cut stream"
    );
    assert_eq!(s.answer(rid), "Hello from the model. The answer is 42.");
    assert_eq!(s.tools_started(), 1);
    s.finish();
    assert_eq!(mock.requests_to("/v1/responses").len(), 3);
}

#[test]
fn a_wrong_model_is_not_admitted() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-tool.sse"), 4096),
    );
    let mut env = live_env(&mock, "responses");
    env.retain(|(k, _)| *k != "AI_MODEL");
    env.push(("AI_MODEL", "gpt-other".to_owned()));
    let mut s = live_jsonl(&w, &env);
    let rid = s.submit("read it");
    let paused = s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("paused"))],
    );
    assert!(
        paused["reason"].as_str().unwrap().contains("gpt-other"),
        "{paused}"
    );
    assert!(!s.seen.iter().any(|e| e["type"] == "tool_status"));
    s.finish();
}

#[test]
fn an_auth_failure_exits_4_in_one_shot() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::openai_error(401, "invalid_api_key", "Incorrect API key provided"),
    );
    let out = live_command(&w, &mock, "responses", &["what?"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("sk-test-key"));
}

#[test]
fn models_lists_the_catalog() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push("/v1/models", MockResponse::json(200, r#"{"object":"list","data":[{"id":"gpt-5.5","object":"model"},{"id":"gpt-6.1-sol","object":"model"}]}"#));
    let out = live_command(&w, &mock, "responses", &["--models"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "gpt-5.5\ngpt-6.1-sol\n"
    );
}

/// Runs one turn whose first model response is `first`; returns the paused reason.
fn paused_by(first: MockResponse) -> (String, World, MockProvider) {
    let w = World::new();
    notes(&w);
    let mock = MockProvider::http();
    mock.push("/v1/responses", first);
    let env = live_env(&mock, "responses");
    let mut s = live_jsonl(&w, &env);
    let rid = s.submit("read it");
    let ended = s.expect("the turn to stop", |e| {
        e["type"] == "turn_state"
            && e["request_id"] == json!(rid)
            && (e["state"] == "paused" || e["state"] == "failed")
    });
    assert!(
        !s.seen.iter().any(|e| e["type"] == "tool_status"),
        "a tool ran from an unadmitted response: {:?}",
        s.seen
    );
    s.finish();
    let reason = format!(
        "{} {}",
        ended["state"],
        ended["reason"].as_str().unwrap_or("")
    );
    (reason, w, mock)
}

fn without_event(stream: &str, kind: &str) -> String {
    stream
        .split("\n\n")
        .filter(|e| !e.starts_with(&format!("event: {kind}\n")))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[test]
fn stream_faults_never_run_a_tool_and_pause_with_the_reason() {
    let tool = fixture("responses-tool.sse");
    let cases: Vec<(&str, MockResponse, &str)> = vec![
        (
            "missing terminal event",
            MockResponse::sse_text(&without_event(&tool, "response.completed"), 300),
            "paused",
        ),
        (
            "sequence gap",
            MockResponse::sse_text(&without_event(&tool, "response.in_progress"), 300),
            "sequence",
        ),
        (
            "unknown event type",
            MockResponse::sse_text(
                &tool.replace("response.in_progress", "response.surprise"),
                300,
            ),
            "response.surprise",
        ),
        (
            "wrong MIME",
            MockResponse::sse_text(&tool, 300)
                .without_header("content-type")
                .header("content-type", "text/html"),
            "text/html",
        ),
        (
            "redirect",
            MockResponse::redirect(302, "http://127.0.0.1:9/elsewhere"),
            "redirect",
        ),
        (
            "context length",
            MockResponse::openai_error(
                400,
                "context_length_exceeded",
                "This model's maximum context length is 8192 tokens",
            ),
            "failed",
        ),
    ];
    for (name, response, expect) in cases {
        let (reason, _w, mock) = paused_by(response);
        assert!(
            reason.to_lowercase().contains(&expect.to_lowercase()),
            "{name}: {reason}"
        );
        assert!(
            mock.requests().iter().all(|r| r.path.starts_with("/v1/")),
            "{name}: a redirect was followed"
        );
    }
}

#[test]
fn a_429_with_retry_after_and_a_500_are_retried_before_any_byte() {
    let w = World::new();
    notes(&w);
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::openai_error(429, "rate_limit_exceeded", "slow down")
            .header("retry-after", "1"),
    );
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-tool.sse"), 4096),
    );
    mock.push(
        "/v1/responses",
        MockResponse::openai_error(500, "server_error", "oops"),
    );
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 4096),
    );
    let env = live_env(&mock, "responses");
    let mut s = live_jsonl(&w, &env);
    let t = std::time::Instant::now();
    let rid = s.submit("read it");
    // Each retry is announced before its wait, so a frontend can say why it is waiting.
    let first = s.expect_type("retrying", &[("request_id", json!(rid))]);
    assert_eq!(
        (&first["attempt"], &first["of"], &first["delay_ms"]),
        (&json!(2), &json!(6), &json!(1000)),
        "{first}"
    );
    assert_eq!(first["reason"], "429 Too Many Requests");
    let second = s.expect_type("retrying", &[("request_id", json!(rid))]);
    assert_eq!(
        second["attempt"], 2,
        "a new request starts counting again: {second}"
    );
    assert_eq!(second["reason"], "500 Internal Server Error");
    assert_eq!(s.answer(rid), "Hello from the model. The answer is 42.");
    assert!(
        t.elapsed() >= std::time::Duration::from_secs(1),
        "retry-after was not honoured"
    );
    assert_eq!(s.tools_started(), 1);
    s.finish();
    assert_eq!(mock.requests_to("/v1/responses").len(), 4);
}

#[test]
fn a_context_length_error_compacts_once_with_a_live_summary_then_retries() {
    let w = World::new();
    let mock = MockProvider::http();
    let text = fixture("responses-text.sse");
    for _ in 0..3 {
        mock.push("/v1/responses", MockResponse::sse_text(&text, 4096));
    }
    mock.push(
        "/v1/responses",
        MockResponse::openai_error(
            400,
            "context_length_exceeded",
            "maximum context length exceeded",
        ),
    );
    mock.push("/v1/responses", MockResponse::sse_text(&text, 4096)); // the summary
    mock.push("/v1/responses", MockResponse::sse_text(&text, 4096)); // the retried generation
    let env = live_env(&mock, "responses");
    let mut s = live_jsonl(&w, &env);
    for n in 1..=4 {
        let rid = s.submit(&format!("task {n}"));
        assert_eq!(s.answer(rid), "Hello from the model. The answer is 42.");
    }
    s.finish();
    let requests = mock.requests_to("/v1/responses");
    assert_eq!(requests.len(), 6);
    let summary = requests[4].json();
    assert!(
        summary.get("tools").is_none(),
        "the compaction request offers no tools"
    );
    assert!(
        summary["instructions"]
            .as_str()
            .unwrap()
            .starts_with("Summarise the conversation")
    );
    let retried = String::from_utf8(requests[5].body.clone()).unwrap();
    assert!(
        retried.contains("Summary of the earlier conversation"),
        "{retried}"
    );
    let journal = crate::harness::journal_text(&w.path("session"));
    assert!(journal.contains("\"method\":\"live\""));
    assert_eq!(journal.matches("\"kind\":\"usage\"").count(), 5);
}

#[test]
fn model_flags_bind_the_requested_and_the_exact_returned_model() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 4096),
    );
    let out = live_command(
        &w,
        &mock,
        "responses",
        &[
            "--model",
            "gpt-alias",
            "--returned-model",
            "gpt-5.5",
            "hello",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Hello from the model. The answer is 42.\n"
    );
    assert_eq!(
        mock.requests_to("/v1/responses")[0].json()["model"],
        "gpt-alias"
    );
}

#[test]
fn a_rejected_reasoning_parameter_names_the_setting_to_change() {
    let w = World::new();
    let mock = MockProvider::http();
    let body = r#"{"error":{"message":"Unsupported parameter: 'reasoning.summary' is not supported with this model.","type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_parameter"}}"#;
    mock.push("/v1/responses", MockResponse::json(400, body));
    // A loopback server gets no reasoning parameters unless the config asks for them.
    std::fs::write(
        w.ansa_home().join("config.json"),
        r#"{"models":{"gpt-5.5":{"reasoning":true}}}"#,
    )
    .unwrap();
    let out = live_command(&w, &mock, "responses", &["what?"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("does not accept the request parameter `reasoning.summary`")
            && stderr.contains(r#""models": {"gpt-5.5": {"reasoning": false}}"#),
        "{stderr}"
    );
    let sent = mock.requests_to("/v1/responses")[0].json();
    assert_eq!(sent["reasoning"], json!({"summary": "auto"}));
    assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
}

#[test]
fn a_loopback_server_gets_no_reasoning_parameters_by_default() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 333),
    );
    let out = live_command(&w, &mock, "responses", &["hi"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = mock.requests_to("/v1/responses")[0].json();
    assert!(
        sent.get("reasoning").is_none() && sent.get("include").is_none(),
        "{sent}"
    );
}
