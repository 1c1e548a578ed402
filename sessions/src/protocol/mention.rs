//! `@` mentions of a `submit`: workspace files the runtime attaches to the prompt as reads.
//!
//! The wire only checks the shape (a short, printable path; a bounded list); whether a file
//! may be attached (inside the workspace, not excluded or ignored, a text file) is the
//! runtime's decision, refused with `mention_refused` before the turn is accepted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command::CommandError;
use super::strict::StrictObject;

/// Most mentions one submit may carry: each is a whole read in the prompt.
pub const MAX_MENTIONS: usize = 16;
/// Longest mention path, in bytes.
pub const MAX_MENTION_BYTES: usize = 1024;

/// A mentioned path as the user wrote it (relative to the workspace root).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MentionPath(String);

impl MentionPath {
    /// Checks the shape of a path: non-empty, at most [`MAX_MENTION_BYTES`], no control
    /// characters (a path is shown on the terminal and written into the prompt).
    pub fn new(path: impl Into<String>) -> Result<Self, String> {
        let path = path.into();
        if path.is_empty() {
            return Err("a mention must not be empty".into());
        }
        if path.len() > MAX_MENTION_BYTES {
            return Err(format!(
                "a mention is {} bytes long; at most {MAX_MENTION_BYTES} are accepted",
                path.len()
            ));
        }
        if path.chars().any(char::is_control) {
            return Err(format!(
                "the mention {:?} contains a control character",
                path
            ));
        }
        Ok(MentionPath(path))
    }

    /// The path.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for MentionPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads the optional `mentions` array of a submit: absent or `null` is none; duplicates
/// are kept once, in their first position.
pub(crate) fn take_mentions(o: &mut StrictObject) -> Result<Vec<MentionPath>, CommandError> {
    let items = match o.take("mentions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "mentions",
                expected: "an array of path strings",
            });
        }
    };
    if items.len() > MAX_MENTIONS {
        return Err(CommandError::Invalid {
            field: "mentions",
            reason: format!(
                "{} paths; at most {MAX_MENTIONS} files can be attached to one prompt",
                items.len()
            ),
        });
    }
    let mut out: Vec<MentionPath> = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(path) = item else {
            return Err(CommandError::WrongType {
                field: "mentions",
                expected: "an array of path strings",
            });
        };
        let path = MentionPath::new(path).map_err(|reason| CommandError::Invalid {
            field: "mentions",
            reason,
        })?;
        if !out.contains(&path) {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_checked() {
        assert!(MentionPath::new("src/main.rs").is_ok());
        assert!(MentionPath::new("").is_err());
        assert!(MentionPath::new("a\u{1b}[31m").is_err());
        assert!(MentionPath::new("x".repeat(MAX_MENTION_BYTES + 1)).is_err());
    }
}
