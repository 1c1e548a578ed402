//! Every state change of a turn, as methods on the locked core. The control thread decides
//! commands, the worker runs the turn; both change a turn's state only here.
//!
//! | transition       | thread  | from            | to                                   |
//! |------------------|---------|-----------------|--------------------------------------|
//! | `submit`         | control | (new command)   | queued (journaled acceptance, FIFO)  |
//! | `resume`         | control | paused          | queued                               |
//! | `cancel`         | control | queued          | cancelled                            |
//! | `cancel`         | control | running         | running, cancel signals raised       |
//! | `next_turn`      | worker  | queued (FIFO)   | active                               |
//! | `start`          | worker  | active          | running                              |
//! | `finish`         | worker  | running         | done                                 |
//! | `end`            | worker  | running         | paused, cancelled or failed (`Stop`) |
//! | `close_input`    | control | —               | worker stops once the FIFO is empty  |
//!
//! A command already accepted (same command ID) is answered from the journal by
//! `accept` without re-checking the turn's state, so a retried command replays.

use ansa_sessions::protocol::{ErrorCode, EventBody, MentionPath, PreviewState};
use ansa_sessions::{
    Acceptance, AcceptedAction, CommandId, Mode, RequestId, SessionError, TurnState,
};

use super::{Active, Core};
use crate::runtime::crash;
use crate::runtime::stop::{self, Pause, Stop, StorageFault};

/// A turn as the worker starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The user's text.
    pub text: String,
    /// Its mode.
    pub mode: Mode,
    /// Files its prompt attaches (`@` mentions).
    pub mentions: Vec<MentionPath>,
}

/// What the worker does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextTurn {
    /// Run this turn; it is now the active one.
    Run(RequestId),
    /// Run this rewind (accepted while nothing was queued or running).
    Rewind(super::RewindJob),
    /// Answer `diff` or run `compact`.
    Maintenance(super::Maintenance),
    /// Input is closed and the FIFO is empty: the worker stops.
    Stopped,
    /// Nothing to run yet; retry a pending `resync_required` after a short wait when asked.
    Wait {
        /// A resync is waiting for room in the event queue.
        retry_resync: bool,
    },
}

impl Core {
    /// Accepts a new task into the FIFO unless the FIFO is full.
    pub fn submit(&mut self, id: CommandId, text: String, mode: Mode, mentions: Vec<MentionPath>) {
        if !self.known(&id) && self.queue.len() >= self.queue_max {
            let max = self.queue_max;
            self.error(
                Some(id),
                ErrorCode::QueueFull,
                format!("{max} turns are already queued; wait for one to finish or cancel one"),
            );
            return;
        }
        let action = AcceptedAction::Submit {
            text,
            mode,
            mentions,
        };
        if let Some(request_id) = self.accept(&id, action) {
            self.queue.push_back(request_id);
        }
    }

    /// Cancels a queued turn at once, or signals the running one to stop at its next safe point.
    pub fn cancel(&mut self, id: CommandId, target: RequestId) {
        if !self.known(&id) {
            let Some(state) = self.session.state().turn(target).map(|t| t.state) else {
                self.unknown_turn(id, target);
                return;
            };
            if state.is_terminal() {
                self.error(
                    Some(id),
                    ErrorCode::UnknownTarget,
                    format!(
                        "turn {target} is already {}; there is nothing to cancel",
                        name(state)
                    ),
                );
                return;
            }
            if self.session.storage_failure().is_some() {
                // Cancel must work even when nothing can be saved: stop the work, say so.
                self.cancel_now(target);
                self.error(
                    Some(id),
                    ErrorCode::StorageFailed,
                    format!("turn {target} is being cancelled, but the journal cannot record it (storage_failed)"),
                );
                return;
            }
        }
        if self
            .accept(&id, AcceptedAction::Cancel { target })
            .is_some()
        {
            self.cancel_now(target);
        }
    }

    /// Cancels the active turn on behalf of the user (Ctrl+C), under a generated command ID.
    pub fn interrupt(&mut self) {
        let Some(target) = self.active.as_ref().map(|a| a.request_id) else {
            return;
        };
        let n = self.events.next_sequence();
        let Ok(id) = CommandId::new(format!("interrupt-{}-{n}", self.incarnation)) else {
            return;
        };
        self.cancel(id, target);
    }

    /// Queues a paused turn again.
    pub fn resume(&mut self, id: CommandId, target: RequestId) {
        if !self.known(&id) {
            let state = self.session.state();
            let Some(turn) = state.turn(target) else {
                self.unknown_turn(id, target);
                return;
            };
            let busy = self.queue.contains(&target)
                || self.active.as_ref().is_some_and(|a| a.request_id == target);
            if state.is_rewound(target) {
                self.error(
                    Some(id),
                    ErrorCode::UnknownTarget,
                    format!(
                        "turn {target} was taken back from the conversation by a rewind and cannot be resumed; submit its task again"
                    ),
                );
                return;
            }
            if turn.effect_unknown {
                self.error(
                    Some(id),
                    ErrorCode::EffectUnknown,
                    format!(
                        "turn {target} cannot be resumed: a tool call's effect is unknown after a crash and it is never re-run; check the workspace and submit a new task"
                    ),
                );
                return;
            }
            if busy || !state.resume_available(target) {
                let what = if busy {
                    "queued or running".to_owned()
                } else {
                    name(turn.state).to_owned()
                };
                self.error(
                    Some(id),
                    ErrorCode::UnknownTarget,
                    format!(
                        "turn {target} is {what}, not paused; only a paused turn can be resumed"
                    ),
                );
                return;
            }
        }
        if let Some(request_id) = self.accept(&id, AcceptedAction::Resume { target }) {
            self.set_state(request_id, TurnState::Queued, Some("resumed".into()));
            self.queue.push_back(request_id);
        }
    }

    /// The frontend's input ended; returns whether the worker has already stopped.
    pub fn close_input(&mut self) -> bool {
        self.input_closed = true;
        self.stopped
    }

    /// Whether the frontend's input has ended.
    pub fn input_closed(&self) -> bool {
        self.input_closed
    }

    /// Takes the next queued turn and makes it the active one.
    pub fn next_turn(&mut self) -> NextTurn {
        if let Some(job) = self.take_rewind() {
            return NextTurn::Rewind(job);
        }
        if let Some(job) = self.take_maintenance() {
            return NextTurn::Maintenance(job);
        }
        if let Some(id) = self.queue.pop_front() {
            self.active = Some(Active::new(id));
            self.preview = None;
            return NextTurn::Run(id);
        }
        if self.input_closed {
            self.events.close();
            self.stopped = true;
            return NextTurn::Stopped;
        }
        self.events.flush();
        NextTurn::Wait {
            retry_resync: self.events.resync_pending(),
        }
    }

    /// Marks the active turn running; returns its task text and mode.
    pub fn start(&mut self, id: RequestId) -> Result<Started, Stop> {
        let Some(turn) = self.session.state().turn(id) else {
            return Err(Stop::Paused(Pause::NotInJournal(id)));
        };
        let started = Started {
            text: turn.text.clone(),
            mode: turn.mode,
            mentions: turn.mentions.clone(),
        };
        self.set_state(id, TurnState::Running, None);
        if let Some(cause) = self.session.storage_failure() {
            return Err(Stop::Storage(StorageFault::AlreadyFailed(cause.to_owned())));
        }
        Ok(started)
    }

    /// Records the final answer and ends the turn as done.
    pub fn finish(&mut self, id: RequestId, generation: u64, text: String) {
        crash::point("done:before");
        let durable = self.session.finish(id, text.clone()).is_ok();
        crash::point("done:after");
        if self.previews {
            self.events.publish(EventBody::TextPreview {
                request_id: id,
                generation,
                text: text.clone(),
                state: PreviewState::Committed,
            });
        }
        self.preview = None;
        // The turn is over before `done` says so: a command that follows the event must see
        // the turn finished, not still running.
        self.active = None;
        self.events.publish(EventBody::TextDelta {
            request_id: id,
            text,
        });
        self.events.publish(EventBody::Done {
            request_id: id,
            durable,
        });
    }

    /// Ends the active turn: after `finish` there is nothing left to do, a `Stop` becomes the
    /// turn's terminal (or paused) state with its reason rendered once, here.
    pub fn end(&mut self, id: RequestId, result: Result<(), Stop>) {
        // Before the terminal event is published (see `finish`).
        self.active = None;
        let Err(stop) = result else { return };
        match stop {
            Stop::Paused(pause) => {
                self.set_state(id, TurnState::Paused, Some(pause.to_string()));
            }
            Stop::Cancelled => {
                self.discard_preview();
                let reason = Some(stop::CANCELLED_BY_USER.into());
                self.set_state(id, TurnState::Cancelled, reason);
            }
            Stop::Failed(failure) => {
                self.discard_preview();
                self.set_state(id, TurnState::Failed, Some(failure.to_string()));
            }
            // The worker turns a context-length stop into a compaction while it can.
            Stop::ContextTooLong(reason) => {
                self.discard_preview();
                self.set_state(id, TurnState::Failed, Some(reason));
            }
            Stop::Auth(reason) => {
                self.error(None, ErrorCode::AuthFailed, reason.clone());
                self.set_state(id, TurnState::Paused, Some(stop::auth_reason(&reason)));
            }
            // Nothing can be recorded: the state is published, not journaled.
            Stop::Storage(fault) => {
                self.events.publish(EventBody::TurnState {
                    request_id: id,
                    state: TurnState::Paused,
                    reason: Some(stop::storage_reason(&fault)),
                });
            }
        }
    }

    fn known(&self, id: &CommandId) -> bool {
        self.session.state().command(id).is_some()
    }

    /// Whether a command with this ID was accepted already (a retry replays it).
    pub fn knows(&self, id: &CommandId) -> bool {
        self.known(id)
    }

    fn cancel_now(&mut self, target: RequestId) {
        if let Some(active) = self.active.as_ref().filter(|a| a.request_id == target) {
            // The worker ends the turn at its next safe point and records `cancelled`.
            active.cancel();
            return;
        }
        self.queue.retain(|q| *q != target);
        let reason = Some(stop::CANCELLED_BY_USER.into());
        self.set_state(target, TurnState::Cancelled, reason);
    }

    /// Accepts durably and publishes; returns the request ID only for a new acceptance.
    fn accept(&mut self, id: &CommandId, action: AcceptedAction) -> Option<RequestId> {
        match self.session.accept(id.clone(), action) {
            Ok(Acceptance::Accepted(request_id)) => {
                crash::point("accepted");
                self.events.publish(EventBody::CommandAccepted {
                    command_id: id.clone(),
                    request_id,
                    turn: request_id.0,
                });
                Some(request_id)
            }
            Ok(Acceptance::Replayed(request_id)) => {
                self.events.publish(EventBody::CommandReplayed {
                    command_id: id.clone(),
                    request_id,
                    turn: request_id.0,
                });
                None
            }
            Err(e) => {
                let code = match &e {
                    SessionError::CommandConflict { .. } => ErrorCode::CommandConflict,
                    SessionError::ReadOnly(_) => ErrorCode::ReadOnly,
                    SessionError::UnknownRequest(_) => ErrorCode::UnknownTarget,
                    _ => ErrorCode::StorageFailed,
                };
                self.error(Some(id.clone()), code, e.to_string());
                None
            }
        }
    }

    pub(super) fn unknown_turn(&mut self, id: CommandId, target: RequestId) {
        let latest = self
            .session
            .state()
            .latest_turn()
            .map_or(0, |t| t.request_id.0);
        self.error(
            Some(id),
            ErrorCode::UnknownTarget,
            format!("there is no turn {target} in this session (turns 1..={latest} exist)"),
        );
    }
}

/// The wire name of a state, for messages.
fn name(state: TurnState) -> &'static str {
    match state {
        TurnState::Queued => "queued",
        TurnState::Running => "running",
        TurnState::Paused => "paused",
        TurnState::Done => "done",
        TurnState::Cancelled => "cancelled",
        TurnState::Failed => "failed",
    }
}
