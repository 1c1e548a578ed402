//! Why a Responses stream produced no [`CompletedResponse`](super::CompletedResponse).

use std::fmt;

use crate::provider::sse::SseError;

/// Where in the stream a fault was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// 1-based ordinal of the SSE event in the stream.
    pub event: u64,
    /// The event's `sequence_number`, when it could be read.
    pub sequence_number: Option<u64>,
    /// The event's type (the JSON `type`, or the SSE event name when the JSON is unreadable).
    pub kind: String,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event #{} `{}`", self.event, self.kind)?;
        if let Some(seq) = self.sequence_number {
            write!(f, " (sequence_number {seq})")?;
        }
        Ok(())
    }
}

/// A Responses stream that was rejected, or that reported a failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponsesError {
    /// The bytes are not a well-formed, bounded event stream.
    #[error("responses stream: {0}")]
    Sse(#[from] SseError),
    /// An event's data is not the JSON the event type requires.
    #[error("responses stream: {at}: invalid event JSON: {message}")]
    Json {
        /// Where.
        at: At,
        /// The parser's message.
        message: String,
    },
    /// The SSE `event:` name and the JSON `type` disagree.
    #[error("responses stream: {at}: the SSE event name `{name}` differs from the JSON type")]
    EventName {
        /// Where.
        at: At,
        /// The SSE event name.
        name: String,
    },
    /// An event type outside the supported set.
    #[error("responses stream: {at}: unsupported event type `{}`", at.kind)]
    UnknownEvent {
        /// Where.
        at: At,
    },
    /// An output item type outside the supported set (`message`, `function_call`, `reasoning`).
    #[error("responses stream: {at}: unsupported output item type `{item_type}`")]
    UnknownItem {
        /// Where.
        at: At,
        /// The item's `type`.
        item_type: String,
    },
    /// A required field is missing.
    #[error("responses stream: {at}: missing field `{field}`")]
    MissingField {
        /// Where.
        at: At,
        /// The field (dotted path).
        field: &'static str,
    },
    /// `sequence_number` is not contiguous from 0 (a gap, a duplicate or a reordering).
    #[error("responses stream: {at}: expected sequence_number {expected}, got {got}")]
    Sequence {
        /// Where.
        at: At,
        /// The next number in order.
        expected: u64,
        /// The number the event carries.
        got: u64,
    },
    /// The stream did not start with `response.created`.
    #[error("responses stream: {at}: the first event must be `response.created`")]
    NotCreatedFirst {
        /// Where.
        at: At,
    },
    /// An event belongs to another response than the one `response.created` announced.
    #[error(
        "responses stream: {at}: response id `{got}` differs from `{expected}` announced by response.created"
    )]
    ResponseId {
        /// Where.
        at: At,
        /// The id from `response.created`.
        expected: String,
        /// The id in this event.
        got: String,
    },
    /// The response was produced by another model than the bound one.
    #[error(
        "responses stream: {at}: the response's model `{got}` is not the bound model `{expected}`"
    )]
    Model {
        /// Where.
        at: At,
        /// The bound model.
        expected: String,
        /// The model the response names.
        got: String,
    },
    /// Any other ordering or consistency violation, described in `message`.
    #[error("responses stream: {at}: {message}")]
    Protocol {
        /// Where.
        at: At,
        /// What is wrong.
        message: String,
    },
    /// An event arrived after the terminal event.
    #[error("responses stream: {at}: event after the terminal response.completed")]
    AfterTerminal {
        /// Where.
        at: At,
    },
    /// The stream ended (cleanly framed) before a terminal event.
    #[error(
        "responses stream ended after {events} events without a terminal event (response.completed); the response is not admitted"
    )]
    NoTerminal {
        /// Events received.
        events: u64,
    },
    /// The provider failed the response because the input exceeds the model's context window.
    #[error("responses stream: {at}: context length exceeded: {message}")]
    ContextLengthExceeded {
        /// Where.
        at: At,
        /// The provider's message.
        message: String,
    },
    /// `response.failed` (other than a context-length failure).
    #[error("responses stream: {at}: the response failed (code {}): {message}", code.as_deref().unwrap_or("none"))]
    Failed {
        /// Where.
        at: At,
        /// The provider's error code.
        code: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// `response.incomplete`: the response stopped early (token limit, content filter…).
    #[error("responses stream: {at}: the response is incomplete: {reason}")]
    Incomplete {
        /// Where.
        at: At,
        /// `incomplete_details.reason` (`unknown` when absent).
        reason: String,
    },
    /// An `error` event (other than a context-length error).
    #[error("responses stream: {at}: the provider reported an error (code {}): {message}", code.as_deref().unwrap_or("none"))]
    Api {
        /// Where.
        at: At,
        /// The provider's error code.
        code: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// Input or `finish` after the reducer already returned an error.
    #[error("responses stream already rejected by an earlier error")]
    Poisoned,
}

impl ResponsesError {
    /// Whether the provider refused the input as too long for the model's context window.
    pub fn is_context_length_exceeded(&self) -> bool {
        matches!(self, Self::ContextLengthExceeded { .. })
    }
}

/// The position of the event being reduced; builds [`At`] only when an error needs it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cx<'e> {
    pub event: u64,
    pub seq: Option<u64>,
    pub kind: &'e str,
}

impl Cx<'_> {
    pub fn at(&self) -> At {
        At {
            event: self.event,
            sequence_number: self.seq,
            kind: self.kind.to_owned(),
        }
    }

    pub fn protocol(&self, message: impl Into<String>) -> ResponsesError {
        ResponsesError::Protocol {
            at: self.at(),
            message: message.into(),
        }
    }

    pub fn missing(&self, field: &'static str) -> ResponsesError {
        ResponsesError::MissingField {
            at: self.at(),
            field,
        }
    }
}
