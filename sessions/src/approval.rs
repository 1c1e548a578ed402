//! Ask-mode approvals in the journal: a request for the user's decision on one tool call's
//! canonical action, and the decision. A permit is never journaled: it dies with the process
//! that signed it, so a pending approval comes back after a restart as a paused turn that asks
//! again.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ids::{CallId, CommandId, RequestId};

/// What the user decided about one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run it this once.
    Once,
    /// Run it, and the same canonical action again in this session without asking.
    Session,
    /// Do not run it; the model is told the user declined.
    Deny,
}

impl ApprovalDecision {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalDecision::Once => "once",
            ApprovalDecision::Session => "session",
            ApprovalDecision::Deny => "deny",
        }
    }

    /// Whether the action may run.
    pub fn approves(self) -> bool {
        self != ApprovalDecision::Deny
    }
}

impl fmt::Display for ApprovalDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ApprovalDecision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "once" => Ok(ApprovalDecision::Once),
            "session" => Ok(ApprovalDecision::Session),
            "deny" => Ok(ApprovalDecision::Deny),
            other => Err(format!(
                "unknown decision `{other}`; expected `once`, `session` or `deny`"
            )),
        }
    }
}

/// A tool call waits for the user's decision (synced before `approval_required` is published).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRequested {
    /// The turn.
    pub request_id: RequestId,
    /// Provider call ID.
    pub call_id: CallId,
    /// Tool name.
    pub tool: String,
    /// The engine's canonical action document (ASON) the permit would be bound to.
    pub action: String,
    /// Its action digest (64 lowercase hex digits).
    pub digest: String,
    /// What it does, in words (`run cargo test`, `edit src/lib.rs (+3 −1)`).
    pub summary: String,
}

/// The user's decision on a requested approval (synced before the call runs or is declined).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalDecided {
    /// The turn.
    pub request_id: RequestId,
    /// Provider call ID.
    pub call_id: CallId,
    /// The action digest decided on.
    pub digest: String,
    /// The decision.
    pub decision: ApprovalDecision,
    /// Why, when the user declined and said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The `approve` command that decided.
    pub command_id: CommandId,
}
