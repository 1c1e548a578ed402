//! Ask mode in the core: the one tool call waiting for the user's decision, and the `approve`
//! command that decides it. The worker asks and waits; the control thread journals the
//! decision durably before the worker acts on it.

use ansa_sessions::protocol::{ApprovalRequest, ErrorCode, EventBody};
use ansa_sessions::{
    ApprovalDecided, ApprovalDecision, ApprovalRequested, ApprovalStanding, CallId, CommandId,
    Record, RequestId, SessionError,
};

use super::Core;

/// A call waiting for a decision, and the decision once it came.
#[derive(Debug)]
pub(super) struct Waiting {
    request: ApprovalRequest,
    decision: Option<Decision>,
}

/// What the user decided, as the worker acts on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Run once, for the session, or deny.
    pub decision: ApprovalDecision,
    /// The user's reason for a denial.
    pub reason: Option<String>,
}

impl Core {
    /// Journals that `request` waits for approval (synced) and publishes it.
    pub fn ask(&mut self, request: ApprovalRequest) -> Result<(), SessionError> {
        self.durable(Record::ApprovalRequested(ApprovalRequested {
            request_id: request.request_id,
            call_id: request.call_id.clone(),
            tool: request.tool.clone(),
            action: request.action.clone(),
            digest: request.digest.clone(),
            summary: request.summary.clone(),
        }))?;
        self.events
            .publish(EventBody::ApprovalRequired(Box::new(request.clone())));
        self.approval = Some(Waiting {
            request,
            decision: None,
        });
        Ok(())
    }

    /// The decision for the waiting call, once it came (the wait is over).
    pub fn take_decision(&mut self) -> Option<Decision> {
        let decided = self.approval.as_ref()?.decision.clone()?;
        self.approval = None;
        Some(decided)
    }

    /// Stops waiting without a decision (the turn was cancelled or paused).
    pub fn drop_approval(&mut self) {
        self.approval = None;
    }

    /// The call waiting for a decision, for snapshots.
    pub fn waiting_approval(&self) -> Option<&ApprovalRequest> {
        self.approval
            .as_ref()
            .filter(|w| w.decision.is_none())
            .map(|w| &w.request)
    }

    /// Decides on the waiting call of turn `target`; anything else is answered with a precise
    /// error and leaves the turn alone.
    pub fn approve(&mut self, id: CommandId, target: RequestId, call: CallId, decision: Decision) {
        let waiting = self.approval.as_ref().filter(|w| {
            w.decision.is_none() && w.request.request_id == target && w.request.call_id == call
        });
        let Some(waiting) = waiting else {
            self.refuse_approve(id, target, &call, &decision);
            return;
        };
        // What the user could not see cannot be approved, whatever the frontend sends.
        if decision.decision != ApprovalDecision::Deny
            && let Some(withheld) = &waiting.request.withheld
        {
            let message = format!("call {call} of turn {target} can only be denied: {withheld}");
            self.error(Some(id), ErrorCode::UnknownTarget, message);
            return;
        }
        let record = ApprovalDecided {
            request_id: target,
            call_id: call.clone(),
            digest: waiting.request.digest.clone(),
            decision: decision.decision,
            reason: decision.reason.clone(),
            command_id: id.clone(),
        };
        if let Err(e) = self.durable(Record::ApprovalDecided(record)) {
            let message = format!(
                "the decision on call {call} could not be recorded ({e}); nothing ran: cancel the turn"
            );
            self.error(Some(id), ErrorCode::StorageFailed, message);
            return;
        }
        self.events.publish(EventBody::CommandAccepted {
            command_id: id,
            request_id: target,
            turn: target.0,
        });
        self.events.publish(EventBody::ApprovalDecided {
            request_id: target,
            call_id: call,
            decision: decision.decision,
            reason: decision.reason.clone(),
        });
        if let Some(w) = self.approval.as_mut() {
            w.decision = Some(decision);
        }
    }

    fn refuse_approve(
        &mut self,
        id: CommandId,
        target: RequestId,
        call: &CallId,
        decision: &Decision,
    ) {
        let state = self.session.state();
        if state.turn(target).is_none() {
            self.unknown_turn(id, target);
            return;
        }
        let message = match state.approval(target, call) {
            Some(ApprovalStanding::Decided {
                decision: was,
                command_id,
            }) => {
                if *command_id == id && *was == decision.decision {
                    // The same command sent again: it already took effect.
                    self.events.publish(EventBody::CommandReplayed {
                        command_id: id,
                        request_id: target,
                        turn: target.0,
                    });
                    return;
                }
                format!("call {call} of turn {target} was already decided ({was}); nothing changed")
            }
            Some(ApprovalStanding::Pending { .. }) => format!(
                "call {call} of turn {target} was asked about by a process that stopped; resume turn {target} to be asked again"
            ),
            None => match self.waiting_approval() {
                Some(w) => format!(
                    "turn {target} has no call {call} waiting for approval; the call waiting is {} of turn {}",
                    w.call_id, w.request_id
                ),
                None => format!(
                    "turn {target} has no call {call} waiting for approval, and no call is waiting now"
                ),
            },
        };
        self.error(Some(id), ErrorCode::UnknownTarget, message);
    }
}
