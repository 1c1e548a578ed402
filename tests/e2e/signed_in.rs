//! The live path on a signed-in ChatGPT account, end to end: `ansa --login` against the real
//! test issuer (HTTPS, headless browser), then live JSONL sessions against the mock Responses
//! API on HTTPS, which accepts only the access token the store holds now. Covers the refresh
//! in the worker when the token is due, the catalog check once per sign-in, a refused token
//! refreshed once and retried, sign-out stopping a running request, Resume after a new
//! sign-in of the same account, and another account needing a new session. The ones that sign
//! in are ignored by `cargo test` (they need the issuer's modules and a browser) and run by
//! `cargo xtask test`; run by hand without them, they fail and say how to install them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::auth::{Signing, json as json_line, signing_with};
use crate::harness::{Jsonl, eventually};
use crate::mock_provider::{Gate, MockChunk, MockProvider, MockResponse};
use crate::oidc::{assert_backend, saved};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec/sse")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

const ANSWER: &str = "Hello from the model. The answer is 42.";

fn catalog() -> MockResponse {
    MockResponse::json(200, r#"{"data":[{"id":"gpt-4.1"},{"id":"gpt-5.5"}]}"#)
}

fn answer() -> MockResponse {
    MockResponse::sse_text(&fixture("responses-text.sse"), 333)
}

/// A signed-in world, the mock API and what the mock's gatekeeper consults.
struct Live {
    s: Signing,
    mock: MockProvider,
    /// Both test CAs (the issuer's and the mock's), for `AI_CA_FILE`.
    roots: PathBuf,
    /// Tokens the API refuses although the store holds them (a server-side expiry).
    refused: Arc<Mutex<HashSet<String>>>,
    /// Refuse every token.
    refuse_all: Arc<AtomicBool>,
}

impl Live {
    fn access_token(&self) -> String {
        saved(&self.s.w.ansa_home().join("auth"))
            .expect("signed in")
            .access_token
    }

    fn ansa(&self, args: &[&str]) -> std::process::Output {
        self.s
            .w
            .command(args)
            .env("AI_CA_FILE", &self.roots)
            .env("BROWSER", &self.s.script)
            .output()
            .unwrap()
    }

    fn login(&self) {
        let out = self.ansa(&["--login"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn session(&self, session: &str) -> Jsonl {
        let mut c = self.s.w.command(&[
            "--live-jsonl",
            "--session",
            self.s.w.path(session).to_str().unwrap(),
        ]);
        c.env("AI_PROVIDER", "responses")
            .env("AI_ENDPOINT", self.mock.base_url())
            .env("AI_MODEL", "gpt-5.5")
            .env("AI_CA_FILE", &self.roots);
        Jsonl::spawn(c)
    }

    /// Bearer tokens of the requests the mock got for `path`.
    fn bearers(&self, path: &str) -> Vec<String> {
        self.mock
            .requests_to(path)
            .iter()
            .map(|r| {
                r.header("authorization")
                    .and_then(|h| h.strip_prefix("Bearer "))
                    .unwrap_or("")
                    .to_owned()
            })
            .collect()
    }

    /// Makes later sign-ins at the issuer sign in as `sub`.
    fn switch_account(&self, sub: &str) {
        self.s.control(&format!("/test/account?sub={sub}"));
    }
}

/// Signs in (issuer environment `env`) and starts the mock API that accepts only the store's
/// current access token.
fn live(env: &[(&str, &str)]) -> Live {
    let s = signing_with(env);
    let mock = MockProvider::https();
    let roots = s.w.path("roots.pem");
    std::fs::write(&roots, format!("{}{}", s.ca_pem, mock.ca_pem().unwrap())).unwrap();
    let refused = Arc::new(Mutex::new(HashSet::new()));
    let refuse_all = Arc::new(AtomicBool::new(false));
    let auth = s.w.ansa_home().join("auth");
    let (gate_refused, gate_all) = (Arc::clone(&refused), Arc::clone(&refuse_all));
    mock.require_bearer(move |bearer| {
        let Some(bearer) = bearer else { return false };
        let current = saved(&auth).map(|c| c.access_token);
        current.as_deref() == Some(bearer)
            && !gate_all.load(Ordering::SeqCst)
            && !gate_refused.lock().unwrap().contains(bearer)
    });
    let l = Live {
        s,
        mock,
        roots,
        refused,
        refuse_all,
    };
    l.login();
    assert_backend(&l.s.w.ansa_home().join("auth"));
    l
}

fn paused(s: &mut Jsonl, rid: u64) -> String {
    let ev = s.expect("the turn pauses", |e| {
        e["type"] == "turn_state" && e["request_id"] == json!(rid) && e["state"] == "paused"
    });
    ev["reason"].as_str().unwrap_or("").to_owned()
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_signed_in_account_is_the_bearer_and_a_due_token_is_refreshed_in_the_worker() {
    // Tokens live 303 s: with the 300 s refresh margin they are due 3 s after issue.
    let l = live(&[("ISSUER_ACCESS_TTL", "303")]);
    let signed_at = Instant::now();
    let first_token = l.access_token();
    let status = json_line(&l.ansa(&["--auth-status"]));
    let hash = status["account_hash"].as_str().unwrap().to_owned();

    l.mock.push("/v1/models", catalog());
    l.mock.push("/v1/responses", answer());
    l.mock.push("/v1/responses", answer());
    let mut s = l.session("session");
    // Opening the session sends nothing.
    assert!(l.mock.requests().is_empty());
    let rid = s.submit("hello");
    assert_eq!(s.answer(rid), ANSWER);
    // The token is due now: the next task refreshes it in the worker, then uses it. A due
    // refresh costs one round trip to the issuer (the token request: discovery is kept from
    // sign-in), a fresh token none.
    let due = Duration::from_millis(3500);
    std::thread::sleep(due.saturating_sub(signed_at.elapsed()));
    let before = l.s.issuer_requests();
    let rid = s.submit("again");
    assert_eq!(s.answer(rid), ANSWER, "{}", s.stderr());
    assert_eq!(
        l.s.issuer_requests() - before,
        1,
        "one round trip for the refresh"
    );
    s.finish();

    let used = l.bearers("/v1/responses");
    assert_eq!(used.len(), 2);
    assert_ne!(
        used[1], first_token,
        "the second task used a refreshed token"
    );
    assert_eq!(used[1], l.access_token());
    // The catalog was checked once, for this sign-in, before the first generation.
    assert_eq!(l.bearers("/v1/models").len(), 1);
    let paths: Vec<String> = l.mock.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths[0], "/v1/models", "{paths:?}");
    // The session is bound to the account (its hash, never its identifiers).
    let journal = crate::harness::journal_text(&l.s.w.path("session"));
    assert!(
        journal.contains(&hash),
        "the binding names the account hash"
    );
    for secret in [&first_token, &used[1]] {
        assert!(
            !journal.contains(secret.as_str()),
            "no token in the journal"
        );
    }
    assert!(!journal.contains("user-1"));
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_refused_token_is_refreshed_once_and_retried_then_the_turn_pauses() {
    let l = live(&[]);
    l.mock.push("/v1/models", catalog());
    for _ in 0..3 {
        l.mock.push("/v1/responses", answer());
    }
    let mut s = l.session("session");
    let before = l.s.issuer_requests();
    let rid = s.submit("one");
    assert_eq!(s.answer(rid), ANSWER);
    assert_eq!(
        l.s.issuer_requests(),
        before,
        "a fresh token costs no round trip"
    );
    let fresh = l.access_token();
    // A fresh token costs no round trip to the issuer: the store did not change.
    assert_eq!(l.bearers("/v1/responses"), vec![fresh.clone()]);

    // The API stops accepting the token: one refresh, one retry, and the task completes.
    l.refused.lock().unwrap().insert(fresh.clone());
    let rid = s.submit("two");
    assert_eq!(s.answer(rid), ANSWER, "{}", s.stderr());
    let renewed = l.access_token();
    assert_ne!(renewed, fresh);
    assert_eq!(
        l.bearers("/v1/responses"),
        vec![fresh.clone(), fresh.clone(), renewed.clone()]
    );
    // Same sign-in, so the checked catalog is not asked again.
    assert_eq!(l.bearers("/v1/models").len(), 1);

    // Refused even after a refresh: the turn pauses with auth_failed; nothing is retried
    // further. Resume once the API accepts tokens again.
    l.refuse_all.store(true, Ordering::SeqCst);
    let rid = s.submit("three");
    let reason = paused(&mut s, rid);
    assert!(reason.contains("auth"), "{reason}");
    assert!(reason.contains("ansa --login"), "{reason}");
    // The API echoed the refused token percent-encoded and JSON-escaped: both are redacted.
    let token = l.access_token();
    let percent: String = token.bytes().map(|b| format!("%{b:02X}")).collect();
    let escaped: String = token
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    assert!(reason.contains("<redacted>"), "{reason}");
    for form in [&token, &percent, &escaped] {
        assert!(!reason.contains(form.as_str()), "{reason}");
        assert!(!s.stderr().contains(form.as_str()), "{}", s.stderr());
    }
    assert!(
        s.seen
            .iter()
            .any(|e| e["type"] == "error" && e["code"] == "auth_failed"),
        "{:?}",
        s.seen
    );
    assert_eq!(l.bearers("/v1/responses").len(), 5, "one retry, not more");
    l.refuse_all.store(false, Ordering::SeqCst);
    s.send("resume", json!({"target": rid}));
    assert_eq!(s.answer(rid), ANSWER, "{}", s.stderr());
    s.finish();
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn sign_out_stops_a_running_request_and_resume_needs_the_same_account() {
    let l = live(&[]);
    l.mock.push("/v1/models", catalog());
    // The first answer starts and then waits at a gate that never opens.
    let gate = Gate::new();
    let stream = fixture("responses-text.sse");
    let (head, _) = stream.split_at(stream.find("\n\n").unwrap() + 2);
    l.mock.push(
        "/v1/responses",
        MockResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunk(MockChunk::new(head.as_bytes().to_vec()))
            .chunk(MockChunk::new(b": more\n\n".to_vec()).gated(&gate)),
    );
    let mut s = l.session("session");
    let rid = s.submit("long one");
    eventually("the request is running", || {
        l.mock.requests_to("/v1/responses").len() == 1
    });

    let out = json_line(&l.ansa(&["--logout"]));
    assert_eq!(out["signed_out"], true, "{out}");
    assert_eq!(
        out["users_stopped"], true,
        "the running request let go: {out}"
    );
    let reason = paused(&mut s, rid);
    assert!(reason.contains("signed out"), "{reason}");
    // Signed out: Resume is refused with what to do, and nothing is sent.
    s.send("resume", json!({"target": rid}));
    let reason = paused(&mut s, rid);
    assert!(reason.contains("ansa --login"), "{reason}");
    assert_eq!(l.mock.requests_to("/v1/responses").len(), 1);

    // A new sign-in of the same account: Resume accepts the new auth session, and the
    // catalog is checked again for it.
    l.login();
    l.mock.push("/v1/models", catalog());
    l.mock.push("/v1/responses", answer());
    s.send("resume", json!({"target": rid}));
    assert_eq!(s.answer(rid), ANSWER, "{}", s.stderr());
    assert_eq!(l.bearers("/v1/models").len(), 2);
    s.finish();
    gate.open();

    // Another account: the session cannot be continued; a new one can.
    let out = json_line(&l.ansa(&["--logout"]));
    assert_eq!(out["signed_out"], true, "{out}");
    l.switch_account("user-2");
    l.login();
    let mut c = l.s.w.command(&[
        "--live-jsonl",
        "--session",
        l.s.w.path("session").to_str().unwrap(),
    ]);
    c.env("AI_PROVIDER", "responses")
        .env("AI_ENDPOINT", l.mock.base_url())
        .env("AI_MODEL", "gpt-5.5")
        .env("AI_CA_FILE", &l.roots);
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("different account"), "{stderr}");
    l.mock.push("/v1/models", catalog());
    l.mock.push("/v1/responses", answer());
    let mut fresh = l.session("other-session");
    let rid = fresh.submit("hello");
    assert_eq!(fresh.answer(rid), ANSWER, "{}", fresh.stderr());
    fresh.finish();
}

#[test]
fn without_a_key_or_a_sign_in_the_live_cli_says_how_to_sign_in() {
    let w = crate::harness::World::new();
    let out = w
        .command(&["--live-jsonl"])
        .env("AI_PROVIDER", "responses")
        .env("AI_MODEL", "gpt-5.5")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ansa --login"), "{stderr}");
    // --auth-dir names the store for the live CLI too, and must be absolute.
    let out = w
        .command(&["--live-jsonl", "--auth-dir", "relative"])
        .env("AI_PROVIDER", "responses")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_auth_dir_inside_the_workspace_is_hidden_from_the_tools() {
    let w = crate::harness::World::new();
    let store = w.ws().join("my-auth");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(
        store.join("tokens.json"),
        "{\"access_token\":\"at-secret\"}",
    )
    .unwrap();
    let script = w.script(
        "read-store.json",
        json!([
            {"tool_calls": [{"name": "read", "arguments": {"paths": ["my-auth/tokens.json"], "mode": "lines", "offset": 1, "length": 5}}]},
            {"text": "got={{tool_output:0}}"}
        ]),
    );
    let mut s = w.jsonl(&[
        "--script",
        script.to_str().unwrap(),
        "--auth-dir",
        store.to_str().unwrap(),
    ]);
    let rid = s.submit("read the store");
    let answer = s.answer(rid);
    assert!(!answer.contains("at-secret"), "{answer}");
    assert!(answer.contains("never exposed to tools"), "{answer}");
    s.finish();
}
