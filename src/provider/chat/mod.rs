//! The OpenAI-compatible Chat Completions wire protocol (ollama, llama.cpp server, vLLM,
//! OpenRouter…): the request body and a strict stream reducer.
//!
//! [`ChatReducer`] is fed the body's bytes as they arrive and admits a [`ChatCompletion`] only
//! after a `finish_reason` of `stop` or `tool_calls`, `data: [DONE]`, **and** the end of the
//! stream ([`ChatReducer::finish`]). Every chunk must carry the first chunk's `id` and exactly
//! the bound model; `delta.content` and `delta.refusal` accumulate; `delta.tool_calls[]` entries
//! are assembled by `index` (a new call takes the next index and brings its id and name, later
//! entries append arguments). `length` and `content_filter` finishes, and error objects in the
//! stream, become typed errors ([`ChatError::ContextLengthExceeded`] for
//! `context_length_exceeded`).

mod error;
mod request;
mod state;

use super::ToolCall;
use super::sse::{Feed, SseLimits};

use super::Usage;
pub use error::ChatError;
pub use request::{ChatMessage, request_body};

/// Why an admitted completion ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// A natural end (an answer, a refusal, or — from some servers — tool calls).
    Stop,
    /// The model asked for tool calls.
    ToolCalls,
}

/// An admitted completion: a finish reason, `data: [DONE]` and a clean end of stream were seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatCompletion {
    /// The completion id.
    pub id: String,
    /// The model that produced it (equal to the bound model).
    pub model: String,
    /// The assistant's content; `None` when empty.
    pub text: Option<String>,
    /// The assistant's refusal; `None` when there is none.
    pub refusal: Option<String>,
    /// The tool calls by index, arguments as the raw JSON string; re-send them in
    /// [`ChatMessage::Assistant`].
    pub tool_calls: Vec<ToolCall>,
    /// Token usage, when the server sent a usage chunk.
    pub usage: Option<Usage>,
    /// Why it ended.
    pub finish_reason: FinishReason,
}

/// Reduces one Chat Completions SSE body; see the module documentation.
#[derive(Debug)]
pub struct ChatReducer {
    feed: Feed<state::State>,
}

impl ChatReducer {
    /// A reducer that admits only completions from exactly `expected_model`, with default SSE
    /// limits.
    pub fn new(expected_model: impl Into<String>) -> Self {
        Self::with_limits(expected_model, SseLimits::default())
    }

    /// A reducer with explicit SSE limits.
    pub fn with_limits(expected_model: impl Into<String>, limits: SseLimits) -> Self {
        Self {
            feed: Feed::new(limits, state::State::new(expected_model.into())),
        }
    }

    /// Feeds the next chunk of the body. `preview` receives the whole assistant content so far
    /// each time it grows (provisional until [`Self::finish`] admits it). After an error the
    /// reducer accepts nothing more.
    pub fn push(&mut self, chunk: &[u8], preview: &mut dyn FnMut(&str)) -> Result<(), ChatError> {
        self.feed.push(chunk, ChatError::Poisoned, |state, event| {
            state.event(event, &mut *preview)
        })
    }

    /// Ends the stream: the completion, or why there is none (a cut inside an event, no
    /// `[DONE]`, or an earlier error).
    pub fn finish(self) -> Result<ChatCompletion, ChatError> {
        self.feed.finish(ChatError::Poisoned)?.into_completion()
    }
}
