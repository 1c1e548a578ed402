//! One child: its sub-session opened (or reopened after a crash: its open intents reconciled,
//! an interrupted turn paused by recovery and resumed here), its turn submitted, the parent's
//! worker loop run on it in a thread of its own, its events forwarded to the parent's stream,
//! and the parent's cancel passed on.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use ansa_sessions::child::{CHILDREN_DIR, ChildState};
use ansa_sessions::protocol::{Event, EventBody, ToolPhase};
use ansa_sessions::{CommandId, JournalOptions, Session, TurnState};

use super::{ChildJob, DelegateCall, Orchestrator, POLL};
use crate::environment::PendingEnvironment;
use crate::runtime::core::{Core, Shared};
use crate::runtime::events::{EVENT_QUEUE, EventSink};
use crate::runtime::model::ModelSwitch;
use crate::runtime::rewind::Checkpointer;
use crate::runtime::worker::Worker;
use crate::runtime::{context, core, reconcile};
use crate::tools::ToolExecutor;

/// Where a child is, as its status rows show it.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Its state.
    pub state: ChildState,
    /// Tool calls started.
    pub tools: u32,
    /// Why it paused or failed.
    pub reason: Option<String>,
    started: Option<Instant>,
    ran: Duration,
}

impl Progress {
    /// A child waiting for a slot.
    pub fn queued() -> Progress {
        Progress {
            state: ChildState::Queued,
            tools: 0,
            reason: None,
            started: None,
            ran: Duration::ZERO,
        }
    }

    /// Time it ran in this process.
    pub fn elapsed(&self) -> Duration {
        self.ran + self.started.map_or(Duration::ZERO, |s| s.elapsed())
    }

    fn stop(&mut self, state: ChildState, reason: Option<String>) {
        self.ran = self.elapsed();
        self.started = None;
        self.state = state;
        self.reason = reason;
    }
}

/// How a child ended in this call.
#[derive(Debug, Clone)]
pub struct ChildEnd {
    /// Its place in the call.
    pub index: u32,
    /// Children in the call.
    pub of: u32,
    /// Its ID.
    pub id: ansa_sessions::child::ChildId,
    /// Its final state, tool count, time and reason.
    pub progress: Progress,
    /// Its final answer.
    pub answer: Option<String>,
    /// Its whole transcript, rendered (`report.rs`).
    pub transcript: String,
}

impl ChildEnd {
    /// A child that could not run at all.
    pub fn failed(job: &ChildJob, reason: &str) -> ChildEnd {
        let mut progress = Progress::queued();
        progress.stop(ChildState::Failed, Some(reason.to_owned()));
        ChildEnd {
            index: job.index,
            of: job.of,
            id: job.id.clone(),
            progress,
            answer: None,
            transcript: String::new(),
        }
    }
}

/// Runs (or resumes, or only reads back) one child until it ends.
pub fn run(
    o: &Orchestrator,
    call: &DelegateCall<'_>,
    job: &ChildJob,
    tools: ToolExecutor,
) -> ChildEnd {
    match open(o, job) {
        Ok(session) => drive(o, call, job, tools, session),
        Err(reason) => ChildEnd::failed(job, &reason),
    }
}

fn open(o: &Orchestrator, job: &ChildJob) -> Result<Session, String> {
    let parent = o.parent.lock();
    let meta = parent.session().meta().clone();
    drop(parent);
    let children = o.session_dir.join(CHILDREN_DIR);
    match std::fs::create_dir(&children) {
        Ok(()) => {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&children, std::fs::Permissions::from_mode(0o700));
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot create {}: {e}", children.display())),
    }
    let dir = children.join(job.id.as_str());
    Session::open_or_create_at(
        &dir,
        None,
        &meta.cwd,
        meta.profile,
        JournalOptions::default(),
    )
    .map_err(|e| format!("its sub-session {} cannot be opened: {e}", dir.display()))
}

/// What the child's journal says of its one turn.
fn standing(session: &Session) -> Option<(ansa_sessions::RequestId, TurnState, bool)> {
    session
        .state()
        .latest_turn()
        .map(|t| (t.request_id, t.state, t.effect_unknown))
}

fn drive(
    o: &Orchestrator,
    call: &DelegateCall<'_>,
    job: &ChildJob,
    mut tools: ToolExecutor,
    mut session: Session,
) -> ChildEnd {
    let evidence_dir = o.evidence_dir.join(job.id.as_str());
    if let Err(e) = crate::home::ensure_private_dir(&evidence_dir) {
        return ChildEnd::failed(job, &format!("its evidence directory: {e}"));
    }
    let reconciled = match reconcile::open_intents(&mut session, &o.registry, &evidence_dir, &[]) {
        Ok(r) => r,
        Err(e) => return ChildEnd::failed(job, &format!("its journal cannot be reconciled: {e}")),
    };
    // Finished before (an earlier run of this call): its result is kept, nothing runs again.
    if let Some((_, state, _)) = standing(&session)
        && matches!(
            state,
            TurnState::Done | TurnState::Failed | TurnState::Cancelled
        )
    {
        return ended(job, &session, Progress::queued());
    }
    let provider = match o.provider.for_child(job.index, &job.instruction) {
        Ok(Some(p)) => p,
        Ok(None) => Arc::clone(&o.provider),
        Err(e) => return ChildEnd::failed(job, &e.to_string()),
    };
    let replayed = match session
        .read_records()
        .map_err(|e| e.to_string())
        .and_then(|r| context::replay(&r).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => return ChildEnd::failed(job, &format!("its journal cannot be replayed: {e}")),
    };
    tools.restore_delivered(replayed.delivered.iter().cloned());
    let fresh = replayed.items.is_empty() && replayed.epoch == 0 && replayed.next_generation == 0;
    let environment = fresh.then(|| {
        PendingEnvironment::collect(session.meta().cwd.clone(), tools.sandbox_description())
    });
    let session_id = session.meta().id.clone();
    let checkpoints = Checkpointer::new(
        tools.session().workspace().clone(),
        &session.dir().join("checkpoints"),
        0,
        ash_engine::checkpoint::CaptureRules {
            max_file_bytes: 0,
            exclude: Vec::new(),
        },
        None,
    );
    let (sink, events) = EventSink::new(EVENT_QUEUE);
    let shared = Arc::new(Shared::new(Core::new(session, sink, 4, o.previews)));
    core::announce(&shared, &reconciled);
    let progress = Arc::new(Mutex::new(Progress::queued()));
    if let Err(reason) = start_turn(&shared, job) {
        drop(shared);
        let mut p = lock(&progress).clone();
        p.stop(ChildState::Failed, Some(reason.clone()));
        return ChildEnd::failed(job, &reason);
    }
    {
        let mut p = lock(&progress);
        p.state = ChildState::Running;
        p.started = Some(Instant::now());
        o.status(call, job, &p);
    }
    let (control, _stopped) = channel();
    let binding = call.binding.clone();
    let worker = Worker {
        shared: Arc::clone(&shared),
        model: ModelSwitch::new(Arc::clone(&provider), binding.clone()),
        in_force: binding,
        provider,
        registry: o.registry.clone(),
        tools,
        prompt: o.prompt.clone(),
        limits: o.limits,
        context: replayed,
        evidence_dir,
        supervisor: o.supervisor.clone(),
        session_id,
        control,
        environment,
        checkpoints,
        checkpointed: None,
        checkpointing: false,
        delegate: None,
        // A child is offered the standard tools only: MCP tools stay the parent's.
        mcp: None,
    };
    o.live.add(job.id.clone(), Arc::clone(&shared));
    std::thread::scope(|scope| {
        let forwarder = scope.spawn(|| forward(o, call, job, events, &progress));
        let worker = std::thread::Builder::new()
            .name(format!("ansa-child-{}", job.index))
            .spawn_scoped(scope, move || worker.run());
        let worker = match worker {
            Ok(w) => w,
            Err(e) => {
                drop(shared);
                let _ = forwarder.join();
                return ChildEnd::failed(job, &format!("its thread cannot start: {e}"));
            }
        };
        watch(&shared, call);
        let _ = worker.join();
        o.live.remove(&job.id);
        let core = shared.lock();
        let p = lock(&progress).clone();
        let end = ended(job, core.session(), p);
        drop(core);
        drop(shared);
        let _ = forwarder.join();
        end
    })
}

/// Submits the child's task, or resumes its paused turn.
fn start_turn(shared: &Shared, job: &ChildJob) -> Result<(), String> {
    let mut core = shared.lock();
    match standing(core.session()) {
        None => {
            let id = CommandId::new(format!("delegate-{}", job.id)).map_err(|e| e.to_string())?;
            core.submit(id, job.text.clone(), job.mode(), Vec::new());
        }
        Some((_, _, true)) => {
            return Err("a tool call's effect is unknown after a crash; it is never re-run".into());
        }
        Some((target, TurnState::Paused, false)) => {
            let seq = core.session().appended_seq();
            let id = CommandId::new(format!("resume-{}-{}", job.id, seq.0))
                .map_err(|e| e.to_string())?;
            core.resume(id, target);
        }
        Some(_) => {}
    }
    match standing(core.session()) {
        Some((_, TurnState::Queued | TurnState::Running, _)) => {
            shared.notify();
            Ok(())
        }
        Some((_, state, _)) => Err(format!("its turn is {state:?} and could not be started")),
        None => Err("its task could not be journaled".into()),
    }
}

/// Waits for the child's turn to end, passing the parent's cancel on; then lets its worker
/// stop (input closed, nothing queued).
fn watch(shared: &Shared, call: &DelegateCall<'_>) {
    let mut cancelled = false;
    loop {
        {
            let mut core = shared.lock();
            if !cancelled
                && call.cancel.flag.load(Ordering::SeqCst)
                && let Some((target, _, _)) = standing(core.session())
            {
                cancelled = true;
                let seq = core.session().appended_seq();
                if let Ok(id) = CommandId::new(format!("parent-cancel-{}", seq.0)) {
                    core.cancel(id, target);
                }
            }
            let ended = standing(core.session()).is_none_or(|(_, state, _)| {
                !matches!(state, TurnState::Queued | TurnState::Running)
            });
            if ended {
                core.close_input();
                drop(core);
                shared.notify();
                return;
            }
        }
        shared.notify();
        std::thread::sleep(POLL);
    }
}

/// Forwards the child's events to the parent's stream and keeps its row's figures.
fn forward(
    o: &Orchestrator,
    call: &DelegateCall<'_>,
    job: &ChildJob,
    events: Receiver<Event>,
    progress: &Mutex<Progress>,
) {
    for event in events {
        if let EventBody::ToolStatus {
            status: ToolPhase::Started,
            ..
        } = &event.body
        {
            let mut p = lock(progress);
            p.tools += 1;
            o.status(call, job, &p);
        }
        o.parent.lock().child_event(job.id.clone(), event.body);
    }
}

fn lock(progress: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    progress.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The child's end as its journal has it.
fn ended(job: &ChildJob, session: &Session, mut progress: Progress) -> ChildEnd {
    let turn = session.state().latest_turn();
    let (state, reason) = match turn.map(|t| t.state) {
        Some(TurnState::Done) => (ChildState::Done, None),
        Some(TurnState::Cancelled) => (ChildState::Cancelled, Some("cancelled".to_owned())),
        Some(TurnState::Paused) if turn.is_some_and(|t| t.effect_unknown) => (
            ChildState::Failed,
            Some("a tool call's effect is unknown after a crash; it is never re-run".to_owned()),
        ),
        Some(TurnState::Paused) => (ChildState::Paused, turn.and_then(|t| t.reason.clone())),
        Some(TurnState::Failed) => (ChildState::Failed, turn.and_then(|t| t.reason.clone())),
        _ => (ChildState::Failed, Some("its turn did not end".to_owned())),
    };
    progress.stop(state, reason);
    if let Some(t) = turn {
        progress.tools = progress
            .tools
            .max(u32::try_from(t.outcomes).unwrap_or(u32::MAX));
    }
    let transcript = match session.read_records() {
        Ok(records) => super::report::transcript(job, &records),
        Err(e) => format!("(the transcript cannot be read: {e})"),
    };
    ChildEnd {
        index: job.index,
        of: job.of,
        id: job.id.clone(),
        progress,
        answer: turn.and_then(|t| t.final_text.clone()),
        transcript,
    }
}
