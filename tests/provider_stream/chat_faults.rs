//! Faulty Chat Completions streams: each is rejected with the error that names the fault, and
//! no `ChatCompletion` is produced.

use ansa::provider::chat::ChatError as E;
use ansa::provider::sse::{SseError, SseLimits};

use crate::common::*;

const TOOL: &str = "chat-tool.sse";
const TEXT: &str = "chat-text.sse";

fn reduce(blocks: &[String]) -> Result<(), E> {
    chat(&join(blocks)).map(drop)
}

#[test]
fn without_done() {
    let mut b = blocks(TEXT);
    assert_eq!(b.pop().as_deref(), Some("data: [DONE]"));
    assert_eq!(reduce(&b), Err(E::NoDone { chunks: 13 }));
    // Cut inside the [DONE] event.
    let bytes = fixture(TEXT);
    let err = chat(&bytes[..bytes.len() - 4]).unwrap_err();
    assert!(matches!(err, E::Sse(SseError::Truncated { .. })), "{err}");
}

#[test]
fn tool_call_index_gaps() {
    // The first call opens at index 1.
    let mut b = blocks(TOOL);
    edit(&mut b, 7, r#""index":0,"id""#, r#""index":1,"id""#);
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(
            err,
            E::ToolCallIndex {
                chunk: 8,
                expected: 0,
                got: 1
            }
        ),
        "{err}"
    );
    // An arguments delta for a call that was never opened.
    let mut b = blocks(TOOL);
    edit(
        &mut b,
        10,
        r#""index":0,"function""#,
        r#""index":2,"function""#,
    );
    let err = reduce(&b).unwrap_err();
    assert!(
        matches!(
            err,
            E::ToolCallIndex {
                expected: 1,
                got: 2,
                ..
            }
        ),
        "{err}"
    );
    // A new call without an id or a name.
    let mut b = blocks(TOOL);
    edit(&mut b, 7, r#""id":"call_38MX9T4FiLJXgucAey3Yj1iv","#, "");
    assert!(matches!(
        reduce(&b),
        Err(E::MissingField {
            field: "tool_calls.id",
            ..
        })
    ));
    // A continuation that renames the call.
    let mut b = blocks(TOOL);
    edit(
        &mut b,
        10,
        r#""function":{"#,
        r#""function":{"name":"write","#,
    );
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
}

#[test]
fn wrong_model() {
    let bytes = fixture(TEXT);
    let err = chat_chunks("gpt-4o", SseLimits::default(), [&bytes[..]])
        .0
        .unwrap_err();
    assert!(
        matches!(&err, E::Model { chunk: 1, expected, got } if expected == "gpt-4o" && got == MODEL),
        "{err}"
    );
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        5,
        r#""model":"gpt-5.5""#,
        r#""model":"gpt-5.5-mini""#,
    );
    assert!(matches!(reduce(&b), Err(E::Model { chunk: 6, .. })));
}

#[test]
fn mismatched_id() {
    let mut b = blocks(TEXT);
    edit(&mut b, 3, "chatcmpl-iLJX", "chatcmpl-XXXX");
    assert!(matches!(reduce(&b), Err(E::Id { chunk: 4, .. })));
}

#[test]
fn finish_reasons() {
    let finish = r#""finish_reason":"stop""#;
    let mut b = blocks(TEXT);
    edit(&mut b, 11, finish, r#""finish_reason":"length""#);
    assert_eq!(reduce(&b), Err(E::Length { chunk: 12 }));
    let mut b = blocks(TEXT);
    edit(&mut b, 11, finish, r#""finish_reason":"content_filter""#);
    assert_eq!(reduce(&b), Err(E::ContentFilter { chunk: 12 }));
    let mut b = blocks(TEXT);
    edit(&mut b, 11, finish, r#""finish_reason":"function_call""#);
    assert!(matches!(reduce(&b), Err(E::UnknownFinishReason { .. })));
    let mut b = blocks(TEXT);
    edit(&mut b, 11, finish, r#""finish_reason":"tool_calls""#);
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
    // No finish reason at all before [DONE].
    let mut b = blocks(TEXT);
    edit(&mut b, 11, finish, r#""finish_reason":null"#);
    assert!(matches!(reduce(&b), Err(E::Protocol { chunk: 14, .. })));
    // Content after the finish reason.
    let mut b = blocks(TEXT);
    let late = b[10].clone();
    b.insert(12, late);
    assert!(matches!(reduce(&b), Err(E::Protocol { chunk: 13, .. })));
}

#[test]
fn data_after_done_and_named_events() {
    let mut b = blocks(TEXT);
    b.push(b[1].clone());
    assert_eq!(reduce(&b), Err(E::AfterDone { chunk: 15 }));
    let mut b = blocks(TEXT);
    b[2] = format!("event: delta\n{}", b[2]);
    assert!(matches!(reduce(&b), Err(E::UnknownEvent { chunk: 3, .. })));
    // Comments (keep-alives some servers send) are fine.
    let mut b = blocks(TEXT);
    b.insert(0, ": OPENROUTER PROCESSING".into());
    assert!(reduce(&b).is_ok());
}

#[test]
fn error_chunk() {
    let mut b = blocks(TEXT);
    b.truncate(2);
    b.push(r#"data: {"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#.into());
    let err = reduce(&b).unwrap_err();
    assert!(err.is_context_length_exceeded(), "{err}");
    b[2] = r#"data: {"error":{"message":"overloaded","code":503}}"#.into();
    assert!(matches!(reduce(&b), Err(E::Api { code: Some(c), .. }) if c == "503"));
}

#[test]
fn two_choices_and_foreign_roles() {
    let mut b = blocks(TEXT);
    edit(
        &mut b,
        2,
        r#""choices":[{"index":0,"#,
        r#""choices":[{"index":1,"#,
    );
    assert!(matches!(reduce(&b), Err(E::Protocol { .. })));
    let mut b = blocks(TEXT);
    edit(&mut b, 0, r#""role":"assistant""#, r#""role":"tool""#);
    assert!(matches!(reduce(&b), Err(E::Protocol { chunk: 1, .. })));
}

#[test]
fn non_utf8_and_oversized() {
    let mut bytes = fixture(TEXT);
    let at = bytes
        .windows(7)
        .position(|w| w == b"\" from\"")
        .expect("delta");
    bytes[at + 2] = 0xC3;
    assert!(matches!(
        chat(&bytes),
        Err(E::Sse(SseError::InvalidUtf8 { .. }))
    ));
    let limits = SseLimits {
        max_line_bytes: 100,
        max_event_bytes: 100,
    };
    let err = chat_chunks(MODEL, limits, [&fixture(TEXT)[..]])
        .0
        .unwrap_err();
    assert!(
        matches!(
            err,
            E::Sse(SseError::LineTooLong {
                line: 1,
                offset: 0,
                limit: 100
            })
        ),
        "{err}"
    );
}

#[test]
fn invalid_json() {
    let mut b = blocks(TEXT);
    edit(&mut b, 4, r#"{"id""#, r#"{"id"::"#);
    assert!(matches!(reduce(&b), Err(E::Json { chunk: 5, .. })));
}
