//! The worker: runs the active turn — generation, admission of the whole response, then each
//! tool call between a synced intent and a synced outcome — until a final answer, a limit,
//! a cancel or an error.

mod compact;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;

use ansa_sessions::Inbound;

use ansa_sessions::protocol::{ErrorCode, EventBody, Preview, PreviewState, ToolPhase};
use ansa_sessions::{
    CallId, Mode, OpaqueJson, ProviderItem, Record, RequestId, ToolIntent, ToolOutcome,
    ToolOutcomeStatus, TurnState, UsageRecord,
};
use ash_engine::cancel::CancelToken;
use ash_engine::exec::supervisor::Supervision;

use super::Limits;
use super::context::{PendingCall, Replayed, encode_item, encode_output};
use super::core::Shared;
use super::reconcile::evidence_path;
use super::stop::{self, Failure, Pause, Stop};
use super::{compaction, crash};
use crate::environment::PendingEnvironment;
use crate::prompt::Prompt;
use crate::provider::{
    ContextItem, Generated, GenerationRequest, ModelTurn, Provider, ProviderError, ToolCall, Usage,
};
use crate::tools::{AdmittedCall, ToolCallError, ToolExecutor, ToolRegistry};

/// The worker thread's state.
pub struct Worker {
    /// Shared with the control thread.
    pub shared: Arc<Shared>,
    /// The model.
    pub provider: Box<dyn Provider>,
    /// Tool descriptors.
    pub registry: ToolRegistry,
    /// Tool executors.
    pub tools: ToolExecutor,
    /// The instructions of every generation.
    pub prompt: Prompt,
    /// Limits.
    pub limits: Limits,
    /// Publish previews.
    pub previews: bool,
    /// The context and what is pending.
    pub context: Replayed,
    /// Exec supervisor evidence directory.
    pub evidence_dir: PathBuf,
    /// The binary that runs `exec` supervisors (this program), if exec is supervised.
    pub supervisor: Option<PathBuf>,
    /// Tells the control thread the worker stopped.
    pub control: Sender<Inbound>,
    /// The environment message of a new session, being collected; `None` once journaled or
    /// for a session that already has a context.
    pub environment: Option<PendingEnvironment>,
}

/// A tool outcome on its way to the journal.
struct Output {
    /// What the model receives.
    text: String,
    /// The engine's canonical answer behind `text`, if there is one.
    answer: Option<String>,
    /// Nested instruction scopes first delivered with it.
    instructions: Vec<String>,
}

impl Output {
    /// An outcome the runtime or the tool layer wrote itself (no engine answer).
    fn text(text: String) -> Output {
        Output {
            text,
            answer: None,
            instructions: Vec::new(),
        }
    }
}

/// Counters of one Resume segment.
#[derive(Default)]
struct Segment {
    rounds: u32,
    calls: u32,
}

type Step<T> = Result<T, Stop>;

impl Worker {
    /// Runs turns until the input is closed and the FIFO is empty.
    pub fn run(mut self) {
        while let Some(id) = self.shared.next_turn() {
            let stop = self.turn(id);
            let mut core = self.shared.lock();
            // Before the terminal event is published: a command that follows the event must
            // see the turn finished, not still running.
            core.active = None;
            match stop {
                Ok(()) => {}
                Err(Stop::Paused(pause)) => {
                    core.set_state(id, TurnState::Paused, Some(pause.to_string()))
                }
                Err(Stop::Cancelled) => {
                    discard_preview(&mut core, self.previews);
                    core.set_state(
                        id,
                        TurnState::Cancelled,
                        Some(stop::CANCELLED_BY_USER.into()),
                    )
                }
                Err(Stop::Failed(failure)) => {
                    discard_preview(&mut core, self.previews);
                    core.set_state(id, TurnState::Failed, Some(failure.to_string()))
                }
                // A context-length stop is turned into `Failed` (or a compaction) by `turn`.
                Err(Stop::ContextTooLong(reason)) => {
                    discard_preview(&mut core, self.previews);
                    core.set_state(id, TurnState::Failed, Some(reason))
                }
                Err(Stop::Auth(reason)) => {
                    core.error(None, ErrorCode::AuthFailed, reason.clone());
                    core.set_state(id, TurnState::Paused, Some(stop::auth_reason(&reason)))
                }
                Err(Stop::Storage(reason)) => {
                    core.events.publish(EventBody::TurnState {
                        request_id: id,
                        state: TurnState::Paused,
                        reason: Some(stop::storage_reason(&reason)),
                    });
                }
            }
        }
        let _ = self.control.send(Inbound::WorkerStopped);
    }

    fn turn(&mut self, id: RequestId) -> Step<()> {
        let (text, mode) = {
            let mut core = self.shared.lock();
            let Some(turn) = core.session.state().turn(id) else {
                return Err(Stop::Paused(Pause::NotInJournal(id)));
            };
            let (text, mode) = (turn.text.clone(), turn.mode);
            core.set_state(id, TurnState::Running, None);
            if let Some(cause) = core.session.storage_failure() {
                return Err(Stop::Storage(cause.to_owned()));
            }
            (text, mode)
        };
        if !self.context.started.contains(&id) {
            self.introduce(id)?;
            self.compact(id, false)?;
            let generation = self.context.next_generation;
            self.journal_item(id, generation, ContextItem::User { text })?;
            self.context.started.insert(id);
        }
        let mut segment = Segment::default();
        let mut compacted = false;
        if let Some(pending) = self.context.pending.remove(&id) {
            if pending.iter().any(|p| p.intent) {
                return Err(Stop::Paused(Pause::UnknownOutcome));
            }
            let calls: Vec<ToolCall> = pending.into_iter().map(|p| p.call).collect();
            self.batch(id, mode, calls, &mut segment)?;
        }
        loop {
            self.check_cancel()?;
            if segment.rounds >= self.limits.tool_rounds {
                return Err(Stop::Paused(Pause::RoundLimit(self.limits.tool_rounds)));
            }
            if segment.calls >= self.limits.tool_calls {
                return Err(Stop::Paused(Pause::CallLimit(self.limits.tool_calls)));
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
            // The provider's own items go first and exactly as received: later requests resend
            // them (opaque reasoning survives); the runtime's view of the turn follows.
            for native in generated.native {
                self.journal_item(id, generation, ContextItem::Native(native))?;
            }
            self.record_usage(id, generation, generated.usage)?;
            match generated.turn {
                ModelTurn::Final { text } => return self.finish(id, generation, text),
                ModelTurn::ToolCalls(calls) if calls.is_empty() => {
                    self.malformed(
                        id,
                        generation,
                        String::new(),
                        "the response had neither text nor tool calls".into(),
                    )?;
                    segment.rounds += 1;
                }
                ModelTurn::ToolCalls(calls) => {
                    for call in &calls {
                        self.journal_item(id, generation, ContextItem::ToolCall(call.clone()))?;
                    }
                    self.context.generated(generation);
                    self.batch(id, mode, calls, &mut segment)?;
                }
                ModelTurn::Malformed { raw, reason } => {
                    self.malformed(id, generation, raw, reason)?;
                    segment.rounds += 1;
                }
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
        let core = self.shared.lock();
        match &core.active {
            Some(a) if a.cancelled() => Err(Stop::Cancelled),
            _ => Ok(()),
        }
    }

    fn cancel_handles(&self) -> (Arc<AtomicBool>, CancelToken) {
        let core = self.shared.lock();
        match &core.active {
            Some(a) => (Arc::clone(&a.flag), a.engine.clone()),
            None => (Arc::new(AtomicBool::new(false)), CancelToken::new()),
        }
    }

    fn generate(&mut self, id: RequestId, generation: u64, mode: Mode) -> Step<Generated> {
        let (flag, _) = self.cancel_handles();
        let tools = self.registry.provider_tools(mode);
        let request = GenerationRequest {
            generation,
            instructions: self.prompt.for_mode(mode),
            context: &self.context.items,
            tools: &tools,
            cancel: &flag,
            compacted_outputs: self.context.compacted_outputs,
        };
        let shared = &self.shared;
        let previews = self.previews;
        let mut on_preview = |text: &str| {
            let mut core = shared.lock();
            let preview = Preview {
                generation,
                text: text.to_owned(),
                state: PreviewState::Preview,
            };
            if previews {
                core.events.publish(EventBody::TextPreview {
                    request_id: id,
                    generation,
                    text: text.to_owned(),
                    state: PreviewState::Preview,
                });
            }
            core.preview = Some((id, preview));
        };
        match self.provider.generate_full(&request, &mut on_preview) {
            Ok(generated) => Ok(generated),
            Err(ProviderError::Cancelled) => Err(Stop::Cancelled),
            Err(e) => {
                let mut core = self.shared.lock();
                discard_preview(&mut core, previews);
                Err(match e {
                    ProviderError::Auth(m) => Stop::Auth(m),
                    ProviderError::ContextLength(m) => Stop::ContextTooLong(m),
                    other => Stop::Paused(Pause::ModelFailed(other)),
                })
            }
        }
    }

    fn finish(&mut self, id: RequestId, generation: u64, text: String) -> Step<()> {
        self.journal_item(
            id,
            generation,
            ContextItem::Assistant { text: text.clone() },
        )?;
        self.context.generated(generation);
        self.context.completed_in_epoch += 1;
        let mut core = self.shared.lock();
        crash::point("done:before");
        let durable = core.session.finish(id, text.clone()).is_ok();
        crash::point("done:after");
        if self.previews {
            core.events.publish(EventBody::TextPreview {
                request_id: id,
                generation,
                text: text.clone(),
                state: PreviewState::Committed,
            });
        }
        core.preview = None;
        // The turn is over before `done` says so (see `run`).
        core.active = None;
        core.events.publish(EventBody::TextDelta {
            request_id: id,
            text,
        });
        core.events.publish(EventBody::Done {
            request_id: id,
            durable,
        });
        Ok(())
    }

    fn malformed(
        &mut self,
        id: RequestId,
        generation: u64,
        raw: String,
        reason: String,
    ) -> Step<()> {
        self.journal_item(id, generation, ContextItem::MalformedOutput { raw })?;
        self.context.generated(generation);
        let note = format!(
            "Your last response could not be admitted: {reason}. No tool was executed. Answer with plain text, or with tool calls whose arguments are valid JSON objects for the offered tools."
        );
        self.journal_item(id, generation, ContextItem::Note { text: note })
    }

    /// Admits a whole batch; executes it only when every call is admissible.
    fn batch(
        &mut self,
        id: RequestId,
        mode: Mode,
        calls: Vec<ToolCall>,
        segment: &mut Segment,
    ) -> Step<()> {
        let admitted: Vec<Result<AdmittedCall, ToolCallError>> = calls
            .iter()
            .map(|c| self.registry.admit(mode, &c.name, &c.arguments))
            .collect();
        segment.rounds += 1;
        if let Some(first_bad) = admitted.iter().position(Result::is_err) {
            for (n, (call, result)) in calls.iter().zip(&admitted).enumerate() {
                let output = match result {
                    Err(e) => e.to_string(),
                    Ok(_) => format!(
                        "Not executed: call {} (`{}`) in the same response was rejected, and a response is admitted only as a whole. Fix that call and send the batch again.",
                        first_bad + 1,
                        calls[first_bad].name
                    ),
                };
                let _ = n;
                self.outcome(
                    id,
                    call,
                    ToolOutcomeStatus::Error,
                    Output::text(output),
                    ToolPhase::Failed,
                )?;
            }
            return Ok(());
        }
        let remaining = self.limits.tool_calls.saturating_sub(segment.calls) as usize;
        if calls.len() > remaining {
            self.context.pending.insert(
                id,
                calls
                    .into_iter()
                    .map(|call| PendingCall {
                        call,
                        intent: false,
                    })
                    .collect(),
            );
            return Err(Stop::Paused(Pause::CallsOverLimit {
                remaining,
                limit: self.limits.tool_calls,
            }));
        }
        segment.calls += calls.len() as u32;
        let mut rest = calls.iter().zip(admitted);
        while let Some((call, Ok(admitted))) = rest.next() {
            if self.check_cancel().is_err() {
                // Every call gets an output, so the saved context stays complete.
                let note = "Not executed: the turn was cancelled before this call started.";
                for call in std::iter::once(call).chain(rest.map(|(c, _)| c)) {
                    self.outcome(
                        id,
                        call,
                        ToolOutcomeStatus::Cancelled,
                        Output::text(note.into()),
                        ToolPhase::Failed,
                    )?;
                }
                return Err(Stop::Cancelled);
            }
            self.run_call(id, call, &admitted)?;
        }
        Ok(())
    }

    fn run_call(&mut self, id: RequestId, call: &ToolCall, admitted: &AdmittedCall) -> Step<()> {
        let call_id = CallId(call.call_id.clone());
        crash::point("intent:before");
        {
            let mut core = self.shared.lock();
            let arguments = OpaqueJson::from_text(call.arguments.clone()).map_err(|e| {
                Stop::Paused(Pause::BadArguments {
                    call: call_id.clone(),
                    reason: e.to_string(),
                })
            })?;
            core.durable(Record::ToolIntent(ToolIntent {
                request_id: id,
                call_id: call_id.clone(),
                tool: admitted.name.to_owned(),
                arguments,
                implementation_revision: admitted.implementation_revision.to_string(),
            }))
            .map_err(|e| Stop::Storage(e.to_string()))?;
            crash::point("intent:after");
            let target = Some(admitted.args.target());
            core.tool_status(id, &call_id, admitted.name, target, ToolPhase::Started);
        }
        let (_, engine) = self.cancel_handles();
        let supervision = self.supervisor.clone().map(|program| Supervision {
            program,
            evidence: evidence_path(&self.evidence_dir, id, &call_id),
        });
        let result = self
            .tools
            .execute_supervised(&admitted.args, &engine, supervision);
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
            },
            Err(e) => Output::text(e.to_string()),
        };
        self.outcome(id, call, status, output, phase)
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
        let storage = |e: serde_json::Error| Stop::Storage(e.to_string());
        let encoded = encode_output(&output.text).map_err(storage)?;
        let answer = match &output.answer {
            Some(a) => Some(encode_output(a).map_err(storage)?),
            None => None,
        };
        let mut core = self.shared.lock();
        let saved = core.durable(Record::ToolOutcome(ToolOutcome {
            request_id: id,
            call_id: call_id.clone(),
            status,
            reconciled: false,
            output: encoded,
            answer,
            instructions: output.instructions,
        }));
        crash::point("outcome:after");
        core.tool_status(id, &call_id, &call.name, None, phase);
        drop(core);
        self.context.items.push(ContextItem::ToolOutput {
            call_id: call.call_id.clone(),
            output: output.text,
        });
        saved.map_err(|e| Stop::Storage(e.to_string()))
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
        core.session
            .append(record)
            .map_err(|e| Stop::Storage(e.to_string()))?;
        if let Some(usage) = super::snapshot::usage(&core) {
            core.events.publish(EventBody::Usage {
                request_id: id,
                usage,
            });
        }
        Ok(())
    }

    fn journal_item(&mut self, id: RequestId, generation: u64, item: ContextItem) -> Step<()> {
        let encoded = encode_item(&item).map_err(|e| Stop::Storage(e.to_string()))?;
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
        core.session
            .append(record)
            .map_err(|e| Stop::Storage(e.to_string()))?;
        drop(core);
        self.context.items.push(item);
        Ok(())
    }
}

fn discard_preview(core: &mut super::core::Core, previews: bool) {
    if let Some((id, p)) = core.preview.as_mut() {
        p.state = PreviewState::Discarded;
        if previews {
            let body = EventBody::TextPreview {
                request_id: *id,
                generation: p.generation,
                text: p.text.clone(),
                state: PreviewState::Discarded,
            };
            core.events.publish(body);
        }
    }
}
