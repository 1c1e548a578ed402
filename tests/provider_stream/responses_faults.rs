//! Faulty Responses streams: each is rejected with the error that names the fault, and no
//! `CompletedResponse` is produced.

use ansa::provider::responses::{ResponsesError as E, ResponsesReducer};
use ansa::provider::sse::{SseError, SseLimits};

use crate::common::*;

const TEXT: &str = "responses-text.sse";
const ID: &str = "resp_692c2220873a0000c6d07ef7b77e90d34283fefc63f0cd0e";

fn reduce(blocks: &[String]) -> Result<(), E> {
    responses(&join(blocks)).map(drop)
}

#[test]
fn missing_terminal_event() {
    let mut b = blocks(TEXT);
    b.pop();
    assert_eq!(reduce(&b), Err(E::NoTerminal { events: 30 }));
}

#[test]
fn stream_cut_mid_event() {
    let bytes = fixture(TEXT);
    let cut = bytes.len() - 200;
    let err = responses(&bytes[..cut]).unwrap_err();
    assert!(
        matches!(err, E::Sse(SseError::Truncated { line: 92, .. })),
        "{err}"
    );
    // The data line is complete but the closing blank line never came.
    let err = responses(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(
        matches!(
            err,
            E::Sse(SseError::Truncated {
                pending_data_lines: 1,
                unterminated_bytes: 0,
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn sequence_gap() {
    let mut b = blocks(TEXT);
    b.remove(5);
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(
            err,
            E::Sequence {
                expected: 5,
                got: 6,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("event #6"), "{err}");
}

#[test]
fn duplicated_sequence_number() {
    let mut b = blocks(TEXT);
    b.insert(6, b[5].clone());
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(
            err,
            E::Sequence {
                expected: 6,
                got: 5,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn unknown_event_type() {
    let mut b = blocks(TEXT);
    let new = "response.output_text.annotation.added";
    edit(&mut b, 17, "response.output_text.delta", new);
    edit(&mut b, 17, "response.output_text.delta", new);
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(&err, E::UnknownEvent { at } if at.kind == new && at.sequence_number == Some(17)),
        "{err}"
    );
    // A SSE event name that disagrees with the JSON type.
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        17,
        "event: response.output_text.delta",
        "event: response.refusal.delta",
    );
    assert!(matches!(reduce(&b), Err(E::EventName { .. })));
}

#[test]
fn unknown_item_type() {
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        15,
        r#""type":"message""#,
        r#""type":"web_search_call""#,
    );
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(&err, E::UnknownItem { item_type, .. } if item_type == "web_search_call"),
        "{err}"
    );
}

#[test]
fn wrong_model() {
    let bytes = fixture(TEXT);
    let (result, _) = responses_chunks("gpt-5.5-mini", SseLimits::default(), [&bytes[..]]);
    let err = result.unwrap_err();
    assert!(
        matches!(&err, E::Model { expected, got, at } if expected == "gpt-5.5-mini" && got == MODEL && at.event == 1),
        "{err}"
    );
    // A model that changes mid-stream.
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        30,
        r#""model":"gpt-5.5""#,
        r#""model":"gpt-5.5-pro""#,
    );
    assert!(matches!(reduce(&b), Err(E::Model { .. })));
}

#[test]
fn mismatched_response_id() {
    let mut b = blocks(TEXT);
    edit(&mut b, 30, ID, "resp_someone_else");
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(&err, E::ResponseId { got, .. } if got == "resp_someone_else"),
        "{err}"
    );
}

#[test]
fn reasoning_without_encrypted_content_is_admitted() {
    // llama.cpp, vLLM and other hosts send reasoning they do not encrypt: it is admitted (and
    // kept exactly), the provider leaves it out of later requests.
    let content = r#","encrypted_content":"gAAAAABbW9jay1yZWFzb25pbmc6VGhlIHVzZXIgZ3JlZXRzOyBhbnN3ZXIgYnJpZWZseS4=""#;
    for replacement in [
        "",
        r#","encrypted_content":"""#,
        r#","encrypted_content":null"#,
    ] {
        let mut b = blocks(TEXT);
        edit(&mut b, 14, content, replacement);
        edit(&mut b, 30, content, replacement);
        let done = responses(&join(&b)).unwrap_or_else(|e| panic!("{replacement}: {e}"));
        assert!(
            done.output_items[0]
                .get()
                .contains("\"type\":\"reasoning\""),
            "{replacement}"
        );
        assert_eq!(
            done.text.as_deref(),
            Some("Hello from the model. The answer is 42.")
        );
    }
}

fn failed(code: &str) -> Vec<String> {
    let mut b = blocks(TEXT);
    b.truncate(2);
    b.push(format!(
        "event: response.failed\ndata: {{\"type\":\"response.failed\",\"sequence_number\":2,\"response\":{{\"id\":\"{ID}\",\"object\":\"response\",\"status\":\"failed\",\"model\":\"gpt-5.5\",\"error\":{{\"code\":\"{code}\",\"message\":\"Your input exceeds the context window of this model.\"}},\"output\":[],\"usage\":null}}}}"
    ));
    b
}

#[test]
fn failed_with_context_length_exceeded() {
    let err = reduce(&failed("context_length_exceeded")).unwrap_err();
    assert!(err.is_context_length_exceeded(), "{err}");
    assert!(err.to_string().contains("context window"), "{err}");
    let err = reduce(&failed("server_error")).unwrap_err();
    assert!(
        matches!(&err, E::Failed { code: Some(code), .. } if code == "server_error"),
        "{err}"
    );
    assert!(!err.is_context_length_exceeded());
}

#[test]
fn error_and_incomplete_events() {
    let mut b = blocks(TEXT);
    b.truncate(2);
    b.push(r#"event: error
data: {"type":"error","sequence_number":2,"code":"context_length_exceeded","message":"too long","param":null}"#.into());
    assert!(reduce(&b).unwrap_err().is_context_length_exceeded());
    b[2] = r#"event: error
data: {"type":"error","sequence_number":2,"error":{"type":"server_error","code":"server_error","message":"boom"}}"#.into();
    assert!(
        matches!(reduce(&b), Err(E::Api { code: Some(c), message, .. }) if c == "server_error" && message == "boom")
    );
    b[2] = format!(
        "event: response.incomplete\ndata: {{\"type\":\"response.incomplete\",\"sequence_number\":2,\"response\":{{\"id\":\"{ID}\",\"model\":\"gpt-5.5\",\"status\":\"incomplete\",\"incomplete_details\":{{\"reason\":\"max_output_tokens\"}},\"output\":[]}}}}"
    );
    assert!(
        matches!(reduce(&b), Err(E::Incomplete { reason, .. }) if reason == "max_output_tokens")
    );
}

#[test]
fn created_must_come_first() {
    let mut b = blocks(TEXT);
    b.remove(0);
    edit(
        &mut b,
        0,
        r#""sequence_number":1,"#,
        r#""sequence_number":0,"#,
    );
    let err = reduce(&b).unwrap_err();
    assert!(matches!(err, E::NotCreatedFirst { .. }), "{err}");
}

#[test]
fn event_after_terminal() {
    let mut b = blocks(TEXT);
    let again = b[1].replacen(r#""sequence_number":1,"#, r#""sequence_number":31,"#, 1);
    b.push(again);
    assert!(matches!(reduce(&b), Err(E::AfterTerminal { .. })));
}

#[test]
fn done_events_must_agree_with_deltas() {
    let cases: [(usize, &str, &str); 6] = [
        (27, "The answer is 42.", "The answer is 43."),
        (28, "The answer is 42.", "The answer is 43."),
        (29, "The answer is 42.", "The answer is 43."),
        (12, "answer briefly.", "answer at length."),
        (30, r#""output":[{"id":"rs_"#, r#""output":[{"id":"rx_"#),
        (29, r#""status":"completed""#, r#""status":"incomplete""#),
    ];
    for (index, from, to) in cases {
        let mut b = blocks(TEXT);
        edit(&mut b, index, from, to);
        let err = reduce(&b).unwrap_err();
        assert!(matches!(err, E::Protocol { .. }), "block {index}: {err}");
    }
    // An item never closed before response.completed.
    let mut b = blocks(TEXT);
    b.remove(29);
    edit(
        &mut b,
        29,
        r#""sequence_number":30,"#,
        r#""sequence_number":29,"#,
    );
    let err = reduce(&b).unwrap_err();
    assert!(err.to_string().contains("never closed"), "{err}");
}

#[test]
fn delta_for_unknown_or_mismatched_item() {
    let mut b = blocks(TEXT);
    edit(&mut b, 17, r#""output_index":1"#, r#""output_index":2"#);
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
    let mut b = blocks(TEXT);
    edit(&mut b, 17, "msg_692c", "msg_792c");
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        17,
        "response.output_text.delta",
        "response.refusal.delta",
    );
    edit(
        &mut b,
        17,
        "response.output_text.delta",
        "response.refusal.delta",
    );
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
}

#[test]
fn oversized_line_and_event() {
    let bytes = fixture(TEXT);
    let limits = SseLimits {
        max_line_bytes: 1000,
        max_event_bytes: 1 << 20,
    };
    let err = responses_chunks(MODEL, limits, [&bytes[..]]).0.unwrap_err();
    assert!(
        matches!(
            err,
            E::Sse(SseError::LineTooLong {
                line: 2,
                offset: 24,
                limit: 1000
            })
        ),
        "{err}"
    );
    let limits = SseLimits {
        max_line_bytes: 4096,
        max_event_bytes: 1500,
    };
    let err = responses_chunks(MODEL, limits, [&bytes[..]]).0.unwrap_err();
    assert!(
        matches!(err, E::Sse(SseError::EventTooLarge { limit: 1500, .. })),
        "{err}"
    );
}

#[test]
fn non_utf8() {
    let mut bytes = fixture(TEXT);
    let at = bytes
        .windows(7)
        .position(|w| w == b"\" from\"")
        .expect("delta");
    bytes[at + 2] = 0xFF;
    let err = responses(&bytes).unwrap_err();
    assert!(matches!(err, E::Sse(SseError::InvalidUtf8 { .. })), "{err}");
}

#[test]
fn invalid_json_and_missing_fields() {
    let mut b = blocks(TEXT);
    edit(&mut b, 17, r#""delta":"Hello","#, r#""delta":"Hello""#);
    assert!(matches!(reduce(&b), Err(E::Json { .. })));
    let mut b = blocks(TEXT);
    edit(&mut b, 17, r#""sequence_number":17,"#, "");
    assert!(matches!(
        reduce(&b),
        Err(E::MissingField {
            field: "sequence_number",
            ..
        })
    ));
    let mut b = blocks(TEXT);
    edit(&mut b, 17, r#""delta":"Hello","#, "");
    assert!(matches!(
        reduce(&b),
        Err(E::MissingField { field: "delta", .. })
    ));
}

#[test]
fn finish_after_error_and_push_after_finish() {
    let mut reducer = ResponsesReducer::new("other-model");
    let bytes = fixture(TEXT);
    assert!(reducer.push(&bytes, &mut |_| {}).is_err());
    assert_eq!(reducer.finish(), Err(E::Poisoned));
    // An empty stream is not a response.
    assert_eq!(responses(b""), Err(E::NoTerminal { events: 0 }));
}
