//! The worker: runs the active turn — generation, admission of the whole response, then each
//! tool call between a synced intent and a synced outcome — until a final answer, a limit,
//! a cancel or an error.

mod approve;
mod checkpoint;
mod compact;
mod delegate;
mod maintenance;
mod mcp;
mod reasoning;
mod rejected;
mod rewind;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use ansa_sessions::Inbound;

use ansa_sessions::protocol::{ReportTone, ToolPhase, ToolReport};
use ansa_sessions::{
    CallId, Mode, ModelBinding, OpaqueJson, ProviderItem, Record, RequestId, SessionId,
    StoredOutput, ToolIntent, ToolOutcome, ToolOutcomeStatus, UsageRecord,
};
use ash_engine::exec::LiveOutput;
use ash_engine::exec::supervisor::Supervision;

use super::Limits;
use super::context::{PendingCall, Replayed, encode_item, encode_output};
use super::core::{Job, Shared};
use super::model::ModelSwitch;
use super::reconcile::{evidence_path, txn_tag};
use super::rewind::Checkpointer;
use super::stop::{Failure, Pause, Stop};
use super::{compaction, crash};
use crate::environment::PendingEnvironment;
use crate::prompt::Prompt;
use crate::provider::http::{Notify, Retrying};
use crate::provider::{
    ContextItem, Generated, GenerationRequest, ModelTurn, Provider, ProviderError, ToolCall, Usage,
};
use crate::tools::{self, AdmittedCall, Refusal, ToolCallError, ToolExecutor, ToolRegistry};
use checkpoint::Sync;
pub use delegate::{DelegateCall, Delegated, Delegator};

/// The worker thread's state.
pub struct Worker {
    /// Shared with the control thread.
    pub shared: Arc<Shared>,
    /// The model (shared with orchestrate mode's children).
    pub provider: Arc<dyn Provider>,
    /// The session's model binding in force, and how to read it again.
    pub model: ModelSwitch,
    /// The binding the current turn (or resumed segment) started with: every request of it
    /// is built from this one, whatever rebinding is recorded meanwhile.
    pub in_force: ModelBinding,
    /// Tool descriptors.
    pub registry: ToolRegistry,
    /// Tool executors.
    pub tools: ToolExecutor,
    /// The instructions of every generation.
    pub prompt: Prompt,
    /// Limits.
    pub limits: Limits,
    /// The context and what is pending.
    pub context: Replayed,
    /// Exec supervisor evidence directory.
    pub evidence_dir: PathBuf,
    /// The binary that runs `exec` supervisors (this program), if exec is supervised.
    pub supervisor: Option<PathBuf>,
    /// The agent session, whose ID is part of every transaction tag.
    pub session_id: SessionId,
    /// Tells the control thread the worker stopped.
    pub control: Sender<Inbound>,
    /// The environment message of a new session, being collected; `None` once journaled or
    /// for a session that already has a context.
    pub environment: Option<PendingEnvironment>,
    /// The session's checkpoints of the workspace.
    pub checkpoints: Checkpointer,
    /// The turn whose current run already has its `before` checkpoint.
    pub checkpointed: Option<RequestId>,
    /// Whether this worker takes checkpoints: a child's changes are covered by the parent's
    /// checkpoint before its `delegate` call.
    pub checkpointing: bool,
    /// Runs `delegate` calls (orchestrate mode); `None` for a child, which cannot delegate.
    pub delegate: Option<Arc<dyn Delegator>>,
    /// The session's MCP servers, when it has any (`worker/mcp.rs`).
    pub mcp: Option<super::mcp::McpSession>,
}

/// A tool outcome on its way to the journal.
struct Output {
    /// What the model receives.
    text: String,
    /// The engine's canonical answer behind `text`, if there is one.
    answer: Option<String>,
    /// Nested instruction scopes first delivered with it.
    instructions: Vec<String>,
    /// What the call did, for the frontend's tool row.
    report: ToolReport,
    /// What a person reads of it in an output viewer (`None`: the model's view is all).
    readable: Option<String>,
}

impl Output {
    /// An outcome the runtime wrote itself in plain words (a `delegate` call's children's
    /// answers), with no engine answer behind it.
    fn text(text: String, report: ToolReport) -> Output {
        let readable = Some(text.clone());
        Output {
            text,
            answer: None,
            instructions: Vec::new(),
            report,
            readable,
        }
    }

    /// A call refused before it ran: the model reads `answer` (an error answer like the
    /// engine's), a person the plain `text`.
    fn refused(answer: String, text: String, report: ToolReport) -> Output {
        Output {
            text: answer,
            answer: None,
            instructions: Vec::new(),
            report,
            readable: Some(text),
        }
    }
}

/// One call's admission: what runs, or why it is refused.
type Admission = Result<AdmittedCall, ToolCallError>;

/// A model response after admission.
enum Response {
    /// The final answer.
    Final(String),
    /// Tool calls and their admissions, run as one batch.
    Calls(Vec<ToolCall>, Vec<Admission>),
    /// Neither: the model was told why, and the next round asks again.
    Rejected,
}

/// Counters of one Resume segment.
#[derive(Default)]
struct Segment {
    rounds: u32,
    calls: u32,
    /// Tokens the segment's generations reported (input and output).
    tokens: u64,
}

type Step<T> = Result<T, Stop>;

impl Worker {
    /// Runs turns until the input is closed and the FIFO is empty.
    pub fn run(mut self) {
        self.report_context();
        while let Some(job) = self.shared.next_turn() {
            let id = match job {
                Job::Turn(id) => id,
                Job::Rewind(job) => {
                    self.rewind(job);
                    continue;
                }
                Job::Maintenance(job) => {
                    self.maintain(job);
                    continue;
                }
            };
            let result = self.turn(id);
            self.checkpoint_after(id, Sync::Now);
            // Before the terminal event, so a snapshot that follows it sees this turn's size
            // (a finished turn reported it before `done`).
            if result.is_err() {
                self.report_context();
            }
            self.shared.lock().end(id, result);
        }
        // The servers stop with the session (no orphans), before the control thread may end.
        if let Some(mcp) = &self.mcp {
            mcp.shutdown();
        }
        let _ = self.control.send(Inbound::WorkerStopped);
    }

    /// Tells the core how large the context is (one encoding pass, at turn boundaries only).
    fn report_context(&self) {
        let bytes = super::context::context_bytes(&self.context.items);
        self.shared
            .lock()
            .set_context(bytes, self.limits.compact_bytes);
    }

    fn turn(&mut self, id: RequestId) -> Step<()> {
        let started = {
            let mut core = self.shared.lock();
            let started = core.start(id)?;
            self.in_force = self.model.in_force(core.session());
            started
        };
        let mode = started.mode;
        if !self.context.started.contains(&id) {
            self.introduce(id)?;
            self.compact(id, false)?;
            let generation = self.context.next_generation;
            let text = if started.mentions.is_empty() {
                started.text
            } else {
                let cancel = self.shared.lock().cancel_handles().engine;
                super::mention::prompt(&started.text, &started.mentions, &mut self.tools, &cancel)
            };
            self.journal_item(id, generation, ContextItem::User { text })?;
            self.context.started.insert(id);
        }
        let mut segment = Segment::default();
        let mut compacted = false;
        if let Some(pending) = self.context.pending.remove(&id) {
            // A `delegate` call is resumed with its children; any other call that may have
            // run is never run again.
            if pending
                .iter()
                .any(|p| p.intent && !delegate::resumable(&p.call))
            {
                return Err(Stop::Paused(Pause::UnknownOutcome));
            }
            // Calls of MCP tools are admitted against the servers' tools as they are now.
            self.sync_mcp(id, self.context.next_generation)?;
            let calls: Vec<ToolCall> = pending.into_iter().map(|p| p.call).collect();
            let admitted = self.admit_calls(mode, &calls);
            self.batch(id, calls, admitted, &mut segment)?;
        }
        loop {
            self.check_cancel()?;
            if segment.rounds >= self.limits.tool_rounds {
                return Err(Stop::Paused(Pause::RoundLimit(self.limits.tool_rounds)));
            }
            if segment.calls >= self.limits.tool_calls {
                return Err(Stop::Paused(Pause::CallLimit(self.limits.tool_calls)));
            }
            if let Some(budget) = self.limits.tokens
                && segment.tokens >= budget
            {
                return Err(Stop::Paused(Pause::TokenBudget {
                    used: segment.tokens,
                    budget,
                }));
            }
            let generation = self.context.next_generation;
            let generated = match self.generate(id, generation, mode) {
                Err(Stop::ContextTooLong(m)) if !compacted => {
                    compacted = true;
                    if self.compact(id, true)? {
                        continue;
                    }
                    return Err(Stop::Failed(Failure::CannotCompact {
                        reason: m,
                        needs: compaction::MIN_COMPLETED_TURNS,
                    }));
                }
                Err(Stop::ContextTooLong(m)) => {
                    return Err(Stop::Failed(Failure::StillTooLong(m)));
                }
                other => other?,
            };
            self.note_uncarried_reasoning(id, &generated.native);
            // The provider's own items go first and exactly as received: later requests resend
            // them (opaque reasoning survives); the runtime's view of the turn follows.
            for native in generated.native {
                self.journal_item(id, generation, ContextItem::Native(native))?;
            }
            self.record_usage(id, generation, generated.usage)?;
            segment.tokens = segment
                .tokens
                .saturating_add(generated.usage.map_or(0, |u| {
                    u.total_tokens
                        .max(u.input_tokens.saturating_add(u.output_tokens))
                }));
            let admitted = self.admit(id, generation, mode, generated.turn)?;
            self.context.generated(generation);
            match admitted {
                Response::Final(text) => {
                    // Before `done` is published: a change the user makes once they see the
                    // answer must be found as theirs, not the turn's.
                    self.checkpoint_after(id, Sync::WithNext);
                    self.report_context();
                    self.shared.lock().finish(id, generation, text);
                    return Ok(());
                }
                Response::Calls(calls, admitted) => {
                    if let Some(text) = generated.commentary {
                        self.shared.lock().commentary(id, generation, text);
                    }
                    self.batch(id, calls, admitted, &mut segment)?
                }
                Response::Rejected => segment.rounds += 1,
            }
        }
    }

    /// Journals what the model answered; a response that cannot be acted on is answered with
    /// a note instead.
    fn admit(
        &mut self,
        id: RequestId,
        generation: u64,
        mode: Mode,
        turn: ModelTurn,
    ) -> Step<Response> {
        match turn {
            ModelTurn::Final { text } => {
                let item = ContextItem::Assistant { text: text.clone() };
                self.journal_item(id, generation, item)?;
                self.context.completed_in_epoch += 1;
                Ok(Response::Final(text))
            }
            ModelTurn::ToolCalls(calls) if calls.is_empty() => {
                let reason = "the response had neither text nor tool calls";
                self.malformed(id, generation, String::new(), reason)?;
                Ok(Response::Rejected)
            }
            ModelTurn::ToolCalls(calls) => {
                let admitted = self.admit_calls(mode, &calls);
                for (call, admission) in calls.iter().zip(&admitted) {
                    // A refused call never runs, so the journal keeps only a bounded part of
                    // its arguments; the model is told the exact reason now.
                    let kept = match admission {
                        Err(_) => rejected::bounded_call(call),
                        Ok(_) => call.clone(),
                    };
                    self.journal_item(id, generation, ContextItem::ToolCall(kept))?;
                }
                Ok(Response::Calls(calls, admitted))
            }
            ModelTurn::Malformed { raw, reason } => {
                self.malformed(id, generation, raw, &reason)?;
                Ok(Response::Rejected)
            }
        }
    }

    /// Before the first turn of a new session: journals the environment message, which is then
    /// part of the exact context (replayed on resume, kept by compaction, never rebuilt).
    fn introduce(&mut self, id: RequestId) -> Step<()> {
        let Some(pending) = self.environment.take() else {
            return Ok(());
        };
        let text = pending.wait();
        self.journal_item(id, 0, ContextItem::Environment { text })
    }

    fn check_cancel(&self) -> Step<()> {
        match self.shared.lock().cancel_requested() {
            true => Err(Stop::Cancelled),
            false => Ok(()),
        }
    }

    fn generate(&mut self, id: RequestId, generation: u64, mode: Mode) -> Step<Generated> {
        // The first checkpoint of the process is taken while the model answers.
        if self.checkpointing {
            self.checkpoints.prime();
        }
        self.sync_mcp(id, generation)?;
        let flag = self.shared.lock().cancel_handles().flag;
        let tools = self.registry.provider_tools(mode);
        let shared = &self.shared;
        let on_retry = |r: &Retrying| shared.lock().retrying(id, r);
        let on_reasoning = |text: &str| shared.lock().reasoning(id, generation, text);
        let request = GenerationRequest {
            generation,
            session_id: self.session_id.as_str(),
            instructions: self.prompt.for_mode(mode),
            context: &self.context.items,
            tools: &tools,
            model: &self.in_force,
            cancel: &flag,
            compacted_outputs: self.context.compacted_outputs,
            on_retry: Some(Notify(&on_retry)),
            on_reasoning: Some(Notify(&on_reasoning)),
        };
        let mut on_preview = |text: &str| shared.lock().preview(id, generation, text);
        match self.provider.generate_full(&request, &mut on_preview) {
            Ok(generated) => Ok(generated),
            Err(ProviderError::Cancelled) => Err(Stop::Cancelled),
            Err(e) => {
                self.shared.lock().discard_preview();
                Err(match e {
                    ProviderError::Auth(m) => Stop::Auth(m),
                    ProviderError::ContextLength(m) => Stop::ContextTooLong(m),
                    other => Stop::Paused(Pause::ModelFailed(other)),
                })
            }
        }
    }

    fn malformed(&mut self, id: RequestId, generation: u64, raw: String, reason: &str) -> Step<()> {
        self.journal_item(id, generation, ContextItem::MalformedOutput { raw })?;
        let note = format!(
            "Your last response could not be admitted: {reason}. No tool was executed. Answer with plain text, or with tool calls whose arguments are valid JSON objects for the offered tools."
        );
        self.journal_item(id, generation, ContextItem::Note { text: note })
    }

    /// Each call's admission in `mode`.
    fn admit_calls(&self, mode: Mode, calls: &[ToolCall]) -> Vec<Admission> {
        calls
            .iter()
            .map(|c| self.registry.admit(mode, &c.name, &c.arguments))
            .collect()
    }

    /// Executes a whole batch, only when every call was admitted.
    fn batch(
        &mut self,
        id: RequestId,
        calls: Vec<ToolCall>,
        admitted: Vec<Admission>,
        segment: &mut Segment,
    ) -> Step<()> {
        segment.rounds += 1;
        if let Some(first_bad) = admitted.iter().position(Result::is_err) {
            for (call, result) in calls.iter().zip(&admitted) {
                let output = match result {
                    Err(e) => {
                        let text = rejected::bounded_reason(e.to_string());
                        let report = ToolReport::failed(&text);
                        Output::refused(tools::call_error(e, &text), text, report)
                    }
                    Ok(_) => Output::refused(
                        tools::refusal(
                            Refusal::NotRun,
                            &format!(
                                "Not executed: call {} (`{}`) in the same response was rejected, and a response is admitted only as a whole.",
                                first_bad + 1,
                                rejected::bounded_call(&calls[first_bad]).name
                            ),
                            "Fix that call and send the batch again.",
                        ),
                        format!(
                            "Not executed: call {} (`{}`) in the same response was rejected.",
                            first_bad + 1,
                            rejected::bounded_call(&calls[first_bad]).name
                        ),
                        ToolReport::new(
                            ReportTone::Warn,
                            format!(
                                "not run: call {} of the response was rejected",
                                first_bad + 1
                            ),
                        ),
                    ),
                };
                self.outcome(
                    id,
                    call,
                    ToolOutcomeStatus::Error,
                    output,
                    ToolPhase::Failed,
                )?;
            }
            return Ok(());
        }
        // The calls that fit the segment's budget run now; the rest wait for the next segment
        // (its own budget), so every Resume makes progress however large the response was.
        let remaining = self.limits.tool_calls.saturating_sub(segment.calls) as usize;
        let mut calls = calls;
        let mut admitted = admitted;
        let deferred = calls.split_off(remaining.min(calls.len()));
        admitted.truncate(calls.len());
        segment.calls += calls.len() as u32;
        let ran = calls.len();
        let mut rest = calls.iter().zip(admitted);
        while let Some((call, Ok(admitted))) = rest.next() {
            if self.check_cancel().is_err() {
                // Every call gets an output, so the saved context stays complete.
                let note = "Not executed: the turn was cancelled before this call started.";
                let answer = tools::refusal(
                    Refusal::Cancelled,
                    note,
                    "Do not run it again unless the user asks.",
                );
                let left = std::iter::once(call)
                    .chain(rest.map(|(c, _)| c))
                    .chain(&deferred);
                for call in left {
                    let report = ToolReport::new(ReportTone::Warn, "not run: cancelled");
                    self.outcome(
                        id,
                        call,
                        ToolOutcomeStatus::Cancelled,
                        Output::refused(answer.clone(), note.into(), report),
                        ToolPhase::Failed,
                    )?;
                }
                return Err(Stop::Cancelled);
            }
            match self.run_call(id, call, &admitted) {
                Err(Stop::Paused(
                    pause @ (Pause::ApprovalUnanswered { .. } | Pause::ChildrenPaused { .. }),
                )) => {
                    // The waiting call and the rest run when the turn is resumed.
                    let waiting = std::iter::once(call.clone())
                        .chain(rest.map(|(c, _)| c.clone()))
                        .chain(deferred);
                    self.defer(id, waiting);
                    return Err(Stop::Paused(pause));
                }
                other => other?,
            }
        }
        if deferred.is_empty() {
            return Ok(());
        }
        let waiting = deferred.len();
        self.defer(id, deferred);
        Err(Stop::Paused(Pause::CallsOverLimit {
            ran,
            waiting,
            limit: self.limits.tool_calls,
        }))
    }

    /// Keeps `calls` (journaled, without an intent) to run when the turn is resumed.
    fn defer(&mut self, id: RequestId, calls: impl IntoIterator<Item = ToolCall>) {
        let pending = calls
            .into_iter()
            .map(|call| PendingCall {
                call,
                intent: false,
            })
            .collect();
        self.context.pending.insert(id, pending);
    }

    fn run_call(&mut self, id: RequestId, call: &ToolCall, admitted: &AdmittedCall) -> Step<()> {
        if let crate::tools::ToolArgs::Delegate(args) = &admitted.args {
            return self.run_delegate(id, call, admitted, args);
        }
        if let crate::tools::ToolArgs::Mcp(args) = &admitted.args {
            return self.run_mcp(id, call, admitted, args);
        }
        let call_id = CallId(call.call_id.clone());
        // Nothing runs while a call is prepared; in ask mode the user decides before its intent.
        let mut prepared = self.tools.prepare(&admitted.args);
        if let Some((status, output)) = self.gate(id, call, admitted, &mut prepared)? {
            return self.outcome(id, call, status, output, ToolPhase::Failed);
        }
        self.checkpoint_before(id, &admitted.name)?;
        {
            // A frontend can show a command's output while it runs (`tool_output`): from the
            // moment it hears the call started, so the call is running before the intent
            // publishes that.
            let live = LiveOutput::new();
            self.tools.watch(live.clone());
            self.shared
                .lock()
                .call_running(call_id.clone(), &admitted.name, live);
        }
        if let Err(stop) = self.intent(id, call, admitted) {
            self.shared
                .lock()
                .call_ended(&call_id, &admitted.name, None);
            return Err(stop);
        }
        let engine = self.shared.lock().cancel_handles().engine;
        let supervision = self.supervisor.clone().map(|program| Supervision {
            program,
            evidence: evidence_path(&self.evidence_dir, id, &call_id),
        });
        let tag = txn_tag(&self.session_id, id, &call_id);
        let result = prepared.and_then(|mut ready| {
            if let Some(tag) = tag {
                ready.tag_transaction(tag);
            }
            self.tools.run(&admitted.args, ready, &engine, supervision)
        });
        crash::point("outcome:before");
        let cancelled = engine.is_cancelled();
        let (status, phase) = match &result {
            Ok(_) if cancelled => (ToolOutcomeStatus::Cancelled, ToolPhase::Finished),
            Ok(out) if out.timed_out => (ToolOutcomeStatus::TimedOut, ToolPhase::Failed),
            Ok(_) => (ToolOutcomeStatus::Ok, ToolPhase::Finished),
            Err(_) => (ToolOutcomeStatus::Error, ToolPhase::Failed),
        };
        let output = match result {
            Ok(out) => Output {
                text: out.text,
                answer: out.answer,
                instructions: out
                    .delivered
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
                report: out.report,
                readable: out.readable,
            },
            Err(e) => {
                let text = e.to_string();
                let report = ToolReport::failed(&text);
                Output::refused(tools::exec_error(&e), text, report)
            }
        };
        self.outcome(id, call, status, output, phase)
    }

    /// Journals (synced) that a call is about to run, and publishes that it started.
    fn intent(&mut self, id: RequestId, call: &ToolCall, admitted: &AdmittedCall) -> Step<()> {
        let call_id = CallId(call.call_id.clone());
        let server = self.mcp_server_of(&admitted.name);
        crash::point("intent:before");
        let mut core = self.shared.lock();
        let arguments = OpaqueJson::from_text(call.arguments.clone()).map_err(|e| {
            Stop::Paused(Pause::BadArguments {
                call: call_id.clone(),
                reason: e.to_string(),
            })
        })?;
        let target = Some(admitted.args.target());
        core.durable(Record::ToolIntent(ToolIntent {
            request_id: id,
            call_id: call_id.clone(),
            tool: admitted.name.to_owned(),
            arguments,
            implementation_revision: admitted.implementation_revision.to_string(),
            target: target.clone(),
        }))?;
        crash::point("intent:after");
        core.tool_status(
            id,
            &call_id,
            &admitted.name,
            server.as_deref(),
            target,
            ToolPhase::Started,
            None,
        );
        Ok(())
    }

    /// The MCP server a call of `tool` goes to (`None` for ansa's own tools).
    fn mcp_server_of(&self, tool: &str) -> Option<String> {
        self.registry.mcp_callable(tool).map(|t| t.server.clone())
    }

    fn outcome(
        &mut self,
        id: RequestId,
        call: &ToolCall,
        status: ToolOutcomeStatus,
        output: Output,
        phase: ToolPhase,
    ) -> Step<()> {
        let call_id = CallId(call.call_id.clone());
        let encoded = encode_output(&output.text)?;
        let answer = match &output.answer {
            Some(a) => Some(encode_output(a)?),
            None => None,
        };
        let server = self.mcp_server_of(&call.name);
        let mut core = self.shared.lock();
        let saved = core.durable(Record::ToolOutcome(ToolOutcome {
            request_id: id,
            call_id: call_id.clone(),
            status,
            reconciled: false,
            output: encoded,
            answer,
            instructions: output.instructions,
            report: Some(output.report.clone()),
        }));
        crash::point("outcome:after");
        core.tool_status(
            id,
            &call_id,
            &call.name,
            server.as_deref(),
            None,
            phase,
            Some(output.report),
        );
        core.remember_output(StoredOutput {
            call_id: call_id.clone(),
            tool: call.name.clone(),
            text: output.text.clone(),
        });
        core.call_ended(&call_id, &call.name, output.readable);
        drop(core);
        self.context.items.push(ContextItem::ToolOutput {
            call_id: call.call_id.clone(),
            output: output.text,
        });
        Ok(saved?)
    }

    /// Journals the tokens a generation used (buffered like provider items).
    fn record_usage(&mut self, id: RequestId, generation: u64, usage: Option<Usage>) -> Step<()> {
        let Some(u) = usage else { return Ok(()) };
        let record = Record::Usage(UsageRecord {
            request_id: id,
            generation,
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cached_tokens: u.cached_tokens,
            reasoning_tokens: u.reasoning_tokens,
        });
        let mut core = self.shared.lock();
        core.append(record)?;
        core.publish_usage(id);
        Ok(())
    }

    fn journal_item(&mut self, id: RequestId, generation: u64, item: ContextItem) -> Step<()> {
        let encoded = encode_item(&item)?;
        let mut core = self.shared.lock();
        let record = Record::ProviderItem(ProviderItem {
            request_id: id,
            generation,
            epoch: self.context.epoch,
            item: encoded,
        });
        // Buffered only: the next durable step (a tool intent, an outcome, `done`, a state
        // change) syncs it, and nothing acts on an item before that. Lost in a crash, the
        // generation simply runs again with the same index.
        core.append(record)?;
        drop(core);
        self.context.items.push(item);
        Ok(())
    }
}
