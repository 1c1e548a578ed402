//! Shared helpers: fixtures, reducers run over chunk patterns, event-block surgery.

use ansa::provider::chat::{ChatCompletion, ChatError, ChatReducer};
use ansa::provider::responses::{CompletedResponse, ResponsesError, ResponsesReducer};
use ansa::provider::sse::SseLimits;

/// The model the fixtures were recorded with.
pub const MODEL: &str = "gpt-5.5";

/// A canonical fixture from `spec/sse/`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/spec/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What one run produced: the result and every preview, in order.
pub type Run<T, E> = (Result<T, E>, Vec<String>);

/// Reduces `chunks` with a Responses reducer. After a push error, `finish` must not admit.
pub fn responses_chunks<'a>(
    model: &str,
    limits: SseLimits,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Run<CompletedResponse, ResponsesError> {
    let mut reducer = ResponsesReducer::with_limits(model, limits);
    let mut previews = Vec::new();
    let mut preview = |text: &str| previews.push(text.to_owned());
    for chunk in chunks {
        if let Err(err) = reducer.push(chunk, &mut preview) {
            assert_eq!(
                reducer.push(b"\n\n", &mut preview),
                Err(ResponsesError::Poisoned)
            );
            assert_eq!(reducer.finish(), Err(ResponsesError::Poisoned));
            return (Err(err), previews);
        }
    }
    (reducer.finish(), previews)
}

/// Reduces a whole Responses body in one chunk with the fixture model.
pub fn responses(bytes: &[u8]) -> Result<CompletedResponse, ResponsesError> {
    responses_chunks(MODEL, SseLimits::default(), [bytes]).0
}

/// Reduces `chunks` with a Chat reducer. After a push error, `finish` must not admit.
pub fn chat_chunks<'a>(
    model: &str,
    limits: SseLimits,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Run<ChatCompletion, ChatError> {
    let mut reducer = ChatReducer::with_limits(model, limits);
    let mut previews = Vec::new();
    let mut preview = |text: &str| previews.push(text.to_owned());
    for chunk in chunks {
        if let Err(err) = reducer.push(chunk, &mut preview) {
            assert_eq!(
                reducer.push(b"\n\n", &mut preview),
                Err(ChatError::Poisoned)
            );
            assert_eq!(reducer.finish(), Err(ChatError::Poisoned));
            return (Err(err), previews);
        }
    }
    (reducer.finish(), previews)
}

/// Reduces a whole Chat body in one chunk with the fixture model.
pub fn chat(bytes: &[u8]) -> Result<ChatCompletion, ChatError> {
    chat_chunks(MODEL, SseLimits::default(), [bytes]).0
}

/// The fixture's events as text blocks (without their closing blank line).
pub fn blocks(name: &str) -> Vec<String> {
    let text = String::from_utf8(fixture(name)).expect("fixtures are UTF-8");
    text.split_terminator("\n\n").map(str::to_owned).collect()
}

/// Blocks back to a stream, each closed by a blank line.
pub fn join(blocks: &[String]) -> Vec<u8> {
    let mut out = String::new();
    for block in blocks {
        out.push_str(block);
        out.push_str("\n\n");
    }
    out.into_bytes()
}

/// Replaces `from` (which must occur) by `to` in block `index`.
pub fn edit(blocks: &mut [String], index: usize, from: &str, to: &str) {
    assert!(
        blocks[index].contains(from),
        "block {index} has no {from:?}: {}",
        blocks[index]
    );
    blocks[index] = blocks[index].replacen(from, to, 1);
}

/// The `item` of every `output_item.done` event, byte for byte as in the fixture.
pub fn done_items(name: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Done<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        #[serde(borrow)]
        item: Option<&'a serde_json::value::RawValue>,
    }
    let mut items = Vec::new();
    for block in blocks(name) {
        let data = block
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .expect("data line");
        let done: Done<'_> = serde_json::from_str(data).expect("fixture JSON");
        if done.kind == "response.output_item.done" {
            items.push(done.item.expect("item").get().to_owned());
        }
    }
    items
}
