//! The compatible Responses profile: what llama.cpp's server sends is admitted, what breaks
//! the stream still is not.

use super::common::fixture;
use ansa::provider::responses::{ResponsesError, ResponsesReducer, StreamProfile};
use ansa::provider::sse::SseLimits;

fn reduce(
    profile: StreamProfile,
    model: &str,
    bytes: &[u8],
) -> Result<ansa::provider::responses::CompletedResponse, ResponsesError> {
    let mut reducer = ResponsesReducer::with_profile(model, SseLimits::default(), profile);
    reducer.push(bytes, &mut |_| {})?;
    reducer.finish()
}

#[test]
fn a_llama_server_stream_is_admitted_only_by_the_compatible_profile() {
    let llama = fixture("llama-responses-text.sse");
    let done = reduce(StreamProfile::Compatible, "smollm2", &llama).expect("admitted");
    assert!(
        done.text.as_deref().is_some_and(|t| !t.is_empty()),
        "{done:?}"
    );
    assert!(done.usage.is_some());
    let strict = reduce(StreamProfile::Strict, "smollm2", &llama).unwrap_err();
    assert!(strict.to_string().contains("sequence_number"), "{strict}");
    // The model it names is still checked.
    let other = reduce(StreamProfile::Compatible, "gpt-5.5", &llama).unwrap_err();
    assert!(other.to_string().contains("smollm2"), "{other}");
}

#[test]
fn the_compatible_profile_still_needs_a_terminal_event_and_a_clean_end() {
    let llama = fixture("llama-responses-text.sse");
    let text = String::from_utf8(llama).unwrap();
    let cut = text.rfind("event: response.completed").unwrap();
    let err = reduce(
        StreamProfile::Compatible,
        "smollm2",
        &text.as_bytes()[..cut],
    )
    .unwrap_err();
    assert!(matches!(err, ResponsesError::NoTerminal { .. }), "{err}");
    let half = &text.as_bytes()[..text.len() - 40];
    assert!(reduce(StreamProfile::Compatible, "smollm2", half).is_err());
    // A delta for an item that was never added is still refused.
    let stray = text.replacen("\"item_id\":\"msg_", "\"item_id\":\"zzz_", 1);
    assert!(reduce(StreamProfile::Compatible, "smollm2", stray.as_bytes()).is_err());
}

#[test]
fn openai_is_strict_and_every_other_host_compatible() {
    assert_eq!(
        StreamProfile::for_host("api.openai.com"),
        StreamProfile::Strict
    );
    assert_eq!(
        StreamProfile::for_host("127.0.0.1"),
        StreamProfile::Compatible
    );
    assert_eq!(
        StreamProfile::for_host("openrouter.ai"),
        StreamProfile::Compatible
    );
}

#[test]
fn a_llama_server_chat_stream_is_admitted() {
    let llama = fixture("llama-chat-text.sse");
    let done = super::common::chat_chunks("smollm2", SseLimits::default(), [llama.as_slice()])
        .0
        .expect("admitted");
    assert!(done.text.as_deref().is_some_and(|t| !t.is_empty()));
    assert!(done.usage.is_some());
}
