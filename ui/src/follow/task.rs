//! One task as the runtime sees it: which acceptance belongs to its command, which events are
//! its request's, and how it stands after lost events, from a catch-up snapshot or a
//! transcript page.

use ansa_sessions::protocol::SnapshotEvent;
use ansa_sessions::{CommandId, RequestId, Role, TranscriptEntry, TranscriptPage, TurnState};

/// How a catch-up snapshot leaves the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CatchUp {
    /// The snapshot is about another turn (or no turn): nothing changes.
    Unrelated,
    /// The task is still queued or running.
    Current(TurnState),
    /// The task stopped: done, paused, cancelled or failed.
    Ended {
        /// Its state.
        state: TurnState,
        /// Whether its end is on stable storage.
        durable: bool,
    },
}

/// The command-to-request match of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskMatch {
    command_id: Option<CommandId>,
    submitted_turn: u64,
    // A new submission's turn is the only one newer than `submitted_turn`; a resume's is not.
    new_turn: bool,
    // The turn a resume is about, known before its acceptance.
    target: Option<RequestId>,
    request: Option<RequestId>,
}

impl TaskMatch {
    /// A task just submitted while the runtime's latest turn was `turn`.
    pub fn submitted(command_id: CommandId, turn: u64) -> Self {
        TaskMatch {
            command_id: Some(command_id),
            submitted_turn: turn,
            new_turn: true,
            target: None,
            request: None,
        }
    }

    /// The paused turn `target`, just asked to resume.
    pub fn resumed(command_id: CommandId, turn: u64, target: RequestId) -> Self {
        TaskMatch {
            new_turn: false,
            target: Some(target),
            ..TaskMatch::submitted(command_id, turn)
        }
    }

    /// A turn already queued or running when the frontend opened (no command of its own).
    pub fn adopted(request: RequestId, turn: u64) -> Self {
        TaskMatch {
            command_id: None,
            submitted_turn: turn,
            new_turn: false,
            target: Some(request),
            request: Some(request),
        }
    }

    /// Its request, once accepted.
    pub fn request(&self) -> Option<RequestId> {
        self.request
    }

    /// The turn the task is about: its request, or before acceptance the turn it resumes.
    pub fn about(&self) -> Option<RequestId> {
        self.request.or(self.target)
    }

    /// Whether the runtime accepted it.
    pub fn accepted(&self) -> bool {
        self.request.is_some()
    }

    /// Whether `request` is this task's.
    pub fn ours(&self, request: RequestId) -> bool {
        self.request == Some(request)
    }

    /// An acceptance (or replay) of `command_id` as `request`: true the first time it is this
    /// task's.
    pub fn accept(&mut self, command_id: &CommandId, request: RequestId) -> bool {
        if self.accepted() || self.command_id.as_ref() != Some(command_id) {
            return false;
        }
        self.request = Some(request);
        true
    }

    /// Whether an error answering `command_id` refuses this task (it was never accepted).
    pub fn refused_by(&self, command_id: Option<&CommandId>) -> bool {
        !self.accepted() && command_id.is_some() && command_id == self.command_id.as_ref()
    }

    /// Settles the task from a catch-up snapshot. Returns the request when the snapshot
    /// reveals an acceptance whose event was lost (the only newer turn is ours), and how the
    /// task stands.
    pub fn catch_up(&mut self, s: &SnapshotEvent) -> (Option<RequestId>, CatchUp) {
        let mut accepted = None;
        if !self.accepted() && self.new_turn && s.turn > self.submitted_turn {
            self.request = s.request_id;
            accepted = s.request_id;
        }
        let Some(state) = s
            .state
            .filter(|_| s.request_id.is_some_and(|r| self.ours(r)))
        else {
            return (accepted, CatchUp::Unrelated);
        };
        let standing = match state {
            TurnState::Queued | TurnState::Running => CatchUp::Current(state),
            state => CatchUp::Ended {
                state,
                durable: s.durable,
            },
        };
        (accepted, standing)
    }

    /// This task's final answer in a transcript page: the latest assistant entry of its request.
    pub fn answer_in(&self, page: TranscriptPage) -> Option<TranscriptEntry> {
        page.entries
            .into_iter()
            .rev()
            .find(|e| self.ours(e.request_id) && e.role == Role::Assistant)
    }
}
