//! Every recorded stream reduces to exactly the expected result.

use ansa::provider::ToolCall;
use ansa::provider::Usage;
use ansa::provider::chat::FinishReason;
use ansa::provider::sse::SseLimits;

use crate::common::*;

const RESPONSE_ID: &str = "resp_692c2220873a0000c6d07ef7b77e90d34283fefc63f0cd0e";
const ANSWER: &str = "Hello from the model. The answer is 42.";
const COMMENTARY: &str = "Reading the notes first.";
const REFUSAL: &str = "I can't help with that.";
const ARGUMENTS: &str = r#"{"paths":["notes.txt"],"mode":"lines","offset":1,"length":20}"#;

fn responses_usage(output_tokens: u64, reasoning_tokens: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: 131,
        output_tokens,
        total_tokens: 131 + output_tokens,
        cached_tokens: Some(0),
        reasoning_tokens: Some(reasoning_tokens),
    })
}

fn chat_usage(output_tokens: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: 114,
        output_tokens,
        total_tokens: 114 + output_tokens,
        cached_tokens: Some(0),
        reasoning_tokens: Some(0),
    })
}

/// Each preview is the whole text so far, growing by one delta at a time.
fn assert_previews(previews: &[String], deltas: &[&str]) {
    let mut expected = String::new();
    let want: Vec<String> = deltas
        .iter()
        .map(|d| {
            expected.push_str(d);
            expected.clone()
        })
        .collect();
    assert_eq!(previews, want);
}

#[test]
fn responses_text() {
    let (result, previews) = responses_chunks(
        MODEL,
        SseLimits::default(),
        [&fixture("responses-text.sse")[..]],
    );
    let done = result.unwrap();
    assert_eq!(done.id, RESPONSE_ID);
    assert_eq!(done.model, MODEL);
    assert_eq!(done.text.as_deref(), Some(ANSWER));
    assert_eq!(done.refusal, None);
    assert!(done.tool_calls.is_empty());
    assert_eq!(done.usage, responses_usage(26, 8));
    let raw: Vec<&str> = done.output_items.iter().map(|i| i.get()).collect();
    assert_eq!(raw, done_items("responses-text.sse"));
    assert_eq!(
        raw[0],
        r#"{"id":"rs_692c2220593ad699fc1f7cd5bb2e35cb4283fefc63f0cd0e","type":"reasoning","summary":[{"type":"summary_text","text":"The user greets; answer briefly."}],"encrypted_content":"gAAAAABbW9jay1yZWFzb25pbmc6VGhlIHVzZXIgZ3JlZXRzOyBhbnN3ZXIgYnJpZWZseS4="}"#
    );
    assert_previews(
        &previews,
        &[
            "Hello", " from", " the", " model", ".", " The", " answe", "r", " is", " 42.",
        ],
    );
}

#[test]
fn responses_tool() {
    let (result, previews) = responses_chunks(
        MODEL,
        SseLimits::default(),
        [&fixture("responses-tool.sse")[..]],
    );
    let done = result.unwrap();
    assert_eq!(done.id, RESPONSE_ID);
    assert_eq!(done.text.as_deref(), Some(COMMENTARY));
    assert_eq!(done.refusal, None);
    assert_eq!(
        done.tool_calls,
        vec![ToolCall {
            call_id: "call_waIINYNvDMbZoOlJLl3fZJZ2".into(),
            name: "read".into(),
            arguments: ARGUMENTS.into(),
        }]
    );
    assert_eq!(done.usage, responses_usage(22, 0));
    let raw: Vec<&str> = done.output_items.iter().map(|i| i.get()).collect();
    assert_eq!(raw, done_items("responses-tool.sse"));
    assert_eq!(raw.len(), 2);
    assert_previews(&previews, &["Readin", "g", " the", " notes", " first", "."]);
}

#[test]
fn responses_refusal() {
    let (result, previews) = responses_chunks(
        MODEL,
        SseLimits::default(),
        [&fixture("responses-refusal.sse")[..]],
    );
    let done = result.unwrap();
    assert_eq!(done.text, None);
    assert_eq!(done.refusal.as_deref(), Some(REFUSAL));
    assert!(done.tool_calls.is_empty());
    assert_eq!(done.usage, responses_usage(6, 0));
    let raw: Vec<&str> = done.output_items.iter().map(|i| i.get()).collect();
    assert_eq!(raw, done_items("responses-refusal.sse"));
    assert!(
        previews.is_empty(),
        "a refusal is not previewed: {previews:?}"
    );
}

#[test]
fn chat_text() {
    let (result, previews) =
        chat_chunks(MODEL, SseLimits::default(), [&fixture("chat-text.sse")[..]]);
    let done = result.unwrap();
    assert_eq!(done.id, "chatcmpl-iLJXgucAey3Yj1ivhNLY7yeKJoKf8");
    assert_eq!(done.model, MODEL);
    assert_eq!(done.text.as_deref(), Some(ANSWER));
    assert_eq!(done.refusal, None);
    assert!(done.tool_calls.is_empty());
    assert_eq!(done.finish_reason, FinishReason::Stop);
    assert_eq!(done.usage, chat_usage(10));
    assert_previews(
        &previews,
        &[
            "Hello", " from", " the", " model", ".", " The", " answe", "r", " is", " 42.",
        ],
    );
}

#[test]
fn chat_tool() {
    let (result, previews) =
        chat_chunks(MODEL, SseLimits::default(), [&fixture("chat-tool.sse")[..]]);
    let done = result.unwrap();
    assert_eq!(done.id, "chatcmpl-vBnrRg1y7Jw641RIFXIpeUcfikk6I");
    assert_eq!(done.text.as_deref(), Some(COMMENTARY));
    assert_eq!(
        done.tool_calls,
        vec![ToolCall {
            call_id: "call_38MX9T4FiLJXgucAey3Yj1iv".into(),
            name: "read".into(),
            arguments: ARGUMENTS.into(),
        }]
    );
    assert_eq!(done.finish_reason, FinishReason::ToolCalls);
    assert_eq!(done.usage, chat_usage(22));
    assert_previews(&previews, &["Readin", "g", " the", " notes", " first", "."]);
}

#[test]
fn chat_refusal() {
    let (result, previews) = chat_chunks(
        MODEL,
        SseLimits::default(),
        [&fixture("chat-refusal.sse")[..]],
    );
    let done = result.unwrap();
    assert_eq!(done.id, "chatcmpl-kkqH8kQrPTsDSuFEhbtyvAYmqgq5U");
    assert_eq!(done.text, None);
    assert_eq!(done.refusal.as_deref(), Some(REFUSAL));
    assert!(done.tool_calls.is_empty());
    assert_eq!(done.finish_reason, FinishReason::Stop);
    assert_eq!(done.usage, chat_usage(6));
    assert!(previews.is_empty());
}

#[test]
fn responses_metadata_event_is_accepted_when_it_names_this_response() {
    let mut blocks = blocks("responses-text.sse");
    // Insert a metadata event after in_progress and renumber everything after it.
    let metadata = format!(
        "event: response.metadata\ndata: {{\"type\":\"response.metadata\",\"sequence_number\":2,\"response_id\":\"{RESPONSE_ID}\",\"metadata\":{{\"k\":\"v\"}}}}"
    );
    for (seq, block) in blocks.iter_mut().enumerate().skip(2).rev() {
        *block = block.replacen(
            &format!("\"sequence_number\":{seq},"),
            &format!("\"sequence_number\":{},", seq + 1),
            1,
        );
    }
    blocks.insert(2, metadata.clone());
    assert_eq!(
        responses(&join(&blocks)).unwrap().text.as_deref(),
        Some(ANSWER)
    );
    blocks[2] = metadata.replace(RESPONSE_ID, "resp_other");
    assert!(matches!(
        responses(&join(&blocks)),
        Err(ansa::provider::responses::ResponsesError::ResponseId { .. })
    ));
}

#[test]
fn responses_two_messages_are_separated_by_a_blank_line() {
    const MSG: &str = "msg_692c222081220e087835b92558589eaf4283fefc63f0cd0e";
    let mut b = blocks("responses-text.sse");
    let completed = b.pop().unwrap();
    let second: Vec<String> = b[15..30]
        .iter()
        .enumerate()
        .map(|(i, block)| {
            block
                .replace(r#""output_index":1"#, r#""output_index":2"#)
                .replace(MSG, "msg_2")
                .replacen(
                    &format!("\"sequence_number\":{},", 15 + i),
                    &format!("\"sequence_number\":{},", 30 + i),
                    1,
                )
        })
        .collect();
    let item = done_items("responses-text.sse")[1].replace(MSG, "msg_2");
    b.extend(second);
    b.push(
        completed
            .replacen(r#""sequence_number":30,"#, r#""sequence_number":45,"#, 1)
            .replacen(
                r#""role":"assistant"}],"parallel"#,
                &format!(r#""role":"assistant"}},{item}],"parallel"#),
                1,
            ),
    );
    let (result, previews) = responses_chunks(MODEL, SseLimits::default(), [&join(&b)[..]]);
    let done = result.unwrap();
    let both = format!("{ANSWER}\n\n{ANSWER}");
    assert_eq!(done.text.as_deref(), Some(both.as_str()));
    assert_eq!(previews.last(), Some(&both));
    assert_eq!(previews.len(), 20);
    assert_eq!(done.output_items.len(), 3);
}

#[test]
fn responses_reasoning_summary_is_visible_while_it_streams() {
    let bytes = fixture("responses-text.sse");
    let mut reducer = ansa::provider::responses::ResponsesReducer::new(MODEL);
    assert_eq!(reducer.reasoning_summary(), None);
    let mut seen = Vec::new();
    let mut len = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        reducer.push(line, &mut |_| {}).unwrap();
        if reducer.reasoning_len() > len {
            len = reducer.reasoning_len();
            seen.push(reducer.reasoning_summary().unwrap());
        }
    }
    assert_eq!(
        seen.last().map(String::as_str),
        Some("The user greets; answer briefly.")
    );
    assert_eq!(seen[0], "The", "it grows delta by delta");
    assert!(seen.windows(2).all(|w| w[1].starts_with(&w[0])));
    assert!(reducer.finish().is_ok());
}
