//! What the core reports about itself: the `snapshot` event (the current turn state, from
//! memory, without touching the disk), usage totals, and the first announcement of a runtime.

use ansa_sessions::protocol::{EventBody, SessionUsage, SnapshotEvent};
use ansa_sessions::{Mode, TurnState};

use super::{Core, Shared};
use crate::runtime::reconcile::Reconciled;

/// The snapshot as it would be published next (its `through_sequence` is its own number).
pub(super) fn snapshot(core: &Core) -> EventBody {
    let state = core.session.state();
    let current = core
        .active
        .as_ref()
        .map(|a| a.request_id)
        .or_else(|| core.queue.front().copied())
        .or_else(|| state.latest_turn().map(|t| t.request_id));
    let turn = current.and_then(|id| state.turn(id));
    let queued = current.is_some_and(|id| core.queue.contains(&id));
    let damage = core.session.read_only();
    let turn_state = turn.map(|t| match t.state {
        TurnState::Paused if queued => TurnState::Queued,
        // A read-only session runs nothing: a turn the damaged journal left running or queued
        // is interrupted, and it stays so until the journal is repaired.
        TurnState::Running | TurnState::Queued if damage.is_some() => TurnState::Paused,
        other => other,
    });
    let preview = match (&core.preview, current) {
        (Some((id, p)), Some(c)) if *id == c => Some(p.clone()),
        _ => None,
    };
    let durable = match current {
        Some(id) => core.session.is_durable(id) && core.session.storage_failure().is_none(),
        None => core.session.storage_failure().is_none(),
    };
    EventBody::Snapshot(SnapshotEvent {
        session: core.session.meta().profile,
        incarnation: core.incarnation.clone(),
        mode: turn.map_or(Mode::Basic, |t| t.mode),
        transcript_size: state.transcript().len() as u64,
        request_id: current,
        turn: state.latest_turn().map_or(0, |t| t.request_id.0),
        resume_available: current.is_some_and(|id| state.resume_available(id))
            && !queued
            && damage.is_none(),
        state: turn_state,
        durable,
        storage_failed: core.session.storage_failure().is_some(),
        read_only: damage.is_some(),
        read_only_reason: damage.map(|d| d.to_string()),
        preview,
        usage: usage(core),
        context: core.context,
        approval: core.waiting_approval().cloned().map(Box::new),
        through_sequence: core.events.next_sequence(),
    })
}

/// The session's usage totals, once any generation reported usage.
pub(super) fn usage(core: &Core) -> Option<SessionUsage> {
    let u = core.session.state().usage();
    (u.generations > 0).then_some(SessionUsage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cached_tokens: u.cached_tokens,
    })
}

/// Publishes the first snapshot of a runtime and what recovery found: the turns it paused and
/// the tool calls it settled.
pub fn announce(shared: &Shared, reconciled: &[Reconciled]) {
    let mut core = shared.lock();
    let snapshot = snapshot(&core);
    core.events.publish(snapshot);
    let paused = core.session.recovery().paused.clone();
    for id in paused {
        let reason = core.session.state().turn(id).and_then(|t| t.reason.clone());
        core.events.publish(EventBody::TurnState {
            request_id: id,
            state: TurnState::Paused,
            reason,
        });
    }
    for r in reconciled {
        core.tool_status(
            r.request_id,
            &r.call_id,
            &r.tool,
            r.server.as_deref(),
            None,
            r.phase,
            r.report.clone(),
        );
    }
}
