//! Prompt caching (issue 44 item 6): every Responses request of a session carries the
//! session's id as `prompt_cache_key`, and the prefix a provider caches — the instructions,
//! the tools and the input items up to the first one that changed — is byte-identical from
//! request to request: across tool rounds, turns, a compaction and a resume in a new process.
//! The cached input tokens the provider reports are summed in the session's usage and survive
//! the resume (they are journaled with the usage).

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::harness::{Jsonl, World};
use crate::live::live_env;
use crate::mock_provider::{MockProvider, MockResponse};
use crate::responses_script::{self, Turn};

/// The parts of a request body a provider's prompt cache keys on, as the exact bytes sent.
#[derive(serde::Deserialize)]
struct Prefix<'a> {
    #[serde(borrow)]
    prompt_cache_key: Option<&'a str>,
    #[serde(borrow)]
    instructions: &'a RawValue,
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Vec<&'a RawValue>,
}

/// The SSE body of generation `n`, reporting `cached` input tokens served from the cache.
fn generation(n: usize, turn: &Turn, cached: u64) -> MockResponse {
    let stream = responses_script::stream(n, turn).replace(
        "\"cached_tokens\":0",
        &format!("\"cached_tokens\":{cached}"),
    );
    MockResponse::sse([stream])
}

fn read(path: &'static str) -> Turn {
    Turn::Calls(vec![(
        "read",
        json!({"paths": [path], "mode": "lines", "offset": 1, "length": 600}),
    )])
}

fn session(w: &World, mock: &MockProvider) -> Jsonl {
    let dir = w.path("session");
    let mut c = w.command(&[
        "--live-jsonl",
        "--session",
        dir.to_str().unwrap(),
        "--compact-bytes",
        "16384",
    ]);
    for (k, v) in live_env(mock, "responses") {
        c.env(k, v);
    }
    Jsonl::spawn(c)
}

/// How many leading input items two requests share, byte for byte.
fn shared_items(a: &Prefix<'_>, b: &Prefix<'_>) -> usize {
    a.input
        .iter()
        .zip(&b.input)
        .take_while(|(x, y)| x.get() == y.get())
        .count()
}

#[test]
fn a_sessions_requests_share_their_cache_key_and_a_byte_identical_prefix() {
    let w = World::new();
    let big: String = (0..600)
        .map(|n| format!("line {n:04} of the big file\n"))
        .collect();
    std::fs::write(w.ws().join("big.txt"), big).unwrap();
    std::fs::write(w.ws().join("notes.txt"), "the secret number is 42\n").unwrap();
    let mock = MockProvider::http();
    let script = [
        (read("big.txt"), 0),
        (Turn::Text("t1"), 900),
        (Turn::Text("t2"), 900),
        (read("notes.txt"), 900),
        (Turn::Text("t3"), 900),
        // The compaction's summary request, before the fourth turn.
        (Turn::Text("the user read two files"), 0),
        (Turn::Text("t4"), 700),
    ];
    for (n, (turn, cached)) in script.iter().enumerate() {
        mock.push("/v1/responses", generation(n, turn, *cached));
    }
    let mut s = session(&w, &mock);
    for (n, task) in ["read big.txt", "again", "read notes.txt", "and now?"]
        .iter()
        .enumerate()
    {
        let rid = s.submit(task);
        assert_eq!(s.answer(rid), format!("t{}", n + 1), "{}", s.stderr());
    }
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(
        snap["usage"]["cached_tokens"],
        json!(900 * 4 + 700),
        "{snap}"
    );
    s.finish();
    let journal = crate::harness::journal_text(&w.path("session"));
    assert!(
        journal.contains("\"method\":\"live\""),
        "the session was compacted by the provider: {journal}"
    );

    // Resumed in a new process: the same key, the same prefix.
    mock.push("/v1/responses", generation(7, &read("notes.txt"), 800));
    mock.push("/v1/responses", generation(8, &Turn::Text("t5"), 800));
    let mut s = session(&w, &mock);
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(
        snap["usage"]["cached_tokens"],
        json!(900 * 4 + 700),
        "cached tokens are journaled with the usage: {snap}"
    );
    let rid = s.submit("once more");
    assert_eq!(s.answer(rid), "t5", "{}", s.stderr());
    s.finish();

    let id = ansa_sessions::SessionMeta::read(&w.path("session"))
        .unwrap()
        .id
        .to_string();
    let requests = mock.requests_to("/v1/responses");
    assert_eq!(requests.len(), 9);
    let bodies: Vec<Vec<u8>> = requests.iter().map(|r| r.body.clone()).collect();
    let parsed: Vec<Prefix<'_>> = bodies
        .iter()
        .map(|b| serde_json::from_slice(b).unwrap())
        .collect();
    for (n, p) in parsed.iter().enumerate() {
        assert_eq!(p.prompt_cache_key, Some(id.as_str()), "request {n}");
    }
    let summary = 5;
    let compaction_prompt = serde_json::to_string(ansa::provider::COMPACTION_PROMPT).unwrap();
    assert_eq!(parsed[summary].instructions.get(), compaction_prompt);
    let main: Vec<(usize, &Prefix<'_>)> = parsed
        .iter()
        .enumerate()
        .filter(|(n, _)| *n != summary)
        .collect();
    let tools = main[0].1.tools.map(RawValue::get);
    assert!(tools.is_some_and(|t| t.contains("\"read\"")), "{tools:?}");
    for (n, p) in &main {
        assert_eq!(
            p.instructions.get(),
            main[0].1.instructions.get(),
            "instructions of request {n}"
        );
        assert_eq!(p.tools.map(RawValue::get), tools, "tools of request {n}");
    }
    for pair in main.windows(2) {
        let ((a, before), (b, after)) = (pair[0], pair[1]);
        let shared = shared_items(before, after);
        if (a, b) == (4, 6) {
            // Compaction replaced the history after the environment and the first task,
            // which stay first and unchanged.
            assert!(shared >= 2, "requests {a} → {b} share {shared} items");
            assert!(shared < before.input.len());
        } else {
            // Every other request extends the one before it (request 6 → 7: the resume).
            assert_eq!(
                shared,
                before.input.len(),
                "request {b} changed item {shared} of request {a}:\n{}\n{}",
                before.input[shared].get(),
                after.input[shared].get()
            );
        }
    }

    // Another session has its own key.
    let other = World::new();
    let mock2 = MockProvider::http();
    mock2.push("/v1/responses", generation(0, &Turn::Text("hi"), 0));
    let mut s = session(&other, &mock2);
    let rid = s.submit("hello");
    assert_eq!(s.answer(rid), "hi");
    s.finish();
    let other_id = ansa_sessions::SessionMeta::read(&other.path("session"))
        .unwrap()
        .id
        .to_string();
    assert_ne!(other_id, id);
    let body: Value = mock2.requests_to("/v1/responses")[0].json();
    assert_eq!(body["prompt_cache_key"], json!(other_id));
}
