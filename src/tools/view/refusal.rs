//! Calls refused before anything ran, in the shape of every other error answer: `s`, `error`
//! (a word the legend names), `why` (what was wrong) and `next` (what to do).

use ash_engine::ason::{self, Atom, Document, Value};

use super::words::Refusal;
use crate::tools::{ToolCallError, ToolExecError};

/// Sentences after which a refusal's text turns from what happened to what to do.
const NOTHING_RAN: [&str; 3] = [
    "Nothing was executed.",
    "Nothing was changed in any file.",
    "Nothing was changed.",
];

/// The answer of a call refused for `kind`: `why` says what was wrong, `next` what to do.
pub fn refusal(kind: Refusal, why: &str, next: &str) -> String {
    let (error, status) = kind.words();
    let doc = Document::new()
        .with("s", Value::Scalar(Atom::text(status)))
        .with("error", Value::Scalar(Atom::text(error)))
        .with("why", Value::Scalar(Atom::text(why)))
        .with("next", Value::Scalar(Atom::text(next)));
    ason::encode(&doc)
}

/// Splits a refusal's one-paragraph text into what happened (up to "Nothing was executed.")
/// and what to do (the rest, or `default_next` when the text gives no advice).
fn split(text: &str, default_next: &str) -> (String, String) {
    for marker in NOTHING_RAN {
        if let Some(at) = text.find(marker) {
            let end = at + marker.len();
            let rest = text[end..].trim();
            let next = if rest.is_empty() { default_next } else { rest };
            return (text[..end].to_owned(), next.to_owned());
        }
    }
    (text.to_owned(), default_next.to_owned())
}

const FIX_ARGUMENTS: &str = "Fix the arguments and call again.";

/// The answer of a call refused at admission (unknown tool, bad JSON, schema or rule);
/// `text` is its message as kept (the error's text, perhaps shortened).
pub fn call_error(error: &ToolCallError, text: &str) -> String {
    let kind = match error {
        ToolCallError::UnknownTool { .. } => Refusal::UnknownTool,
        ToolCallError::NotInMode { .. } => Refusal::NotAllowed,
        ToolCallError::BadJson { .. } | ToolCallError::InvalidArguments { .. } => {
            Refusal::InvalidArgument
        }
    };
    let (why, next) = split(text, FIX_ARGUMENTS);
    refusal(kind, &why, &next)
}

/// The answer of an admitted call the tool layer refused before running it.
pub fn exec_error(error: &ToolExecError) -> String {
    let (kind, default_next) = match error {
        ToolExecError::Invalid { .. } => (Refusal::InvalidArgument, FIX_ARGUMENTS),
        ToolExecError::Edit { .. } => (
            Refusal::InvalidArgument,
            "Read the file again and copy each old text exactly as it is now (once in the file).",
        ),
        ToolExecError::ReadOnly { .. }
        | ToolExecError::Sudo { .. }
        | ToolExecError::Excluded { .. }
        | ToolExecError::GitInternals { .. }
        | ToolExecError::SandboxUnavailable { .. }
        | ToolExecError::OutsideSandboxRefused { .. } => {
            (Refusal::NotAllowed, "Do it another way, or ask the user.")
        }
        ToolExecError::NeedsApproval { .. } | ToolExecError::Permit { .. } => (
            Refusal::NotApproved,
            "Say what you wanted to do and why, or do it another way.",
        ),
        ToolExecError::Unreadable { .. } | ToolExecError::Instructions { .. } => (
            Refusal::Filesystem,
            "Check the path with `list`, or tell the user what could not be read.",
        ),
    };
    let (why, next) = split(&error.to_string(), default_next);
    refusal(kind, &why, &next)
}
