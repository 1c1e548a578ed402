//! The `rebinding` record: the session's model (and reasoning effort) changed for the
//! following turns, explicitly. Everything else a session is bound to (account, endpoint,
//! context policy, the config's other fields, the instructions) still needs a new session.
//!
//! The model in force is the initial `binding`'s, replaced by each `rebinding` in journal
//! order; a request is built from the binding in force when its turn (or resumed segment)
//! started, so replaying the journal gives every turn the model it ran under.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How hard a reasoning model thinks: the Responses API's `reasoning.effort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    /// `minimal`.
    Minimal,
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

impl Effort {
    /// Every effort, least first.
    pub const ALL: [Effort; 4] = [Effort::Minimal, Effort::Low, Effort::Medium, Effort::High];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

impl fmt::Display for Effort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Effort {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Effort::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| {
                format!("`{s}` is not a reasoning effort; use minimal, low, medium or high")
            })
    }
}

/// The model part of a session's binding: what every request of a turn is built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelBinding {
    /// The model requested (the request's `model`).
    pub model: String,
    /// The exact model name every response must report (the returned-model policy: an exact
    /// match; a response naming another model is not admitted).
    pub returned_model: String,
    /// Whether requests carry the reasoning parameters (`reasoning`, `include`).
    pub reasoning: bool,
    /// `reasoning.effort`, when chosen (`None`: the provider's default, nothing sent). Only
    /// ever set when `reasoning` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
}

impl fmt::Display for ModelBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.model)?;
        if let Some(effort) = self.effort {
            write!(f, " (effort {effort})")?;
        }
        if self.returned_model != self.model {
            write!(f, ", answering as {}", self.returned_model)?;
        }
        Ok(())
    }
}

/// Who asked for a rebinding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RebindSource {
    /// `--model` / `--effort` when the session was opened.
    Open,
    /// The `model` command (`/model` in the TUI and line mode, a JSONL driver).
    Command,
}

/// A change of the session's model binding, synced before the next request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rebinding {
    /// The binding in force before.
    pub from: ModelBinding,
    /// The binding in force from the next turn on.
    pub to: ModelBinding,
    /// Who asked.
    pub source: RebindSource,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efforts_round_trip_and_unknown_ones_are_named() {
        for e in Effort::ALL {
            assert_eq!(e.as_str().parse::<Effort>(), Ok(e));
        }
        let err = "extreme".parse::<Effort>().unwrap_err();
        assert!(err.contains("`extreme`") && err.contains("minimal, low, medium or high"));
    }

    #[test]
    fn a_rebinding_serialises_without_an_unset_effort() {
        let b = ModelBinding {
            model: "a".into(),
            returned_model: "a".into(),
            reasoning: false,
            effort: None,
        };
        let text = serde_json::to_string(&b).unwrap();
        assert_eq!(
            text,
            r#"{"model":"a","returned_model":"a","reasoning":false}"#
        );
        assert!(
            serde_json::from_str::<ModelBinding>(
                r#"{"model":"a","returned_model":"a","reasoning":true,"effort":"huge"}"#
            )
            .is_err()
        );
    }
}
