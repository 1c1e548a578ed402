//! Request bodies: the exact shapes of `spec/sse/README.md`, prior items re-sent byte for byte.

use ansa::provider::ToolCall;
use ansa::provider::chat::{self, ChatMessage};
use ansa::provider::responses::{self, ResponsesInput};
use ansa::tools::ProviderTool;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::common::*;

fn read_tool() -> ProviderTool {
    ProviderTool {
        name: "read".into(),
        description: "Read files".into(),
        parameters: json!({"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}},
            "mode":{"type":"string","enum":["lines","bytes"]},"offset":{"type":"integer"},"length":{"type":"integer"}},
            "required":["paths","mode","offset","length"],"additionalProperties":false}),
        strict: true,
    }
}

#[test]
fn responses_body_matches_the_recorded_request() {
    let body = responses::request_body(
        MODEL,
        "01JSESSION",
        "",
        &[ResponsesInput::User("hi".into())],
        &[read_tool()],
        Some(None),
    )
    .unwrap();
    let expected = r#"{"model":"gpt-5.5","stream":true,"store":false,"prompt_cache_key":"01JSESSION","include":["reasoning.encrypted_content"],"reasoning":{"summary":"auto"},"input":[{"role":"user","content":"hi"}],"tools":[{"type":"function","name":"read","description":"Read files","strict":true,"parameters":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["lines","bytes"]},"offset":{"type":"integer"},"length":{"type":"integer"}},"required":["paths","mode","offset","length"],"additionalProperties":false}}]}"#;
    let got: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(got, serde_json::from_str::<Value>(expected).unwrap());
    // Key order as in the README (serde_json's map keeps insertion order only with a feature,
    // so check the prefix textually).
    let text = String::from_utf8(body).unwrap();
    assert!(text.starts_with(r#"{"model":"gpt-5.5","stream":true,"store":false,"prompt_cache_key":"01JSESSION","include":["reasoning.encrypted_content"],"reasoning":{"summary":"auto"},"input":"#), "{text}");
}

#[test]
fn a_model_without_reasoning_gets_no_reasoning_parameters() {
    let body = responses::request_body(
        MODEL,
        "",
        "",
        &[ResponsesInput::User("hi".into())],
        &[],
        None,
    )
    .unwrap();
    let text = String::from_utf8(body).unwrap();
    assert_eq!(
        text,
        r#"{"model":"gpt-5.5","stream":true,"store":false,"input":[{"role":"user","content":"hi"}]}"#
    );
}

#[test]
fn responses_tool_round_resends_items_byte_for_byte() {
    let done = responses(&fixture("responses-tool.sse")).unwrap();
    let reasoning: Box<RawValue> = serde_json::from_str(
        r#"{"type":"reasoning", "id":"rs_1","summary":[],"encrypted_content":"gAAA\u00e9=="}"#,
    )
    .unwrap();
    let mut input = vec![
        ResponsesInput::User("hi".into()),
        ResponsesInput::Output(reasoning),
    ];
    input.extend(
        done.output_items
            .iter()
            .cloned()
            .map(ResponsesInput::Output),
    );
    input.push(ResponsesInput::FunctionCallOutput {
        call_id: done.tool_calls[0].call_id.clone(),
        output: "line 1\n\"quoted\"".into(),
    });
    let body = responses::request_body(MODEL, "", "Be brief.", &input, &[], Some(None)).unwrap();
    let text = String::from_utf8(body).unwrap();
    let items = done_items("responses-tool.sse");
    let expected_input = format!(
        r#""instructions":"Be brief.","input":[{{"role":"user","content":"hi"}},{{"type":"reasoning", "id":"rs_1","summary":[],"encrypted_content":"gAAA\u00e9=="}},{},{},{{"type":"function_call_output","call_id":"call_waIINYNvDMbZoOlJLl3fZJZ2","output":"line 1\n\"quoted\""}}]}}"#,
        items[0], items[1]
    );
    assert!(text.ends_with(&expected_input), "{text}");
    assert!(!text.contains("\"tools\""), "no tools, no key: {text}");
}

#[test]
fn responses_other_inputs() {
    let input = [
        ResponsesInput::Assistant("done".into()),
        ResponsesInput::Developer("note".into()),
        ResponsesInput::FunctionCall(ToolCall {
            call_id: "c1".into(),
            name: "read".into(),
            arguments: "{}".into(),
        }),
    ];
    let body: Value = serde_json::from_slice(
        &responses::request_body(MODEL, "", "", &input, &[], Some(None)).unwrap(),
    )
    .unwrap();
    assert_eq!(
        body["input"],
        json!([
            {"role":"assistant","content":"done"},
            {"role":"developer","content":"note"},
            {"type":"function_call","call_id":"c1","name":"read","arguments":"{}"}
        ])
    );
    assert!(body.get("instructions").is_none());
}

#[test]
fn chat_body() {
    let done = chat(&fixture("chat-tool.sse")).unwrap();
    let messages = [
        ChatMessage::User("hi".into()),
        ChatMessage::Assistant {
            content: done.text.clone(),
            tool_calls: done.tool_calls.clone(),
        },
        ChatMessage::Tool {
            tool_call_id: done.tool_calls[0].call_id.clone(),
            content: "result".into(),
        },
        ChatMessage::Assistant {
            content: None,
            tool_calls: vec![],
        },
        ChatMessage::System("note".into()),
    ];
    let body = chat::request_body(MODEL, "Be brief.", &messages, &[read_tool()]).unwrap();
    let text = String::from_utf8(body).unwrap();
    let expected = r#"{"model":"gpt-5.5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"Reading the notes first.","tool_calls":[{"id":"call_38MX9T4FiLJXgucAey3Yj1iv","type":"function","function":{"name":"read","arguments":"{\"paths\":[\"notes.txt\"],\"mode\":\"lines\",\"offset\":1,\"length\":20}"}}]},{"role":"tool","tool_call_id":"call_38MX9T4FiLJXgucAey3Yj1iv","content":"result"},{"role":"assistant","content":null},{"role":"system","content":"note"}],"tools":[{"type":"function","function":{"name":"read","description":"Read files","parameters":"#;
    assert!(text.starts_with(expected), "{text}");
    assert!(text.ends_with(r#","strict":true}}]}"#), "{text}");
    // No instructions, no tools: neither the system message nor the key.
    let body = chat::request_body(MODEL, "", &messages[..1], &[]).unwrap();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        r#"{"model":"gpt-5.5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}"#
    );
}
