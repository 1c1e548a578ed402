//! Ask mode in the worker: before a call that changes something runs, the engine's challenge
//! is put to the user and the turn waits for the decision. An approved call gets a one-time
//! permit for exactly that action; a denied one never reaches the engine.

use ansa_sessions::protocol::{ReportTone, ToolReport};
use ansa_sessions::{ApprovalDecision, CallId, RequestId, ToolOutcomeStatus};

use super::{Output, Worker};
use crate::provider::ToolCall;
use crate::runtime::crash;
use crate::runtime::stop::{Pause, Stop};
use crate::tools::{self, AdmittedCall, Approval, Prepared, Refusal, ToolExecError};

/// What the user decided for one call.
enum Verdict {
    /// Run it (the permit is signed).
    Run,
    /// Do not run it.
    Declined(Option<String>),
    /// The turn was cancelled while it waited.
    Cancelled,
}

impl Worker {
    /// In ask mode, puts a prepared call that changes something to the user. `None`: run it
    /// (its permit is signed, or it needs none); `Some`: the call ends here with this outcome,
    /// without an intent, because it never reaches the engine.
    pub(super) fn gate(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        admitted: &AdmittedCall,
        prepared: &mut Result<Prepared, ToolExecError>,
    ) -> Result<Option<(ToolOutcomeStatus, Output)>, Stop> {
        let Ok(ready) = prepared.as_mut() else {
            return Ok(None);
        };
        let Some(mut approval) = self.tools.approval(ready) else {
            return Ok(None);
        };
        // First in the summary, so that no cut of a long one can hide it.
        let protected = self.tools.protected_write(&admitted.args);
        if let Some(path) = protected {
            approval.summary = format!(
                "writes {path} inside .git (git may run it as a command): {}",
                approval.summary
            );
        }
        let protected = protected.is_some();
        match self.decide(id, call, admitted, &approval, protected)? {
            Verdict::Run => {
                if let Err(e) = self.tools.grant(ready, &approval) {
                    *prepared = Err(e);
                }
                Ok(None)
            }
            Verdict::Declined(reason) => Ok(Some(declined(&admitted.name, reason.as_deref()))),
            Verdict::Cancelled => Ok(Some(cancelled_waiting())),
        }
    }

    /// Puts `approval` to the user unless they approved this exact action for the session
    /// (a `protected` write is always asked), and waits for the decision.
    fn decide(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        admitted: &AdmittedCall,
        approval: &Approval,
        protected: bool,
    ) -> Result<Verdict, Stop> {
        let mut core = self.shared.lock();
        if !protected
            && core
                .session()
                .state()
                .approved_for_session(&approval.digest)
        {
            return Ok(Verdict::Run);
        }
        let call_id = CallId(call.call_id.clone());
        core.ask(approval.request(id, call_id.clone(), &admitted.name))?;
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

/// What the model is told to do when the user declined a call.
const DECLINED_NEXT: &str = "Do not retry the same action; adjust the approach or ask the user.";

/// Why a call did not run when the user declined it.
fn declined_text(tool: &str, reason: Option<&str>) -> String {
    match reason {
        Some(reason) => {
            format!("Not executed: the user declined this {tool} call. Their reason: {reason}")
        }
        None => format!("Not executed: the user declined this {tool} call (no reason given)."),
    }
}

/// The outcome of a call of `tool` the user declined (with their `reason`): a refusal the
/// model reads, for ansa's tools and MCP tools alike.
pub(super) fn declined(tool: &str, reason: Option<&str>) -> (ToolOutcomeStatus, Output) {
    let text = declined_text(tool, reason);
    let answer = tools::refusal(Refusal::NotApproved, &text, DECLINED_NEXT);
    let summary = match reason {
        Some(r) => format!("declined: {r}"),
        None => "declined by the user".to_owned(),
    };
    let report = ToolReport::new(ReportTone::Warn, summary);
    (
        ToolOutcomeStatus::Error,
        Output::refused(answer, text, report),
    )
}

/// The outcome of a call whose turn was cancelled while it waited for the user's approval.
pub(super) fn cancelled_waiting() -> (ToolOutcomeStatus, Output) {
    let text =
        "Not executed: the turn was cancelled while this call waited for the user's approval.";
    let answer = tools::refusal(
        Refusal::Cancelled,
        text,
        "Do not run it again unless the user asks.",
    );
    let report = ToolReport::new(ReportTone::Warn, "not run: cancelled");
    (
        ToolOutcomeStatus::Cancelled,
        Output::refused(answer, text.into(), report),
    )
}
