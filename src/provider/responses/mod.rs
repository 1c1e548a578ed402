//! The OpenAI Responses API wire protocol: the request body and a strict stream reducer.
//!
//! [`ResponsesReducer`] is fed the response body's bytes as they arrive and admits a
//! [`CompletedResponse`] only after a successful `response.completed` **and** the end of the
//! stream ([`ResponsesReducer::finish`]). It checks that `response.created` comes first, that
//! `sequence_number`s are contiguous from 0, that every event belongs to the announced response
//! and the bound model, that each output item goes `output_item.added` → part/delta events →
//! `output_item.done` (keyed by `output_index` and `item_id`) and that every `done` agrees with
//! what was streamed. A reasoning item without `encrypted_content` is admitted (it is shown,
//! not re-sent: `provider::reasoning`). Unknown
//! event or item types are rejected. `response.failed`, `response.incomplete` and `error` events
//! become typed errors ([`ResponsesError::ContextLengthExceeded`] for `context_length_exceeded`).

mod error;
mod items;
mod request;
mod state;
pub(crate) mod wire;

use serde_json::value::RawValue;

use super::sse::{Feed, SseLimits};
use super::{ToolCall, Usage};

pub use error::{At, ResponsesError};
pub use request::{ResponsesInput, request_body};
pub use state::StreamProfile;

/// An admitted response: a terminal `response.completed` was seen and the stream ended cleanly.
#[derive(Debug, Clone)]
pub struct CompletedResponse {
    /// The response id.
    pub id: String,
    /// The model that produced it (equal to the bound model).
    pub model: String,
    /// Every output item exactly as `output_item.done` carried it, in output order; re-send
    /// them as [`ResponsesInput::Output`].
    pub output_items: Vec<Box<RawValue>>,
    /// The assistant's text: each message's `output_text` parts concatenated, messages in output
    /// order separated by a blank line (`\n\n`); `None` when empty.
    pub text: Option<String>,
    /// The assistant's refusal parts concatenated; `None` when there is no refusal.
    pub refusal: Option<String>,
    /// The function calls, in output order, arguments as the raw JSON string.
    pub tool_calls: Vec<ToolCall>,
    /// Token usage, when the provider reported it.
    pub usage: Option<Usage>,
}

impl PartialEq for CompletedResponse {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.model == other.model
            && self.output_items.len() == other.output_items.len()
            && self
                .output_items
                .iter()
                .zip(&other.output_items)
                .all(|(a, b)| a.get() == b.get())
            && self.text == other.text
            && self.refusal == other.refusal
            && self.tool_calls == other.tool_calls
            && self.usage == other.usage
    }
}

impl Eq for CompletedResponse {}

/// Reduces one Responses SSE body; see the module documentation.
#[derive(Debug)]
pub struct ResponsesReducer {
    feed: Feed<state::State>,
}

impl ResponsesReducer {
    /// A strict reducer that admits only responses from exactly `expected_model`, with
    /// default SSE limits.
    pub fn new(expected_model: impl Into<String>) -> Self {
        Self::with_limits(expected_model, SseLimits::default())
    }

    /// A strict reducer with explicit SSE limits.
    pub fn with_limits(expected_model: impl Into<String>, limits: SseLimits) -> Self {
        Self::with_profile(expected_model, limits, StreamProfile::Strict)
    }

    /// A reducer holding the server to `profile`.
    pub fn with_profile(
        expected_model: impl Into<String>,
        limits: SseLimits,
        profile: StreamProfile,
    ) -> Self {
        Self {
            feed: Feed::new(limits, state::State::new(expected_model.into(), profile)),
        }
    }

    /// Bytes of reasoning summary streamed so far: when it grows, [`Self::reasoning_summary`]
    /// has more to show.
    pub fn reasoning_len(&self) -> usize {
        self.feed.state().reasoning_len()
    }

    /// The model's reasoning summary so far (provisional, like the preview), if it sent one.
    pub fn reasoning_summary(&self) -> Option<String> {
        self.feed.state().reasoning_summary()
    }

    /// Feeds the next chunk of the body. `preview` receives the whole assistant text so far each
    /// time it grows, built like [`CompletedResponse::text`] (provisional: it is not a response
    /// until [`Self::finish`] admits one). After an error the reducer accepts nothing more.
    pub fn push(
        &mut self,
        chunk: &[u8],
        preview: &mut dyn FnMut(&str),
    ) -> Result<(), ResponsesError> {
        self.feed
            .push(chunk, ResponsesError::Poisoned, |state, event| {
                state.event(event, &mut *preview)
            })
    }

    /// Ends the stream: the completed response, or why there is none (a cut inside an event, no
    /// terminal event, or an earlier error).
    pub fn finish(self) -> Result<CompletedResponse, ResponsesError> {
        self.feed.finish(ResponsesError::Poisoned)?.into_completed()
    }
}
