//! The worker's side of orchestrate mode's `delegate` call: its intent is synced before any
//! child starts, its outcome only when every child has ended. What runs the children is a
//! [`Delegator`] the runtime hands in (`runtime/orchestrate/`), so the worker never depends
//! on the orchestrator (which builds child workers from this module).

use ansa_sessions::child::DELEGATE_TOOL;
use ansa_sessions::protocol::{ToolPhase, ToolReport};
use ansa_sessions::{CallId, ModelBinding, RequestId, ToolOutcomeStatus};

use super::{Output, Step, Worker};
use crate::provider::ToolCall;
use crate::runtime::core::CancelHandles;
use crate::runtime::stop::{Pause, Stop};
use crate::tools::delegate::DelegateArgs;
use crate::tools::{AdmittedCall, ToolExecutor};

/// One `delegate` call as the orchestrator gets it.
pub struct DelegateCall<'a> {
    /// The parent's turn.
    pub request_id: RequestId,
    /// The call.
    pub call_id: &'a CallId,
    /// Its validated tasks.
    pub args: &'a DelegateArgs,
    /// The parent's executor: children get executors on the same engine session.
    pub tools: &'a ToolExecutor,
    /// The parent turn's cancel signals: raising them cancels every child.
    pub cancel: &'a CancelHandles,
    /// The parent's model binding in force for this turn: children run on the same one.
    pub binding: &'a ModelBinding,
}

/// What a `delegate` call produced.
pub enum Delegated {
    /// Every child ended: the call's outcome.
    Ended {
        /// How the call ended.
        status: ToolOutcomeStatus,
        /// What the model receives.
        text: String,
        /// The parent's tool row.
        report: ToolReport,
    },
    /// Some children paused: the call stays without an outcome and the parent's turn pauses;
    /// its Resume continues them (finished children keep their results).
    Paused {
        /// How many.
        paused: usize,
        /// The first one's reason.
        reason: String,
    },
}

/// Runs the children of a `delegate` call until each has ended.
pub trait Delegator: Send + Sync {
    /// Runs (or resumes) every child of `call` and collects their results.
    fn delegate(&self, call: DelegateCall<'_>) -> Delegated;
}

/// Whether a call with an intent and no outcome is resumed rather than left `effect_unknown`.
pub(super) fn resumable(call: &ToolCall) -> bool {
    call.name == DELEGATE_TOOL
}

impl Worker {
    /// Runs a `delegate` call: a `before` checkpoint (children may change the workspace), the
    /// intent (unless a resumed call has it already), the children, then the outcome.
    pub(super) fn run_delegate(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        admitted: &AdmittedCall,
        args: &DelegateArgs,
    ) -> Step<()> {
        let call_id = CallId(call.call_id.clone());
        let Some(delegator) = self.delegate.clone() else {
            // Admission offers `delegate` only in orchestrate mode, which a child never runs in.
            let why = "a child agent cannot delegate. Nothing was executed.";
            let next = "do the task yourself.";
            let text = format!("delegate refused: {why} {next}");
            let report = ToolReport::failed(&text);
            let answer = crate::tools::refusal(crate::tools::Refusal::NotAllowed, why, next);
            return self.outcome(
                id,
                call,
                ToolOutcomeStatus::Error,
                Output::refused(answer, text, report),
                ToolPhase::Failed,
            );
        };
        self.checkpoint_before(id, &admitted.name)?;
        let resumed = self
            .shared
            .lock()
            .session()
            .state()
            .open_intents()
            .any(|i| i.request_id == id && i.call_id == call_id);
        if !resumed {
            self.intent(id, call, admitted)?;
        }
        let cancel = self.shared.lock().cancel_handles();
        let delegated = delegator.delegate(DelegateCall {
            request_id: id,
            call_id: &call_id,
            args,
            tools: &self.tools,
            cancel: &cancel,
            binding: &self.in_force,
        });
        let (status, text, report) = match delegated {
            Delegated::Ended {
                status,
                text,
                report,
            } => (status, text, report),
            Delegated::Paused { paused, reason } => {
                return Err(Stop::Paused(Pause::ChildrenPaused { paused, reason }));
            }
        };
        let phase = match status {
            ToolOutcomeStatus::Ok => ToolPhase::Finished,
            _ => ToolPhase::Failed,
        };
        self.outcome(id, call, status, Output::text(text, report), phase)?;
        if status == ToolOutcomeStatus::Cancelled {
            return Err(Stop::Cancelled);
        }
        Ok(())
    }
}
