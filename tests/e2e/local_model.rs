//! The README's local-model example: a Responses server on `http://` loopback (llama.cpp's
//! `llama-server`, a local proxy) needs no API key and no sign-in, and gets no credential.

use crate::harness::World;
use crate::live::fixture;
use crate::mock_provider::{MockProvider, MockResponse};

/// `ansa 'say hello'` against `endpoint` with no key in the environment.
fn one_shot(w: &World, endpoint: &str) -> std::process::Output {
    w.command(&["say hello"])
        .env("AI_PROVIDER", "responses")
        .env("AI_ENDPOINT", endpoint)
        .env("AI_MODEL", "gpt-5.5")
        .env_remove("AI_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn a_loopback_responses_server_needs_no_key_and_gets_no_credential() {
    let w = World::new();
    let mock = MockProvider::http();
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 64),
    );
    let out = one_shot(&w, &mock.base_url());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty(), "the answer is printed");
    let requests = mock.requests_to("/v1/responses");
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), None);
}

#[test]
fn an_https_responses_server_still_needs_a_key_or_a_sign_in() {
    let w = World::new();
    let mock = MockProvider::https();
    let out = one_shot(&w, &mock.base_url());
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no API key and not signed in"), "{stderr}");
    assert!(mock.requests().is_empty(), "nothing was sent");
}
