//! A session is bound to its effective config and initial instructions: a change needs a new
//! session, because the saved exact context is never silently rebuilt. A refusal names what
//! changed (the config fields, the instruction files) when the session recorded them.

use std::fmt;

use ansa_sessions::{Binding, InstructionSource, Record, Session, SessionError};
use serde_json::Value;

/// Most changes listed in one refusal.
const MAX_CHANGES: usize = 6;

/// The session was started under other settings.
#[derive(Debug)]
pub struct BindingMismatch {
    /// The session ID.
    pub session: String,
    /// What changed.
    pub what: &'static str,
    /// The bound value (a digest or model name).
    pub was: String,
    /// The current value.
    pub now: String,
    /// The changed fields or files, in words, when both bindings name them.
    pub changes: Vec<String>,
}

impl fmt::Display for BindingMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let BindingMismatch {
            session,
            what,
            was,
            now,
            ..
        } = self;
        if self.changes.is_empty() {
            write!(
                f,
                "session {session} is bound to a different {what} (was {was}, now {now})"
            )?;
        } else {
            let shown = &self.changes[..self.changes.len().min(MAX_CHANGES)];
            write!(
                f,
                "session {session} is bound to a different {what}: {}",
                shown.join("; ")
            )?;
            if self.changes.len() > MAX_CHANGES {
                write!(f, "; and {} more", self.changes.len() - MAX_CHANGES)?;
            }
        }
        write!(
            f,
            "; start a new session (without --continue/--session; /new in the TUI) or restore the earlier {what}"
        )
    }
}

impl std::error::Error for BindingMismatch {}

/// Records the binding of a new session, or checks an existing one against `current`.
pub fn check_or_record(session: &mut Session, current: &Binding) -> Result<(), BindingError> {
    let Some(bound) = session.state().binding().cloned() else {
        if session.read_only().is_some() {
            return Ok(());
        }
        session.append(Record::Binding(current.clone()))?;
        session.sync()?;
        return Ok(());
    };
    let mismatch = |what, was: String, now: String, changes| {
        BindingError::Mismatch(BindingMismatch {
            session: session.id().to_string(),
            what,
            was,
            now,
            changes,
        })
    };
    if bound.account_hash != current.account_hash {
        let credential = |hash: &Option<String>| match hash {
            Some(h) => format!("signed-in account {}", &h[..h.len().min(12)]),
            None => "API key (no sign-in)".to_owned(),
        };
        let (was, now) = (
            credential(&bound.account_hash),
            credential(&current.account_hash),
        );
        return Err(mismatch("account", was, now, Vec::new()));
    }
    if bound.config_digest != current.config_digest {
        let changes = match (&bound.config, &current.config) {
            (Some(was), Some(now)) => config_changes(was, now),
            _ => Vec::new(),
        };
        // The model is switched by a journaled rebinding (`runtime::model`), not here.
        let bound_otherwise = !changes.is_empty()
            && changes
                .iter()
                .all(|(key, _)| MODEL_FIELDS.contains(&key.as_str()));
        if !bound_otherwise {
            let changes = changes.into_iter().map(|(_, words)| words).collect();
            let (was, now) = (short(&bound.config_digest), short(&current.config_digest));
            return Err(mismatch("configuration", was, now, changes));
        }
    }
    if bound.instructions_digest != current.instructions_digest {
        let changes = if bound.instruction_sources.is_empty() {
            Vec::new()
        } else {
            source_changes(&bound.instruction_sources, &current.instruction_sources)
        };
        let what = "instructions (the base prompt or AGENTS.md)";
        let (was, now) = (
            short(&bound.instructions_digest),
            short(&current.instructions_digest),
        );
        return Err(mismatch(what, was, now, changes));
    }
    Ok(())
}

/// The config fields a journaled rebinding changes (`--model`, `/model`); a change of any
/// other field still needs a new session.
const MODEL_FIELDS: [&str; 3] = ["model", "returned_model", "reasoning"];

/// The top-level config fields that differ, each with `` `field` was X, now Y ``.
fn config_changes(was: &Value, now: &Value) -> Vec<(String, String)> {
    let (Value::Object(was), Value::Object(now)) = (was, now) else {
        return Vec::new();
    };
    let mut keys: Vec<&String> = was.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| was.get(*k) != now.get(*k))
        .map(|k| {
            let shown = |v: Option<&Value>| v.map_or_else(|| "unset".to_owned(), value_text);
            let words = format!("`{k}` was {}, now {}", shown(was.get(k)), shown(now.get(k)));
            (k.clone(), words)
        })
        .collect()
}

fn value_text(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The instruction files added, removed or edited since the session started.
fn source_changes(was: &[InstructionSource], now: &[InstructionSource]) -> Vec<String> {
    let mut changes = Vec::new();
    for old in was {
        match now.iter().find(|s| s.label == old.label) {
            Some(new) if new.digest != old.digest => {
                changes.push(format!("{} changed", old.label));
            }
            Some(_) => {}
            None => changes.push(format!("{} is gone", old.label)),
        }
    }
    for new in now {
        if !was.iter().any(|s| s.label == new.label) {
            changes.push(format!("{} was added", new.label));
        }
    }
    changes
}

fn short(s: &str) -> String {
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        format!("digest {}", &s[..12])
    } else {
        format!("`{s}`")
    }
}

/// A binding that could not be checked or recorded.
#[derive(Debug, thiserror::Error)]
pub enum BindingError {
    /// Writing it failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// It differs.
    #[error(transparent)]
    Mismatch(#[from] BindingMismatch),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_config_change_names_each_field_with_both_values() {
        let was = json!({"model": "gpt-5.5", "tool_rounds": 20, "exclude": []});
        let now = json!({"model": "gpt-5.5", "tool_rounds": 3, "reasoning": "high"});
        let words: Vec<String> = config_changes(&was, &now)
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        assert_eq!(
            words,
            [
                "`exclude` was [], now unset",
                "`reasoning` was unset, now \"high\"",
                "`tool_rounds` was 20, now 3",
            ]
        );
    }

    #[test]
    fn an_instructions_change_names_the_files() {
        let source = |label: &str, digest: &str| InstructionSource {
            label: label.into(),
            digest: digest.into(),
        };
        let was = [
            source("ansa's base instructions", "a"),
            source("/w/AGENTS.md", "b"),
            source("/AGENTS.md", "c"),
        ];
        let now = [
            source("ansa's base instructions", "a2"),
            source("/w/AGENTS.md", "b"),
            source("/w/sub/AGENTS.md", "d"),
        ];
        assert_eq!(
            source_changes(&was, &now),
            [
                "ansa's base instructions changed",
                "/AGENTS.md is gone",
                "/w/sub/AGENTS.md was added",
            ]
        );
    }

    #[test]
    fn the_message_says_what_changed_and_what_to_do() {
        let m = BindingMismatch {
            session: "S1".into(),
            what: "configuration",
            was: "digest a".into(),
            now: "digest b".into(),
            changes: vec!["`tool_rounds` was 20, now 3".into()],
        };
        assert_eq!(
            m.to_string(),
            "session S1 is bound to a different configuration: `tool_rounds` was 20, now 3; start a new session (without --continue/--session; /new in the TUI) or restore the earlier configuration"
        );
    }
}
