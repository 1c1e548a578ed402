//! Ask mode in the worker: before a call that changes something runs, the engine's challenge
//! is put to the user and the turn waits for the decision. An approved call gets a one-time
//! permit for exactly that action; a denied one never reaches the engine.

use ansa_sessions::protocol::ApprovalRequest;
use ansa_sessions::{ApprovalDecision, CallId, RequestId};

use super::Worker;
use crate::provider::ToolCall;
use crate::runtime::crash;
use crate::runtime::stop::{Pause, Stop};
use crate::tools::{AdmittedCall, Approval};

/// What the user decided for one call.
pub(super) enum Verdict {
    /// Run it (the permit is signed).
    Run,
    /// Do not run it.
    Declined(Option<String>),
    /// The turn was cancelled while it waited.
    Cancelled,
}

impl Worker {
    /// Puts `approval` to the user unless they approved this exact action for the session,
    /// and waits for the decision.
    pub(super) fn decide(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        admitted: &AdmittedCall,
        approval: &Approval,
    ) -> Result<Verdict, Stop> {
        let mut core = self.shared.lock();
        if core
            .session()
            .state()
            .approved_for_session(&approval.digest)
        {
            return Ok(Verdict::Run);
        }
        let call_id = CallId(call.call_id.clone());
        core.ask(ApprovalRequest {
            request_id: id,
            call_id: call_id.clone(),
            tool: admitted.name.to_owned(),
            action: approval.action.clone(),
            digest: approval.digest.clone(),
            summary: approval.summary.clone(),
            argv: approval.argv.clone(),
            cwd: approval.cwd.clone(),
            diffs: approval.diffs.clone(),
            actions: approval.actions.clone(),
        })?;
        drop(core);
        crash::point("approval:asked");
        match self.shared.wait_decision() {
            Ok(d) if d.decision == ApprovalDecision::Deny => Ok(Verdict::Declined(d.reason)),
            Ok(_) => Ok(Verdict::Run),
            Err(true) => Ok(Verdict::Cancelled),
            Err(false) => Err(Stop::Paused(Pause::ApprovalUnanswered {
                call: call_id,
                summary: approval.summary.clone(),
            })),
        }
    }
}

/// What the model is told when the user declined a call.
pub(super) fn declined_text(tool: &str, reason: Option<&str>) -> String {
    match reason {
        Some(reason) => format!(
            "Not executed: the user declined this {tool} call. Their reason: {reason}\nDo not retry the same action; adjust the approach or ask the user."
        ),
        None => format!(
            "Not executed: the user declined this {tool} call (no reason given). Do not retry the same action; adjust the approach or ask the user."
        ),
    }
}
