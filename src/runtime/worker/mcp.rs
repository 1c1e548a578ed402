//! MCP calls in the worker (issue 45): the registry kept in step with the session's servers
//! before each request, and each call run like every tool: decided in ask mode before its
//! intent, intent synced, the server called (cancel and timeout end it), outcome synced.

use std::sync::Arc;

use ansa_mcp::{CallError, CallResult, CancelFlag, Progress, ProgressSink, ServerName};
use ansa_sessions::protocol::{ReportTone, ToolPhase, ToolReport};
use ansa_sessions::{ApprovalDecision, CallId, Record, RequestId, ToolOutcomeStatus};
use ash_engine::exec::LiveOutput;

use super::approve::{cancelled_waiting, declined};
use super::{Output, Step, Worker};
use crate::config::AccessMode;
use crate::provider::{ContextItem, ToolCall};
use crate::runtime::crash;
use crate::runtime::stop::{Pause, Stop};
use crate::tools::AdmittedCall;
use crate::tools::mcp::{McpApproval, McpArgs, call_digest, render};

/// What the user decided on an MCP call.
enum Verdict {
    Run,
    Declined(Option<String>),
    Cancelled,
}

impl Worker {
    /// Before a request (and before resumed calls are admitted): the registry's MCP tools as
    /// the servers have them now; a changed list is journaled (`mcp_tools`) and withdrawn
    /// tools are named to the model once.
    pub(super) fn sync_mcp(&mut self, id: RequestId, generation: u64) -> Step<()> {
        let Some(mcp) = self.mcp.as_mut() else {
            return Ok(());
        };
        let Some(change) = mcp.refresh(&mut self.registry) else {
            return Ok(());
        };
        if let Some(record) = change.record {
            // Buffered: the next durable step (an intent at the latest) syncs it before any
            // call of a name it maps.
            self.shared.lock().append(Record::McpTools(record))?;
        }
        {
            // Read under the core's lock, as the state watcher does: the states frontends see
            // keep their order.
            let mut core = self.shared.lock();
            let statuses = mcp.hub().statuses();
            core.mcp_statuses(&statuses);
        }
        if let Some(note) = change.note {
            self.journal_item(id, generation, ContextItem::Note { text: note })?;
        }
        Ok(())
    }

    /// Runs one admitted MCP call.
    pub(super) fn run_mcp(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        admitted: &AdmittedCall,
        args: &McpArgs,
    ) -> Step<()> {
        let call_id = CallId(call.call_id.clone());
        let Some(mcp) = self.mcp.as_ref() else {
            let text = format!(
                "Not executed: MCP server `{}` is not configured in this session (mcp_servers in ~/.ansa/config.json).",
                args.server
            );
            let report = ToolReport::failed(&text);
            return self.outcome(
                id,
                call,
                ToolOutcomeStatus::Error,
                Output::text(text, report),
                ToolPhase::Failed,
            );
        };
        let hub = Arc::clone(mcp.hub());
        let unasked = mcp.runs_unasked(&args.hints);
        let access = self.tools.policy().access_mode;
        if access == AccessMode::ReadOnly && !args.hints.read_only {
            let text = format!(
                "Not executed: this session is read-only, and MCP tool `{}` of server `{}` does not declare readOnlyHint.",
                args.tool, args.server
            );
            let report = ToolReport::new(ReportTone::Warn, "not run: read-only session");
            return self.outcome(
                id,
                call,
                ToolOutcomeStatus::Error,
                Output::text(text, report),
                ToolPhase::Failed,
            );
        }
        // What the user approves is all of what runs: the digest is re-derived from the
        // arguments handed to the server and must be the approved one.
        let approved = if access == AccessMode::Ask && !unasked {
            let approval = McpApproval::new(args);
            match self.decide_mcp(id, &call_id, admitted, &approval)? {
                Verdict::Run => Some(approval.digest),
                Verdict::Declined(reason) => {
                    let (status, output) = declined(&admitted.name, reason.as_deref());
                    return self.outcome(id, call, status, output, ToolPhase::Failed);
                }
                Verdict::Cancelled => {
                    let (status, output) = cancelled_waiting();
                    return self.outcome(id, call, status, output, ToolPhase::Failed);
                }
            }
        } else {
            None
        };
        let server = match ServerName::new(args.server.clone()) {
            Ok(name) => name,
            Err(e) => {
                let text = format!("Not executed: {e}");
                let report = ToolReport::failed(&text);
                return self.outcome(
                    id,
                    call,
                    ToolOutcomeStatus::Error,
                    Output::text(text, report),
                    ToolPhase::Failed,
                );
            }
        };
        // As for a command: registered as running before the intent publishes its start, so
        // a frontend that asks for its output at once finds it.
        // What the server reports while the call runs is its output so far (Ctrl+O).
        let live = LiveOutput::new();
        self.shared
            .lock()
            .call_running(call_id.clone(), &admitted.name, live.clone());
        let progress: ProgressSink = Arc::new(move |report: Progress| {
            live.push(format!("{}\n", report.line()).as_bytes());
        });
        if let Err(stop) = self.intent(id, call, admitted) {
            self.shared
                .lock()
                .call_ended(&call_id, &admitted.name, None);
            return Err(stop);
        }
        let cancel = CancelFlag::from_arc(self.shared.lock().cancel_handles().flag);
        let arguments = args.arguments.clone();
        let result = match approved {
            Some(digest) if digest != call_digest(server.as_str(), &args.tool, &arguments) => {
                Err(CallError::Protocol(
                    "the call differs from the approved one; nothing was sent".into(),
                ))
            }
            _ => hub.call_with_progress(&server, &args.tool, arguments, &cancel, Some(progress)),
        };
        crash::point("outcome:before");
        let (status, phase, output) = self.mcp_output(args, result);
        self.outcome(id, call, status, output, phase)
    }

    /// The outcome of a call: a result (an `isError` one is a failed result the model reads),
    /// or why there is none.
    fn mcp_output(
        &mut self,
        args: &McpArgs,
        result: Result<CallResult, CallError>,
    ) -> (ToolOutcomeStatus, ToolPhase, Output) {
        let result = match result {
            Ok(result) => result,
            Err(e) => {
                let (status, text) = match &e {
                    CallError::Timeout => (
                        ToolOutcomeStatus::TimedOut,
                        format!(
                            "MCP tool `{}` of server `{}` timed out (tool_timeout_ms) and was cancelled; its effect on the server's side is unknown.",
                            args.tool, args.server
                        ),
                    ),
                    CallError::Cancelled => (
                        ToolOutcomeStatus::Cancelled,
                        format!(
                            "MCP tool `{}` of server `{}` was cancelled by the user; its effect on the server's side is unknown.",
                            args.tool, args.server
                        ),
                    ),
                    other => (
                        ToolOutcomeStatus::Error,
                        format!(
                            "MCP tool `{}` of server `{}` failed: {other}.",
                            args.tool, args.server
                        ),
                    ),
                };
                let report = ToolReport::failed(&text);
                return (status, ToolPhase::Failed, Output::text(text, report));
            }
        };
        let budget = self.tools.policy().exec_limit();
        let store = self.tools.session();
        let mut retain = |bytes: Vec<u8>| -> Result<u64, String> {
            store.store().retain(bytes).map_err(|e| e.to_string())
        };
        let rendered = render(
            result.is_error,
            result.content,
            result.structured,
            budget,
            &mut retain,
        );
        let (status, phase, tone) = if rendered.is_error {
            (
                ToolOutcomeStatus::Error,
                ToolPhase::Failed,
                ReportTone::Error,
            )
        } else {
            (ToolOutcomeStatus::Ok, ToolPhase::Finished, ReportTone::Ok)
        };
        let mut report = ToolReport::new(tone, rendered.summary);
        report.tail = rendered.tail;
        report.lines = rendered.lines;
        report.cut = rendered.cut;
        let output = Output {
            text: rendered.text,
            answer: None,
            instructions: Vec::new(),
            report,
            readable: Some(rendered.readable),
        };
        (status, phase, output)
    }

    /// Puts an MCP call to the user unless they approved this exact call for the session.
    fn decide_mcp(
        &mut self,
        id: RequestId,
        call_id: &CallId,
        admitted: &AdmittedCall,
        approval: &McpApproval,
    ) -> Result<Verdict, Stop> {
        let mut core = self.shared.lock();
        if core
            .session()
            .state()
            .approved_for_session(&approval.digest)
        {
            return Ok(Verdict::Run);
        }
        core.ask(approval.request(id, call_id.clone(), &admitted.name))?;
        drop(core);
        crash::point("approval:asked");
        match self.shared.wait_decision() {
            Ok(d) if d.decision == ApprovalDecision::Deny => Ok(Verdict::Declined(d.reason)),
            Ok(_) => Ok(Verdict::Run),
            Err(true) => Ok(Verdict::Cancelled),
            Err(false) => Err(Stop::Paused(Pause::ApprovalUnanswered {
                call: call_id.clone(),
                summary: approval.summary.clone(),
            })),
        }
    }
}
