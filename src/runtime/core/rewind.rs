//! The `checkpoints` and `rewind` commands in the core: the list is answered at once; a rewind
//! is accepted only while no turn is queued, running or waiting for approval, and then runs on
//! the worker (it captures, restores and replays, which must not happen under the lock).

use ansa_sessions::protocol::{CheckpointNotice, CheckpointNoticeKind, ErrorCode, EventBody};
use ansa_sessions::{CommandId, ManifestHex, OnConflict, RequestId, RewindScope};

use super::Core;

/// A rewind the worker is to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindJob {
    /// The command that asked for it.
    pub command_id: CommandId,
    /// The turn to return to.
    pub target: RequestId,
    /// What to take back.
    pub scope: RewindScope,
    /// What to do with paths changed by something else.
    pub on_conflict: OnConflict,
    /// Only publish the plan.
    pub dry_run: bool,
    /// A `before_rewind` point to return the workspace to instead (undo a rewind).
    pub checkpoint: Option<ManifestHex>,
}

/// Where the core's one rewind stands.
#[derive(Debug, Default)]
pub(super) enum RewindSlot {
    /// None asked for.
    #[default]
    Idle,
    /// Accepted, waiting for the worker.
    Pending(RewindJob),
    /// The worker runs it.
    Running,
}

impl Core {
    /// Publishes the points a rewind can return to, newest first.
    pub fn publish_checkpoints(&mut self) {
        let items = self
            .session
            .state()
            .checkpoint_items(&crate::tools::can_change_workspace);
        self.events.publish(EventBody::Checkpoints { items });
    }

    /// Accepts a rewind for the worker, or says why not (nothing changes on a refusal).
    pub fn rewind(&mut self, job: RewindJob) {
        let id = job.command_id.clone();
        let state = self.session.state();
        let done = state.rewinds().iter().find(|(_, r)| {
            r.command_id == id && r.recovered != Some(ansa_sessions::RewindRecovery::RolledBack)
        });
        if let Some((_, done)) = done {
            if done.request_id != job.target || done.scope != job.scope {
                // One command id, two different rewinds: never take one for the other.
                self.error(
                    Some(id),
                    ErrorCode::CommandConflict,
                    format!(
                        "command id already used for the rewind to turn {} ({}); use a new command id",
                        done.request_id.0,
                        done.scope.as_str()
                    ),
                );
                return;
            }
            let request_id = done.request_id;
            self.events.publish(EventBody::CommandReplayed {
                command_id: id,
                request_id,
                turn: request_id.0,
            });
            return;
        }
        if let Some(busy) = self.busy_with() {
            self.error(
                Some(id),
                ErrorCode::Busy,
                format!("{busy}; rewind when it has ended (or cancel it)"),
            );
            return;
        }
        let Some(turn) = state.turn(job.target) else {
            self.unknown_turn(id, job.target);
            return;
        };
        let refusal = if let Some(reason) = self.session.read_only() {
            Some(format!("the session is read-only ({reason})"))
        } else if let Some(cause) = self.session.storage_failure() {
            Some(format!("the journal cannot be written ({cause})"))
        } else if job.scope.conversation() && state.is_rewound(turn.request_id) {
            Some(format!(
                "turn {} was already taken back from the conversation by an earlier rewind; \
                 choose a turn that is not marked rewound, or scope `code`",
                job.target
            ))
        } else if let Some(c) = &job.checkpoint {
            match state.rewind_point(c) {
                None => Some(format!(
                    "this session has no rewind checkpoint {c}; ask for `checkpoints` and use \
                     the `checkpoint` of an item"
                )),
                Some(_) => None,
            }
        } else {
            None
        };
        if let Some(reason) = refusal {
            let message = format!(
                "rewind to turn {} refused: {reason}; nothing changed",
                job.target
            );
            self.error(Some(id), ErrorCode::RewindRefused, message);
            return;
        }
        self.rewind = RewindSlot::Pending(job);
    }

    /// What keeps a rewind from starting now, in words, if anything.
    fn busy_with(&self) -> Option<String> {
        if let Some(a) = &self.active {
            return Some(match self.approval.is_some() {
                true => format!("turn {} is waiting for approval", a.request_id),
                false => format!("turn {} is running", a.request_id),
            });
        }
        if let Some(q) = self.queue.front() {
            return Some(format!("turn {q} is queued"));
        }
        match self.rewind {
            RewindSlot::Idle => None,
            RewindSlot::Pending(_) | RewindSlot::Running => {
                Some("another rewind is in progress".to_owned())
            }
        }
    }

    /// The accepted rewind, now running, if there is one.
    pub(super) fn take_rewind(&mut self) -> Option<RewindJob> {
        match std::mem::take(&mut self.rewind) {
            RewindSlot::Pending(job) => {
                self.rewind = RewindSlot::Running;
                Some(job)
            }
            other => {
                self.rewind = other;
                None
            }
        }
    }

    /// The worker finished the running rewind.
    pub fn rewind_ended(&mut self) {
        self.rewind = RewindSlot::Idle;
    }

    /// Publishes a checkpoint notice (a spent budget, a failed capture, a recovered rewind).
    pub fn checkpoint_notice(
        &mut self,
        request_id: RequestId,
        kind: CheckpointNoticeKind,
        message: String,
    ) {
        self.events
            .publish(EventBody::CheckpointNotice(CheckpointNotice {
                request_id,
                kind,
                message,
            }));
    }

    /// Publishes an event the worker built (a rewind's plan or result).
    pub fn publish(&mut self, body: EventBody) {
        self.events.publish(body);
    }
}
