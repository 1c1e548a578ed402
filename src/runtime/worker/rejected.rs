//! What is kept of a refused tool call: a call that never runs needs its arguments only to
//! tell the model what was wrong, so the journal and the model's next request keep a bounded
//! part of them, and the reason is bounded too (a reason may quote the offending value).
//! Neither is cut silently: the kept text says how many bytes were left out.

use crate::provider::ToolCall;

/// Bytes of a refused call's arguments kept in the journal and the context.
pub(super) const KEPT_ARGUMENT_BYTES: usize = 16 * 1024;

/// Bytes of a refusal's reason given to the model and journaled.
pub(super) const KEPT_REASON_BYTES: usize = 8 * 1024;

/// `call` with its arguments cut to [`KEPT_ARGUMENT_BYTES`]. The marker after a cut makes the
/// kept text invalid JSON, so a replayed copy of the call is refused again, never run.
pub(super) fn bounded_call(call: &ToolCall) -> ToolCall {
    ToolCall {
        call_id: call.call_id.clone(),
        name: cut(&call.name, 256, "bytes of the tool name"),
        arguments: cut(&call.arguments, KEPT_ARGUMENT_BYTES, "bytes of arguments"),
    }
}

/// A refusal's reason cut to [`KEPT_REASON_BYTES`].
pub(super) fn bounded_reason(reason: String) -> String {
    if reason.len() <= KEPT_REASON_BYTES {
        return reason;
    }
    cut(&reason, KEPT_REASON_BYTES, "bytes of this message")
}

/// `text` when it fits `limit` bytes; otherwise its longest prefix that fits on a character
/// boundary and a note of what was left out.
fn cut(text: &str, limit: usize, what: &str) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let end = text.floor_char_boundary(limit);
    format!(
        "{} …[ansa: {} more {what} not kept: the call was refused and never ran]",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_refused_call_keeps_a_bounded_prefix_that_can_never_be_admitted() {
        let args = format!(r#"{{"mode":"{}"}}"#, "é".repeat(KEPT_ARGUMENT_BYTES));
        let call = ToolCall {
            call_id: "c1".into(),
            name: "read".into(),
            arguments: args.clone(),
        };
        let kept = bounded_call(&call);
        assert_eq!(kept.name, "read");
        assert!(kept.arguments.len() < KEPT_ARGUMENT_BYTES + 200);
        assert!(args.starts_with(kept.arguments.split(" …[ansa: ").next().unwrap_or("")));
        let left = args.len() - args.floor_char_boundary(KEPT_ARGUMENT_BYTES);
        assert!(
            kept.arguments
                .contains(&format!("{left} more bytes of arguments"))
        );
        assert!(serde_json::from_str::<serde_json::Value>(&kept.arguments).is_err());
        // Small arguments stay exactly as sent.
        let small = ToolCall {
            call_id: "c2".into(),
            name: "read".into(),
            arguments: r#"{"paths":["a"]}"#.into(),
        };
        assert_eq!(bounded_call(&small), small);
    }

    #[test]
    fn a_long_reason_is_cut_with_its_size_said() {
        let reason = format!("unknown variant `{}`", "x".repeat(3 * KEPT_REASON_BYTES));
        let kept = bounded_reason(reason.clone());
        assert!(kept.len() < KEPT_REASON_BYTES + 200);
        assert!(kept.starts_with("unknown variant `xxx"));
        let left = reason.len() - KEPT_REASON_BYTES;
        assert!(kept.contains(&format!("{left} more bytes of this message")));
        assert_eq!(bounded_reason("short".into()), "short");
    }
}
