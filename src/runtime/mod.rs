//! The runtime: the single control owner of a session. It accepts commands from a frontend,
//! owns the turn state machine, journals every durable step through `ansa-sessions`, and
//! publishes events. One worker thread runs generation and tools for the active turn.

mod binding;
mod compaction;
mod context;
mod control;
mod core;
mod crash;
mod events;
pub mod mcp;
mod mention;
mod model;
mod orchestrate;
mod reconcile;
mod rewind;
mod stop;
mod story;
mod worker;
mod workspace_diff;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::thread::JoinHandle;

use ansa_sessions::{Binding, ModelBinding, Session, SessionError};
use ansa_sessions::{CommandSender, SessionLink};

use crate::environment::PendingEnvironment;
use crate::prompt::Prompt;
use crate::provider::Provider;
use crate::tools::{ToolExecutor, ToolRegistry};

pub use binding::{BindingError, BindingMismatch};
pub use context::ContextError;
pub use events::EVENT_QUEUE;
pub use model::OpenRebindError;
pub use model::{ModelRefusal, OpenRebind};
pub use orchestrate::ChildLimits;
pub use rewind::RewindOnly;

/// Per-turn limits and the context budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tool rounds per Resume segment (a round is one model response with tool calls).
    pub tool_rounds: u32,
    /// Tool calls per Resume segment.
    pub tool_calls: u32,
    /// Soft JSON-context budget before compaction.
    pub compact_bytes: u64,
    /// Turns that may wait in the FIFO behind the active one.
    pub queue: usize,
    /// Tokens (input and output) per Resume segment before the turn pauses: an orchestrate
    /// child's budget (`child_token_budget`); `None` for the session's own turns.
    pub tokens: Option<u64>,
}

/// Default FIFO depth: enough to queue a burst of tasks, small enough to notice a runaway client.
pub const DEFAULT_QUEUE: usize = 64;

/// Everything a runtime needs; the caller opened the session and built the tools.
pub struct RuntimeSetup {
    /// The open session (its lock is held for the runtime's lifetime).
    pub session: Session,
    /// The model.
    pub provider: Box<dyn Provider>,
    /// Compiled tool descriptors.
    pub registry: ToolRegistry,
    /// Executors on the session's in-process engine.
    pub tools: ToolExecutor,
    /// The instructions of every generation (base prompt, plan addendum, AGENTS.md).
    pub prompt: Prompt,
    /// What the session is (or must be) bound to.
    pub binding: Binding,
    /// The model binding this run's config gives a new session (model, exact returned model,
    /// reasoning; no effort).
    pub model: ModelBinding,
    /// What `--model`, `--returned-model` and `--effort` ask of the session's model.
    pub rebind: OpenRebind,
    /// Limits.
    pub limits: Limits,
    /// Publish `text_preview` events while generating (off by default in JSONL).
    pub previews: bool,
    /// Directory where exec supervisors leave their evidence for this session.
    pub evidence_dir: PathBuf,
    /// The binary that runs exec supervisors (`ansa` itself, which dispatches
    /// `__ash-supervise`); `None` runs commands unsupervised.
    pub supervisor: Option<PathBuf>,
    /// What checkpoints keep and how much the session's store may hold.
    pub checkpoints: CheckpointSettings,
    /// What bounds orchestrate mode's children (config `max_children`,
    /// `child_token_budget`).
    pub children: ChildLimits,
    /// The session's MCP servers, started in the background (`None`: none configured).
    pub mcp: Option<mcp::McpSession>,
}

/// The checkpoint settings of a session (config `checkpoint_max_file_bytes`,
/// `checkpoint_budget_bytes`, `exclude`).
#[derive(Debug, Clone)]
pub struct CheckpointSettings {
    /// Files larger than this are kept without content.
    pub max_file_bytes: u64,
    /// Bytes the session's store may keep.
    pub budget_bytes: u64,
    /// The config's `exclude` globs.
    pub exclude: Vec<String>,
}

/// Why a runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The session journal failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The session is bound to another config or instruction set.
    #[error(transparent)]
    Binding(#[from] BindingError),
    /// The journal holds something this runtime cannot replay.
    #[error(transparent)]
    Context(#[from] ContextError),
    /// The model asked for at open was refused, or differs from the session's.
    #[error(transparent)]
    Model(#[from] OpenRebindError),
    /// A thread could not be started.
    #[error("cannot start the runtime's {what} thread: {source}")]
    Thread {
        /// Which thread.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Joins the runtime's threads.
#[derive(Debug)]
pub struct RuntimeHandle {
    control: JoinHandle<()>,
    worker: JoinHandle<()>,
    model: ModelBinding,
}

impl RuntimeHandle {
    /// The session's model binding in force when the runtime started.
    pub fn model(&self) -> &ModelBinding {
        &self.model
    }

    /// Waits until the runtime has stopped (input closed and accepted work finished).
    pub fn join(self) {
        let _ = self.control.join();
        let _ = self.worker.join();
    }
}

/// Starts the runtime: checks the binding, reconciles open tool intents, replays the context,
/// publishes the first snapshot, and returns the frontend's end of the session.
pub fn start(setup: RuntimeSetup) -> Result<(SessionLink, RuntimeHandle), RuntimeError> {
    let RuntimeSetup {
        mut session,
        provider,
        registry,
        mut tools,
        prompt,
        binding,
        model,
        rebind,
        limits,
        previews,
        evidence_dir,
        supervisor,
        checkpoints,
        children,
        mcp,
    } = setup;
    let provider: Arc<dyn Provider> = Arc::from(provider);
    binding::check_or_record(&mut session, &binding)?;
    let (switch, rebound) = model::at_open(
        &mut session,
        |initial| model::ModelSwitch::new(Arc::clone(&provider), initial),
        &model,
        &rebind,
    )?;
    // The engine recovered the workspace when the tools opened it, before anything ran.
    let recovered = tools.take_recovered();
    let reconciled = reconcile::open_intents(&mut session, &registry, &evidence_dir, &recovered)?;
    let replayed = context::replay(&session.read_records()?)?;
    let last_checkpoint = session
        .state()
        .checkpoints()
        .last()
        .map(|(_, c)| c.manifest.clone());
    let mut checkpointer = rewind::Checkpointer::new(
        tools.session().workspace().clone(),
        &session.dir().join("checkpoints"),
        checkpoints.budget_bytes,
        ash_engine::checkpoint::CaptureRules {
            max_file_bytes: checkpoints.max_file_bytes,
            exclude: checkpoints.exclude,
        },
        last_checkpoint,
    );
    let recovered_rewind = rewind::recover(&mut session, &mut checkpointer, &tools);
    tools.restore_delivered(replayed.delivered.iter().cloned());
    // A new session's environment message is collected while the user types the first task.
    let fresh = replayed.items.is_empty() && replayed.epoch == 0 && replayed.next_generation == 0;
    let environment = fresh.then(|| {
        PendingEnvironment::collect(session.meta().cwd.clone(), tools.sandbox_description())
    });
    let in_force = switch.in_force(&session);
    let started_with = in_force.clone();
    let (sink, events) = events::EventSink::new(EVENT_QUEUE);
    let (commands_tx, commands_rx) = channel();
    let core = core::Core::new(session, sink, limits.queue, previews);
    let shared = Arc::new(core::Shared::new(core));
    core::announce(&shared, &reconciled);
    if let Some(r) = rebound {
        shared
            .lock()
            .answer(ansa_sessions::protocol::EventBody::Rebound(
                ansa_sessions::protocol::Rebound {
                    command_id: None,
                    from: r.from,
                    to: r.to,
                    source: r.source,
                },
            ));
    }
    if let Some(mcp) = &mcp {
        shared.lock().set_mcp_hub(std::sync::Arc::clone(mcp.hub()));
        mcp.watch(Arc::downgrade(&shared))
            .map_err(|source| RuntimeError::Thread {
                what: "mcp-watch",
                source,
            })?;
    }
    if let Some((request_id, message)) = recovered_rewind {
        shared.lock().checkpoint_notice(
            request_id,
            ansa_sessions::protocol::CheckpointNoticeKind::RewindRecovered,
            message,
        );
    }
    let mentions = mention::MentionCheck::new(
        tools.session().workspace().root(),
        tools.exclusion().clone(),
    );
    let live = shared.lock().live_children().clone();
    let orchestrator = orchestrate::Orchestrator {
        provider: Arc::clone(&provider),
        registry: registry.clone(),
        prompt: prompt.clone(),
        limits: Limits {
            tokens: Some(children.tokens),
            ..limits
        },
        max_children: children.at_once,
        session_dir: shared.lock().session().dir().to_owned(),
        parent: Arc::clone(&shared),
        live,
        supervisor: supervisor.clone(),
        evidence_dir: evidence_dir.clone(),
        previews,
    };
    let worker = worker::Worker {
        shared: Arc::clone(&shared),
        provider,
        model: switch.clone(),
        in_force,
        registry,
        tools,
        prompt,
        limits,
        context: replayed,
        evidence_dir,
        supervisor,
        session_id: shared.lock().session().meta().id.clone(),
        control: commands_tx.clone(),
        environment,
        checkpoints: checkpointer,
        checkpointed: None,
        checkpointing: true,
        delegate: Some(Arc::new(orchestrator)),
        mcp,
    };
    let worker = std::thread::Builder::new()
        .name("ansa-worker".into())
        .spawn(move || worker.run())
        .map_err(|source| RuntimeError::Thread {
            what: "worker",
            source,
        })?;
    let control_shared = Arc::clone(&shared);
    let control = std::thread::Builder::new()
        .name("ansa-control".into())
        .spawn(move || control::run(&control_shared, &mentions, &switch, commands_rx))
        .map_err(|source| RuntimeError::Thread {
            what: "control",
            source,
        })?;
    Ok((
        SessionLink {
            commands: CommandSender::new(commands_tx),
            events,
        },
        RuntimeHandle {
            control,
            worker,
            model: started_with,
        },
    ))
}
