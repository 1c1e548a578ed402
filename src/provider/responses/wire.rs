//! The JSON shapes the Responses reducer reads. Unknown fields (`obfuscation`, `logprobs`…) are
//! skipped; strings borrow from the event data whenever they contain no escapes.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};
use serde_json::value::RawValue;

/// A JSON string, borrowed from the input unless it had to be unescaped.
#[derive(Debug)]
pub(crate) struct Str<'a>(pub(crate) Cow<'a, str>);

impl Str<'_> {
    /// The string.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }
        deserializer.deserialize_str(StrVisitor).map(Str)
    }
}

/// The string of an optional field (`None` when absent or null).
pub(crate) fn opt<'s>(s: &'s Option<Str<'_>>) -> Option<&'s str> {
    s.as_ref().map(Str::as_str)
}

/// Every field any supported event carries, flat, so one parse serves all event types.
#[derive(Debug, Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    pub sequence_number: Option<u64>,
    pub output_index: Option<u64>,
    pub content_index: Option<u64>,
    pub summary_index: Option<u64>,
    #[serde(borrow)]
    pub item_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub delta: Option<Str<'a>>,
    #[serde(borrow)]
    pub text: Option<Str<'a>>,
    #[serde(borrow)]
    pub refusal: Option<Str<'a>>,
    #[serde(borrow)]
    pub arguments: Option<Str<'a>>,
    #[serde(borrow)]
    pub item: Option<&'a RawValue>,
    #[serde(borrow)]
    pub part: Option<Part<'a>>,
    #[serde(borrow)]
    pub response: Option<&'a RawValue>,
    #[serde(borrow)]
    pub response_id: Option<Str<'a>>,
    /// `error` events: flat `code`/`message`, or a nested `error` object.
    #[serde(borrow)]
    pub code: Option<Str<'a>>,
    #[serde(borrow)]
    pub message: Option<Str<'a>>,
    #[serde(borrow)]
    pub error: Option<ErrorWire<'a>>,
}

/// A content part or summary part.
#[derive(Debug, Deserialize)]
pub(super) struct Part<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub text: Option<Str<'a>>,
    #[serde(borrow)]
    pub refusal: Option<Str<'a>>,
}

/// The `response` object of lifecycle events.
#[derive(Debug, Deserialize)]
pub(super) struct ResponseWire<'a> {
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub model: Option<Str<'a>>,
    #[serde(borrow)]
    pub status: Option<Str<'a>>,
    #[serde(borrow)]
    pub error: Option<ErrorWire<'a>>,
    #[serde(borrow)]
    pub incomplete_details: Option<IncompleteWire<'a>>,
    #[serde(borrow)]
    pub output: Option<Vec<&'a RawValue>>,
    pub usage: Option<UsageWire>,
}

/// An error object.
#[derive(Debug, Deserialize)]
pub(super) struct ErrorWire<'a> {
    #[serde(borrow)]
    pub code: Option<Str<'a>>,
    #[serde(borrow)]
    pub message: Option<Str<'a>>,
}

/// `incomplete_details`.
#[derive(Debug, Deserialize)]
pub(super) struct IncompleteWire<'a> {
    #[serde(borrow)]
    pub reason: Option<Str<'a>>,
}

/// `usage` of a completed response.
#[derive(Debug, Deserialize)]
pub(super) struct UsageWire {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    pub input_tokens_details: Option<InputDetails>,
    pub output_tokens_details: Option<OutputDetails>,
}

/// `usage.input_tokens_details`.
#[derive(Debug, Deserialize)]
pub(super) struct InputDetails {
    pub cached_tokens: Option<u64>,
}

/// `usage.output_tokens_details`.
#[derive(Debug, Deserialize)]
pub(super) struct OutputDetails {
    pub reasoning_tokens: Option<u64>,
}

/// An output item, as far as the reducer checks it.
#[derive(Debug, Deserialize)]
pub(super) struct ItemWire<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub status: Option<Str<'a>>,
    #[serde(borrow)]
    pub role: Option<Str<'a>>,
    #[serde(borrow)]
    pub content: Option<Vec<Part<'a>>>,
    #[serde(borrow)]
    pub call_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub name: Option<Str<'a>>,
    #[serde(borrow)]
    pub arguments: Option<Str<'a>>,
    #[serde(borrow)]
    pub summary: Option<Vec<Part<'a>>>,
}

/// The identity of an item in `response.completed`'s `output`.
#[derive(Debug, Deserialize)]
pub(super) struct ItemHead<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
}
