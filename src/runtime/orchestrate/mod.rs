//! Orchestrate mode's children (issue 48, docs/orchestrate.md): a `delegate` call's tasks run
//! as child agents, at most `max_children` at once, each a sub-session of its own under
//! `<session dir>/children/<child id>/` run by the same worker loop as the parent
//! (`child.rs`), on the same engine session. The parent's call gets each child's final answer
//! and a retained `@N` with its whole transcript (`report.rs`).
//!
//! Arrows: this module uses `worker` (to build a child's worker) and `core`; the worker only
//! knows the [`Delegator`] trait it is handed.

mod child;
mod report;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ansa_sessions::child::{ChildId, ChildProfile, ChildState};
use ansa_sessions::protocol::ChildStatus;
use ansa_sessions::{Mode, RequestId};

use super::Limits;
use super::core::{LiveChildren, Shared};
use super::worker::{DelegateCall, Delegated, Delegator};
use crate::prompt::Prompt;
use crate::provider::Provider;
use crate::tools::delegate::DelegateArgs;
use crate::tools::{ToolExecutor, ToolRegistry};

pub use child::ChildEnd;

/// What bounds a session's children (config `max_children`, `child_token_budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// Children of one call that run at once; the rest wait in the call's order.
    pub at_once: usize,
    /// Tokens one child may use per Resume segment before its turn pauses.
    pub tokens: u64,
}

/// How often a child's runner looks at its turn and the parent's cancel signal.
const POLL: Duration = Duration::from_millis(10);

/// What every child of a session shares.
pub struct Orchestrator {
    /// The parent's model; a child uses [`Provider::for_child`] or this one.
    pub provider: Arc<dyn Provider>,
    /// The tools (a child is admitted in basic or plan mode, never orchestrate).
    pub registry: ToolRegistry,
    /// Base instructions and the AGENTS.md chain.
    pub prompt: Prompt,
    /// A child's own limits per run.
    pub limits: Limits,
    /// Children at once.
    pub max_children: usize,
    /// The parent's session directory (children live below it).
    pub session_dir: PathBuf,
    /// The parent's core: children's events go out on its stream.
    pub parent: Arc<Shared>,
    /// The running children, reachable from the parent's core (approvals).
    pub live: LiveChildren,
    /// The exec supervisor binary, as the parent's.
    pub supervisor: Option<PathBuf>,
    /// The parent's evidence directory: a child's is `<it>/<child id>`.
    pub evidence_dir: PathBuf,
    /// Publish previews of children's generations.
    pub previews: bool,
}

/// One child of a call, before it runs.
#[derive(Debug, Clone)]
pub struct ChildJob {
    /// Its ID.
    pub id: ChildId,
    /// Place in the call, from 1.
    pub index: u32,
    /// Children in the call.
    pub of: u32,
    /// The instruction as the model wrote it.
    pub instruction: String,
    /// What its turn starts from (the instruction and the scope hint).
    pub text: String,
    /// Its tools.
    pub profile: ChildProfile,
}

impl ChildJob {
    /// The mode its turn runs in: plan mode's tools for `read_only`, basic mode's for `full`.
    pub fn mode(&self) -> Mode {
        match self.profile {
            ChildProfile::ReadOnly => Mode::Plan,
            ChildProfile::Full => Mode::Basic,
        }
    }
}

impl Orchestrator {
    /// Publishes where a child stands on the parent's stream.
    fn status(&self, call: &DelegateCall<'_>, job: &ChildJob, progress: &child::Progress) {
        let status = ChildStatus {
            request_id: call.request_id,
            call_id: call.call_id.clone(),
            child: job.id.clone(),
            index: job.index,
            task: job.instruction.clone(),
            profile: job.profile,
            state: progress.state,
            tools: progress.tools,
            elapsed_ms: u64::try_from(progress.elapsed().as_millis()).unwrap_or(u64::MAX),
            reason: progress.reason.clone(),
        };
        self.parent.lock().child_status(status);
    }
}

/// The jobs of a call, in its order.
fn jobs(request_id: RequestId, call: &DelegateCall<'_>, args: &DelegateArgs) -> Vec<ChildJob> {
    let of = u32::try_from(args.tasks.len()).unwrap_or(u32::MAX);
    args.tasks
        .iter()
        .zip(1u32..)
        .map(|(task, index)| ChildJob {
            id: ChildId::for_call(request_id, call.call_id, index),
            index,
            of,
            instruction: task.instruction.clone(),
            text: DelegateArgs::task_text(task),
            profile: task.profile,
        })
        .collect()
}

impl Delegator for Orchestrator {
    fn delegate(&self, call: DelegateCall<'_>) -> Delegated {
        let jobs = jobs(call.request_id, &call, call.args);
        for job in &jobs {
            self.status(&call, job, &child::Progress::queued());
        }
        // Executors are made here, on the parent's thread: each child thread takes its own.
        let executors: Vec<Mutex<Option<ToolExecutor>>> = jobs
            .iter()
            .map(|job| Mutex::new(Some(call.tools.for_child(job.index))))
            .collect();
        let ends: Vec<Mutex<Option<ChildEnd>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let slots = self.max_children.clamp(1, jobs.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..slots {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(job) = jobs.get(i) else { break };
                        let tools = executors[i]
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .take();
                        let end = match tools {
                            Some(tools) => child::run(self, &call, job, tools),
                            None => ChildEnd::failed(job, "its executor was already taken"),
                        };
                        self.status(&call, job, &end.progress);
                        *ends[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(end);
                    }
                });
            }
        });
        let ends: Vec<ChildEnd> = ends
            .into_iter()
            .zip(&jobs)
            .map(|(end, job)| {
                end.into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
                    .unwrap_or_else(|| ChildEnd::failed(job, "its runner stopped"))
            })
            .collect();
        let cancelled = call.cancel.flag.load(Ordering::SeqCst);
        let paused: Vec<&ChildEnd> = ends
            .iter()
            .filter(|e| e.progress.state == ChildState::Paused)
            .collect();
        if !cancelled && let Some(first) = paused.first() {
            return Delegated::Paused {
                paused: paused.len(),
                reason: format!(
                    "child {}: {}",
                    first.index,
                    first.progress.reason.as_deref().unwrap_or("paused")
                ),
            };
        }
        report::delegated(&ends, call.tools, cancelled)
    }
}
