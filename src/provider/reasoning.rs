//! Reasoning items a host cannot carry between requests: a Responses `reasoning` item without a
//! non-empty `encrypted_content` (llama.cpp, vLLM, other OpenAI-compatible hosts, or a model
//! not asked for it). Such an item is admitted and journaled exactly like any other, its
//! summary shown, but it is never re-sent: a host that did not encrypt its reasoning cannot
//! read it back, and leaving it out is decided from the item alone, so replay stays exact.

use serde::Deserialize;

use super::NativeItem;

/// What the note that a host's reasoning is not carried says (once per session).
pub const NOT_CARRIED: &str = "this host's reasoning cannot be carried between requests (its reasoning items have no encrypted_content): each request reasons afresh; summaries are still shown";

#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    encrypted_content: Option<std::borrow::Cow<'a, str>>,
}

/// Whether `item` is a reasoning item the host cannot read back (left out of later requests).
pub fn uncarried(item: &NativeItem) -> bool {
    match serde_json::from_str::<Probe<'_>>(item.get()) {
        Ok(p) => {
            p.kind.as_deref() == Some("reasoning")
                && p.encrypted_content.as_deref().is_none_or(str::is_empty)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: &str) -> NativeItem {
        NativeItem::from_json(json).unwrap()
    }

    #[test]
    fn only_reasoning_without_encrypted_content_is_uncarried() {
        for json in [
            r#"{"type":"reasoning","id":"rs_1","summary":[]}"#,
            r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":""}"#,
            r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":null}"#,
        ] {
            assert!(uncarried(&item(json)), "{json}");
        }
        for json in [
            r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}"#,
            r#"{"type":"message","id":"m","role":"assistant","content":[]}"#,
            r#"{"role":"assistant","content":"hi"}"#,
            r#"[1,2]"#,
        ] {
            assert!(!uncarried(&item(json)), "{json}");
        }
    }
}
