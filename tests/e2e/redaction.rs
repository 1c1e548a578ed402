//! A provider that echoes the API key in its error body, in any of the encodings servers use,
//! never gets it printed or journaled: a real loopback server answers 401 with the key written
//! out, percent-encoded, JSON-escaped or in base64 (alone or inside a longer base64 text), and
//! neither ansa's output nor any file of its home holds a trace of it.

use crate::harness::World;
use crate::mock_provider::{MockProvider, MockResponse};

/// The key: it has the characters each encoding changes (`/ + = _ - ~ .`).
const KEY: &str = "sk-proj-Zx9/Q+w=Ab_cD-e~fG.h1";

/// How the server writes the key, with the key-only part of the form to look for afterwards
/// (a base64 form's edges carry bits of what surrounds the key too). Computed independently
/// (Python's `urllib.parse` and `base64`).
const FORMS: [(&str, &str, &str); 15] = [
    ("literal", KEY, KEY),
    (
        "percent, every byte, upper hex",
        "%73%6B%2D%70%72%6F%6A%2D%5A%78%39%2F%51%2B%77%3D%41%62%5F%63%44%2D%65%7E%66%47%2E%68%31",
        "%73%6B%2D%70%72%6F%6A%2D%5A%78%39%2F%51%2B%77%3D%41%62%5F%63%44%2D%65%7E%66%47%2E%68%31",
    ),
    (
        "percent, every byte, lower hex",
        "%73%6b%2d%70%72%6f%6a%2d%5a%78%39%2f%51%2b%77%3d%41%62%5f%63%44%2d%65%7e%66%47%2e%68%31",
        "%73%6b%2d%70%72%6f%6a%2d%5a%78%39%2f%51%2b%77%3d%41%62%5f%63%44%2d%65%7e%66%47%2e%68%31",
    ),
    (
        "percent, reserved bytes, lower hex",
        "sk-proj-Zx9%2fQ%2bw%3dAb_cD-e~fG.h1",
        "sk-proj-Zx9%2fQ%2bw%3dAb_cD-e~fG.h1",
    ),
    (
        "form encoding",
        "sk-proj-Zx9%2FQ%2Bw%3DAb_cD-e~fG.h1",
        "sk-proj-Zx9%2FQ%2Bw%3DAb_cD-e~fG.h1",
    ),
    (
        "JSON \\u escape of every character",
        r"\u0073\u006b\u002d\u0070\u0072\u006f\u006a\u002d\u005a\u0078\u0039\u002f\u0051\u002b\u0077\u003d\u0041\u0062\u005f\u0063\u0044\u002d\u0065\u007e\u0066\u0047\u002e\u0068\u0031",
        r"\u0073\u006b\u002d\u0070\u0072\u006f\u006a\u002d\u005a\u0078\u0039\u002f\u0051\u002b\u0077\u003d\u0041\u0062\u005f\u0063\u0044\u002d\u0065\u007e\u0066\u0047\u002e\u0068\u0031",
    ),
    (
        "JSON \\u escape of every other character, upper hex",
        r"s\u006B-\u0070r\u006Fj\u002DZ\u00789\u002FQ\u002Bw\u003DA\u0062_\u0063D\u002De\u007Ef\u0047.\u00681",
        r"s\u006B-\u0070r\u006Fj\u002DZ\u00789\u002FQ\u002Bw\u003DA\u0062_\u0063D\u002De\u007Ef\u0047.\u00681",
    ),
    (
        "JSON escaped solidus",
        r"sk-proj-Zx9\/Q+w=Ab_cD-e~fG.h1",
        r"sk-proj-Zx9\/Q+w=Ab_cD-e~fG.h1",
    ),
    (
        "base64, padded",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV+ZkcuaDE=",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV+ZkcuaD",
    ),
    (
        "URL-safe base64, unpadded",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV-ZkcuaDE",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV-ZkcuaD",
    ),
    (
        "Basic base64(user:key)",
        "Basic dXNlcjpzay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oMQ==",
        "zay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oM",
    ),
    (
        "URL-safe base64 of a + key + zz",
        "YXNrLXByb2otWng5L1Erdz1BYl9jRC1lfmZHLmgxeno=",
        "NrLXByb2otWng5L1Erdz1BYl9jRC1lfmZHLmgx",
    ),
    (
        "base64 of ab + key + z",
        "YWJzay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oMXo=",
        "zay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oM",
    ),
    (
        "percent-encoded base64",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV%2BZkcuaDE%3D",
        "c2stcHJvai1aeDkvUSt3PUFiX2NELWV%2BZkcuaD",
    ),
    (
        "JSON \\u escape inside a JSON message",
        r"\\u0073\\u006b\\u002d\\u0070\\u0072\\u006f\\u006a\\u002d\\u005a\\u0078\\u0039\\u002f\\u0051\\u002b\\u0077\\u003d\\u0041\\u0062\\u005f\\u0063\\u0044\\u002d\\u0065\\u007e\\u0066\\u0047\\u002e\\u0068\\u0031",
        r"\u0073\u006b\u002d\u0070\u0072\u006f\u006a\u002d\u005a\u0078\u0039\u002f\u0051\u002b\u0077\u003d\u0041\u0062\u005f\u0063\u0044\u002d\u0065\u007e\u0066\u0047\u002e\u0068\u0031",
    ),
];

/// The error answer carrying `form`: plain text, except the last form, which is the text of
/// a JSON string (its backslashes JSON-escaped) in an OpenAI-style error.
fn answer(index: usize, form: &str) -> MockResponse {
    if index == FORMS.len() - 1 {
        return MockResponse::json(
            401,
            &format!(
                r#"{{"error":{{"message":"Incorrect API key provided: {form} (check it)","code":"invalid_api_key"}}}}"#
            ),
        );
    }
    MockResponse::new(401)
        .header("content-type", "text/plain")
        .body(format!("Incorrect API key provided: {form} (check it)"))
}

/// Every file under `dir`, as text.
fn files_text(dir: &std::path::Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_text(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push_str(&String::from_utf8_lossy(&bytes));
            out.push('\n');
        }
    }
}

#[test]
fn an_error_that_echoes_the_key_in_any_encoding_is_redacted_in_output_and_journal() {
    for (index, (name, form, core)) in FORMS.iter().enumerate() {
        let w = World::new();
        let mock = MockProvider::http();
        mock.push("/v1/chat/completions", answer(index, form));
        let out = w
            .command(&["hello"])
            .env("AI_PROVIDER", "chat")
            .env("AI_ENDPOINT", mock.base_url())
            .env("AI_MODEL", "m")
            .env("AI_API_KEY", KEY)
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let printed = text.clone();
        files_text(&w.ansa_home(), &mut text);
        assert_eq!(
            mock.requests_to("/v1/chat/completions").len(),
            1,
            "{name}: the request was sent: {printed}"
        );
        assert!(
            printed.contains("Incorrect API key provided: ")
                && printed.contains("<redacted>")
                && printed.contains(" (check it)"),
            "{name}: the server's message is shown, the key redacted: {printed}"
        );
        assert!(
            text[printed.len()..].contains("<redacted>"),
            "{name}: the message was journaled: {text}"
        );
        // No run of 8 characters of the key-only part survives anywhere.
        let core = core.as_bytes();
        for window in core.windows(8) {
            let window = std::str::from_utf8(window).unwrap();
            assert!(
                !text.contains(window),
                "{name}: {window:?} of the key's form is in the output or a file: {text}"
            );
        }
    }
}

#[test]
fn a_refused_bearer_echoed_by_the_server_is_redacted() {
    let w = World::new();
    let mock = MockProvider::http();
    // The mock refuses the bearer and echoes it percent-encoded and JSON-escaped (in a JSON
    // message), as the signed-in tests' API does with access tokens.
    mock.require_bearer(|_| false);
    let out = w
        .command(&["hello"])
        .env("AI_PROVIDER", "chat")
        .env("AI_ENDPOINT", mock.base_url())
        .env("AI_MODEL", "m")
        .env("AI_API_KEY", KEY)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        printed.contains("the bearer token <redacted> (<redacted>) is not accepted"),
        "{printed}"
    );
    let mut text = printed;
    files_text(&w.ansa_home(), &mut text);
    for (name, _, core) in &FORMS[..7] {
        assert!(!text.contains(core), "{name}: {text}");
    }
}
