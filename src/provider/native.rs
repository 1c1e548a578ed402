//! Provider-native items (a Responses output item, a Chat assistant message) kept byte-for-byte
//! so they can be sent back exactly (opaque reasoning survives), and the JSON form of every
//! context item in the journal.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::ContextItem;

/// The `type` tags of the runtime's own context items; anything else is provider-native.
const OWN_TAGS: &[&str] = &[
    "user",
    "assistant",
    "tool_call",
    "tool_output",
    "malformed_output",
    "environment",
    "note",
    "compaction",
];

/// One provider-native item, exactly as the provider sent it.
#[derive(Debug, Clone)]
pub struct NativeItem(Box<RawValue>);

impl NativeItem {
    /// Validates `json` as one JSON value and keeps its bytes.
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        RawValue::from_string(json.into()).map(NativeItem)
    }

    /// Wraps an already validated raw value.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        NativeItem(raw)
    }

    /// The exact JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The raw value, for embedding in a request body without re-encoding.
    pub fn raw(&self) -> &RawValue {
        &self.0
    }

    /// An owned copy of the raw value.
    pub fn to_raw(&self) -> Box<RawValue> {
        self.0.clone()
    }
}

impl PartialEq for NativeItem {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for NativeItem {}

#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
}

impl ContextItem {
    /// The item's JSON as journaled: a native item verbatim, the runtime's own items tagged.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        match self {
            ContextItem::Native(n) => Ok(n.get().to_owned()),
            own => serde_json::to_string(own),
        }
    }

    /// Reads a journaled item: the runtime's own tags decode strictly, anything else is kept
    /// as a native item.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        let tag: Tag<'_> = serde_json::from_str(json)?;
        match tag.kind.as_deref() {
            Some(kind) if OWN_TAGS.contains(&kind) => serde_json::from_str(json),
            _ => NativeItem::from_json(json).map(ContextItem::Native),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_items_round_trip_and_native_items_stay_exact() {
        for own in [
            ContextItem::User { text: "hi".into() },
            ContextItem::Environment {
                text: "<environment>\n</environment>\n".into(),
            },
            ContextItem::Note { text: "n".into() },
        ] {
            assert_eq!(
                ContextItem::from_json(&own.to_json().unwrap()).unwrap(),
                own
            );
        }
        let raw =
            r#"{"type":"reasoning","id":"rs_1","encrypted_content":"gAAA","summary":[],"n":1.0e3}"#;
        let native = ContextItem::from_json(raw).unwrap();
        assert!(matches!(&native, ContextItem::Native(n) if n.get() == raw));
        assert_eq!(native.to_json().unwrap(), raw);
        let chat = r#"{"role":"assistant","content":null,"tool_calls":[]}"#;
        assert_eq!(
            ContextItem::from_json(chat).unwrap().to_json().unwrap(),
            chat
        );
    }

    #[test]
    fn a_bad_own_item_is_an_error_not_a_native_one() {
        assert!(ContextItem::from_json(r#"{"type":"user"}"#).is_err());
        assert!(ContextItem::from_json("not json").is_err());
    }
}
