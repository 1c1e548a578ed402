//! The control thread: every command from the frontend is decided here, under the lock.

use std::sync::mpsc::Receiver;

use ansa_sessions::protocol::{Command, CommandBody, ErrorCode, EventBody};
use ansa_sessions::{
    Acceptance, AcceptedAction, CommandId, Mode, RequestId, SessionError, TurnState,
};
use ansa_sessions::{Inbound, ToRuntime};

use super::core::{Core, Shared};
use super::snapshot;

/// Runs until the input is closed and the worker has stopped. Interrupts keep arriving after
/// the frontend closed its input (a one-shot closes it right after acceptance), so the loop
/// ends only when both happened.
pub fn run(shared: &Shared, inbound: Receiver<Inbound>) {
    for message in inbound.iter() {
        match message {
            Inbound::Frontend(ToRuntime::Command(command)) => handle(shared, command),
            Inbound::Frontend(ToRuntime::Rejected { line, message }) => {
                shared.lock().error(
                    None,
                    ErrorCode::ParseError,
                    format!("input line {line}: {message}"),
                );
            }
            Inbound::Frontend(ToRuntime::InputClosed) => {
                let mut core = shared.lock();
                core.input_closed = true;
                let stopped = core.stopped;
                drop(core);
                shared.notify();
                if stopped {
                    return;
                }
            }
            Inbound::Frontend(ToRuntime::Interrupt) => interrupt(shared),
            Inbound::WorkerStopped => {
                if shared.lock().input_closed {
                    return;
                }
            }
        }
    }
    shared.lock().input_closed = true;
    shared.notify();
}

fn handle(shared: &Shared, command: Command) {
    let mut core = shared.lock();
    let id = command.command_id;
    match command.body {
        CommandBody::Submit { text, mode } => submit(&mut core, id, text, mode),
        CommandBody::Cancel { target } => cancel(&mut core, id, target),
        CommandBody::Resume { target } => resume(&mut core, id, target),
        CommandBody::Snapshot { .. } => {
            let body = snapshot::build(&core);
            core.events.publish(body);
        }
        CommandBody::Transcript(query) => {
            let page = core.session.transcript(query);
            core.events.publish(EventBody::Transcript(page));
        }
    }
    drop(core);
    shared.notify();
}

/// Cancels the active turn on behalf of the user, under a generated command ID.
fn interrupt(shared: &Shared) {
    let mut core = shared.lock();
    let Some(target) = core.active.as_ref().map(|a| a.request_id) else {
        return;
    };
    let n = core.events.next_sequence();
    let id = match CommandId::new(format!("interrupt-{}-{n}", core.incarnation)) {
        Ok(id) => id,
        Err(_) => return,
    };
    cancel(&mut core, id, target);
    drop(core);
    shared.notify();
}

fn known(core: &Core, id: &CommandId) -> bool {
    core.session.state().command(id).is_some()
}

fn submit(core: &mut Core, id: CommandId, text: String, mode: Mode) {
    if !known(core, &id) && core.queue.len() >= core.queue_max {
        let max = core.queue_max;
        core.error(
            Some(id),
            ErrorCode::QueueFull,
            format!("{max} turns are already queued; wait for one to finish or cancel one"),
        );
        return;
    }
    if let Some(request_id) = accept(core, &id, AcceptedAction::Submit { text, mode }) {
        core.queue.push_back(request_id);
    }
}

fn cancel(core: &mut Core, id: CommandId, target: RequestId) {
    if !known(core, &id) {
        let Some(state) = core.session.state().turn(target).map(|t| t.state) else {
            unknown_turn(core, id, target);
            return;
        };
        if state.is_terminal() {
            core.error(
                Some(id),
                ErrorCode::UnknownTarget,
                format!(
                    "turn {target} is already {}; there is nothing to cancel",
                    name(state)
                ),
            );
            return;
        }
        if core.session.storage_failure().is_some() {
            // Cancel must work even when nothing can be saved: stop the work, say so.
            cancel_now(core, target);
            core.error(
                Some(id),
                ErrorCode::StorageFailed,
                format!("turn {target} is being cancelled, but the journal cannot record it (storage_failed)"),
            );
            return;
        }
    }
    if accept(core, &id, AcceptedAction::Cancel { target }).is_some() {
        cancel_now(core, target);
    }
}

fn cancel_now(core: &mut Core, target: RequestId) {
    if let Some(active) = core.active.as_ref().filter(|a| a.request_id == target) {
        // The worker ends the turn at its next safe point and records `cancelled`.
        active.cancel();
        return;
    }
    core.queue.retain(|q| *q != target);
    core.set_state(
        target,
        TurnState::Cancelled,
        Some(super::stop::CANCELLED_BY_USER.into()),
    );
}

fn resume(core: &mut Core, id: CommandId, target: RequestId) {
    if !known(core, &id) {
        let state = core.session.state();
        let Some(turn) = state.turn(target) else {
            unknown_turn(core, id, target);
            return;
        };
        let busy = core.queue.contains(&target)
            || core.active.as_ref().is_some_and(|a| a.request_id == target);
        if turn.effect_unknown {
            core.error(
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
            core.error(
                Some(id),
                ErrorCode::UnknownTarget,
                format!("turn {target} is {what}, not paused; only a paused turn can be resumed"),
            );
            return;
        }
    }
    if let Some(request_id) = accept(core, &id, AcceptedAction::Resume { target }) {
        core.set_state(request_id, TurnState::Queued, Some("resumed".into()));
        core.queue.push_back(request_id);
    }
}

/// Accepts durably and publishes; returns the request ID only for a new acceptance.
fn accept(core: &mut Core, id: &CommandId, action: AcceptedAction) -> Option<RequestId> {
    match core.session.accept(id.clone(), action) {
        Ok(Acceptance::Accepted(request_id)) => {
            super::crash::point("accepted");
            core.events.publish(EventBody::CommandAccepted {
                command_id: id.clone(),
                request_id,
                turn: request_id.0,
            });
            Some(request_id)
        }
        Ok(Acceptance::Replayed(request_id)) => {
            core.events.publish(EventBody::CommandReplayed {
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
            core.error(Some(id.clone()), code, e.to_string());
            None
        }
    }
}

fn unknown_turn(core: &mut Core, id: CommandId, target: RequestId) {
    let latest = core
        .session
        .state()
        .latest_turn()
        .map_or(0, |t| t.request_id.0);
    core.error(
        Some(id),
        ErrorCode::UnknownTarget,
        format!("there is no turn {target} in this session (turns 1..={latest} exist)"),
    );
}

/// The wire name of a state, for messages.
pub fn name(state: TurnState) -> &'static str {
    match state {
        TurnState::Queued => "queued",
        TurnState::Running => "running",
        TurnState::Paused => "paused",
        TurnState::Done => "done",
        TurnState::Cancelled => "cancelled",
        TurnState::Failed => "failed",
    }
}
