//! Why a Chat Completions stream produced no [`ChatCompletion`](super::ChatCompletion).

use crate::provider::sse::SseError;

/// A Chat Completions stream that was rejected, or that reported a failure. `chunk` is the
/// 1-based ordinal of the SSE event in the stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// The bytes are not a well-formed, bounded event stream.
    #[error("chat stream: {0}")]
    Sse(#[from] SseError),
    /// A chunk's data is not chunk JSON.
    #[error("chat stream: chunk #{chunk}: invalid chunk JSON: {message}")]
    Json {
        /// Where.
        chunk: u64,
        /// The parser's message.
        message: String,
    },
    /// A named SSE event (chat streams use only unnamed `data:` events).
    #[error("chat stream: chunk #{chunk}: unsupported SSE event `{name}`")]
    UnknownEvent {
        /// Where.
        chunk: u64,
        /// The SSE event name.
        name: String,
    },
    /// A required field is missing.
    #[error("chat stream: chunk #{chunk}: missing field `{field}`")]
    MissingField {
        /// Where.
        chunk: u64,
        /// The field (dotted path).
        field: &'static str,
    },
    /// A chunk belongs to another completion than the first chunk.
    #[error(
        "chat stream: chunk #{chunk}: completion id `{got}` differs from `{expected}` of the first chunk"
    )]
    Id {
        /// Where.
        chunk: u64,
        /// The first chunk's id.
        expected: String,
        /// This chunk's id.
        got: String,
    },
    /// The completion was produced by another model than the bound one.
    #[error(
        "chat stream: chunk #{chunk}: the chunk's model `{got}` is not the bound model `{expected}`"
    )]
    Model {
        /// Where.
        chunk: u64,
        /// The bound model.
        expected: String,
        /// The model the chunk names.
        got: String,
    },
    /// A tool-call delta opened index `got` while the next new call is `expected`.
    #[error(
        "chat stream: chunk #{chunk}: tool_calls index {got} skips or reorders calls; the next new call is index {expected}"
    )]
    ToolCallIndex {
        /// Where.
        chunk: u64,
        /// The next new index.
        expected: u64,
        /// The index in the delta.
        got: u64,
    },
    /// Any other ordering or consistency violation, described in `message`.
    #[error("chat stream: chunk #{chunk}: {message}")]
    Protocol {
        /// Where.
        chunk: u64,
        /// What is wrong.
        message: String,
    },
    /// `finish_reason: "length"`: the output hit the token limit.
    #[error(
        "chat stream: chunk #{chunk}: the completion stopped at the output token limit (finish_reason length)"
    )]
    Length {
        /// Where.
        chunk: u64,
    },
    /// `finish_reason: "content_filter"`.
    #[error(
        "chat stream: chunk #{chunk}: the completion was stopped by the content filter (finish_reason content_filter)"
    )]
    ContentFilter {
        /// Where.
        chunk: u64,
    },
    /// A `finish_reason` outside `stop`, `tool_calls`, `length`, `content_filter`.
    #[error("chat stream: chunk #{chunk}: unsupported finish_reason `{reason}`")]
    UnknownFinishReason {
        /// Where.
        chunk: u64,
        /// The reason.
        reason: String,
    },
    /// The provider reported that the input exceeds the model's context window.
    #[error("chat stream: chunk #{chunk}: context length exceeded: {message}")]
    ContextLengthExceeded {
        /// Where.
        chunk: u64,
        /// The provider's message.
        message: String,
    },
    /// An error object in the stream (other than a context-length error).
    #[error("chat stream: chunk #{chunk}: the provider reported an error (code {}): {message}", code.as_deref().unwrap_or("none"))]
    Api {
        /// Where.
        chunk: u64,
        /// The provider's error code.
        code: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// A chunk after `data: [DONE]`.
    #[error("chat stream: chunk #{chunk}: data after [DONE]")]
    AfterDone {
        /// Where.
        chunk: u64,
    },
    /// The stream ended (cleanly framed) without `data: [DONE]`.
    #[error(
        "chat stream ended after {chunks} chunks without data: [DONE]; the completion is not admitted"
    )]
    NoDone {
        /// Chunks received.
        chunks: u64,
    },
    /// Input or `finish` after the reducer already returned an error.
    #[error("chat stream already rejected by an earlier error")]
    Poisoned,
}

impl ChatError {
    /// Whether the provider refused the input as too long for the model's context window.
    pub fn is_context_length_exceeded(&self) -> bool {
        matches!(self, Self::ContextLengthExceeded { .. })
    }
}
