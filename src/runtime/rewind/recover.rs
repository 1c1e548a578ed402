//! A rewind the process stopped during: on reopen, the engine has already put the workspace
//! back to exactly before or exactly after the restore; this finds out which, journals it as
//! a `rewind` record with `recovered`, and returns the notice the user sees.

use ansa_sessions::{
    CommandId, Record, RequestId, Rewind, RewindApplied, RewindRecovery, RewindScope, Session,
};
use ash_engine::checkpoint::{ChangeKind, Manifest};
use ash_engine::txn::Outcome;

use super::{Checkpointer, user_changes};
use crate::tools::ToolExecutor;

/// Resolves an interrupted rewind, if the journal has one: `(its target turn, the notice)`.
pub fn recover(
    session: &mut Session,
    checkpoints: &mut Checkpointer,
    tools: &ToolExecutor,
) -> Option<(RequestId, String)> {
    let recovered = tools.session().take_recovered_restores();
    let set_aside: Vec<String> = recovered
        .iter()
        .flat_map(|r| &r.conflicts)
        .map(|c| {
            format!(
                "{} (another process created it again; the version from before the restore is {})",
                c.path, c.set_aside
            )
        })
        .collect();
    let engine: Vec<Outcome> = recovered.into_iter().map(|r| r.outcome).collect();
    let (seq, point) = session.state().interrupted_rewind()?.clone();
    let target = point.request_id;
    let before = match checkpoints.load(&point.manifest) {
        Ok(m) => m,
        Err(e) => {
            return Some((
                target,
                format!(
                    "a rewind to turn {target} was interrupted, and its checkpoint cannot be read ({e}); check the workspace"
                ),
            ));
        }
    };
    let after: Option<Manifest> = point
        .rewind_to
        .as_ref()
        .and_then(|m| checkpoints.load(m).ok());
    let now = match checkpoints.capture_now() {
        Ok(c) => c.manifest,
        Err(e) => {
            return Some((
                target,
                format!(
                    "a rewind to turn {target} was interrupted, and the workspace cannot be captured to tell whether its restore happened ({e})"
                ),
            ));
        }
    };
    let same = |m: &Manifest| user_changes(m, &now).is_empty();
    // The engine's own account comes first; without one (killed before its restore journal
    // was published, or after it was cleaned up) the workspace itself says which.
    let outcome = match engine.last() {
        Some(Outcome::RolledBack) => Some(RewindRecovery::RolledBack),
        Some(Outcome::Committed) => Some(RewindRecovery::Completed),
        Some(Outcome::Unresolved { reason }) => {
            return Some((
                target,
                format!(
                    "a rewind to turn {target} was interrupted and its restore could not be resolved: {reason}"
                ),
            ));
        }
        None if same(&before) => Some(RewindRecovery::RolledBack),
        None if after.as_ref().is_some_and(same) => Some(RewindRecovery::Completed),
        None => None,
    };
    let Some(outcome) = outcome else {
        return Some((
            target,
            format!(
                "a rewind to turn {target} was interrupted; the workspace matches neither the state before it nor its checkpoint (changed since?); check it, and rewind again if needed"
            ),
        ));
    };
    let applied = match (&outcome, &after) {
        (RewindRecovery::Completed, Some(after)) => counts(&before, after),
        _ => RewindApplied::default(),
    };
    let conversation = session.state().is_rewound(target);
    let record = Rewind {
        command_id: CommandId::new(format!("recovered-rewind-{seq}")).ok()?,
        request_id: target,
        scope: match (&outcome, conversation) {
            (RewindRecovery::Completed, true) => RewindScope::Both,
            _ => RewindScope::Code,
        },
        checkpoint: Some(point.manifest.clone()),
        restored_to: match outcome {
            RewindRecovery::Completed => point.rewind_to.clone(),
            RewindRecovery::RolledBack => None,
        },
        applied,
        epoch: session.state().epoch(),
        recovered: Some(outcome),
    };
    let saved = session
        .append(Record::Rewind(record))
        .and_then(|_| session.sync());
    let what = match outcome {
        RewindRecovery::RolledBack => {
            "its restore was rolled back: the workspace is exactly as it was before the rewind"
        }
        RewindRecovery::Completed => {
            "its restore had completed: the workspace is exactly as the checkpoint (the conversation was not rewound unless it says so in the list)"
        }
    };
    let mut message = format!("a rewind to turn {target} was interrupted; {what}");
    if !set_aside.is_empty() {
        message.push_str(&format!(
            ", except where another process wrote during it: {}",
            set_aside.join(", ")
        ));
    }
    if let Err(e) = saved {
        message.push_str(&format!(" (this could not be journaled: {e})"));
    }
    Some((target, message))
}

/// What a restore from `before` to `after` changed, as the `rewind` record counts it.
fn counts(before: &Manifest, after: &Manifest) -> RewindApplied {
    let mut applied = RewindApplied::default();
    for change in user_changes(before, after) {
        match change.kind {
            ChangeKind::Added => applied.recreated += 1,
            ChangeKind::Removed => applied.deleted += 1,
            ChangeKind::Modified | ChangeKind::ModeChanged | ChangeKind::TypeChanged => {
                applied.restored += 1
            }
        }
    }
    applied
}
