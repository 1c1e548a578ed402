//! The points a rewind can return to, projected from the session state: the `checkpoints`
//! list and which manifest a code rewind to a turn restores.

use crate::ids::{RequestId, Seq};
use crate::protocol::CheckpointItem;
use crate::record::{Checkpoint, CheckpointPhase};
use crate::state::SessionState;

/// Longest prompt line a `checkpoints` item carries, in characters.
pub const PROMPT_CHARS: usize = 200;

/// Where the workspace as it was before a turn can be found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodePoint<'a> {
    /// The `before` checkpoint of this turn or the first later turn that changed anything.
    Checkpoint(Seq, &'a Checkpoint),
    /// Neither this turn nor a later one called a tool that can change the workspace: a
    /// code rewind has nothing to restore.
    Unchanged,
    /// A turn from here on could have changed the workspace but has no checkpoint (a session
    /// from before checkpoints, or a capture that failed).
    Missing,
}

impl<'a> CodePoint<'a> {
    /// True when a code rewind to it can be done in full.
    pub fn restorable(&self) -> bool {
        match self {
            CodePoint::Checkpoint(_, c) => !c.over_budget,
            CodePoint::Unchanged => true,
            CodePoint::Missing => false,
        }
    }
}

impl SessionState {
    /// Where the workspace before turn `target` is kept; `mutating` says which tool names can
    /// change the workspace.
    pub fn code_point(&self, target: RequestId, mutating: &dyn Fn(&str) -> bool) -> CodePoint<'_> {
        let first = self
            .checkpoints()
            .iter()
            .find(|(_, c)| c.phase == CheckpointPhase::Before && c.request_id >= target);
        let bound = first.map(|(_, c)| c.request_id);
        // A mutating turn before the first checkpoint found (or any, without one) was never
        // captured: restoring only part of what happened would be a lie.
        let uncaptured = self
            .turns()
            .filter(|t| t.request_id >= target && bound.is_none_or(|b| t.request_id < b))
            .any(|t| self.intent_tools(t.request_id).any(mutating));
        match first {
            _ if uncaptured => CodePoint::Missing,
            Some((seq, c)) => CodePoint::Checkpoint(*seq, c),
            None => CodePoint::Unchanged,
        }
    }

    /// The `before_rewind` checkpoint named `manifest`, if this session recorded one.
    pub fn rewind_point(&self, manifest: &crate::ManifestHex) -> Option<&(Seq, Checkpoint)> {
        self.checkpoints()
            .iter()
            .find(|(_, c)| c.phase == CheckpointPhase::BeforeRewind && &c.manifest == manifest)
    }

    /// The `checkpoints` list, newest first: every turn, and the point before each rewind.
    pub fn checkpoint_items(&self, mutating: &dyn Fn(&str) -> bool) -> Vec<CheckpointItem> {
        let mut items: Vec<(Seq, CheckpointItem)> = Vec::new();
        for turn in self.turns() {
            let mine = || {
                self.checkpoints()
                    .iter()
                    .filter(move |(_, c)| c.request_id == turn.request_id)
            };
            let before = mine().find(|(_, c)| c.phase == CheckpointPhase::Before);
            let after = mine()
                .rev()
                .find(|(_, c)| c.phase == CheckpointPhase::After);
            let files_changed = after.map(|(_, c)| c.changed.clone()).unwrap_or_default();
            items.push((
                turn.first_seq,
                CheckpointItem {
                    request_id: turn.request_id,
                    turn: turn.request_id.0,
                    time: before.map(|(_, c)| c.time_ms),
                    prompt: first_line(&turn.text),
                    files_changed,
                    restorable: self.code_point(turn.request_id, mutating).restorable(),
                    rewound: self.is_rewound(turn.request_id),
                    checkpoint: None,
                },
            ));
        }
        let all = self.checkpoints();
        for (n, (seq, c)) in all.iter().enumerate() {
            if c.phase != CheckpointPhase::BeforeRewind {
                continue;
            }
            // A rewind whose restore did not happen changed nothing to undo.
            let done = self.rewinds().iter().any(|(_, r)| {
                r.checkpoint.as_ref() == Some(&c.manifest)
                    && r.recovered != Some(crate::record::RewindRecovery::RolledBack)
            });
            if !done {
                continue;
            }
            // What the rewind changed is what the next checkpoint finds different.
            let files_changed = all
                .get(n + 1)
                .map(|(_, next)| next.changed.clone())
                .unwrap_or_default();
            let prompt = self
                .turn(c.request_id)
                .map(|t| first_line(&t.text))
                .unwrap_or_default();
            items.push((
                *seq,
                CheckpointItem {
                    request_id: c.request_id,
                    turn: c.request_id.0,
                    time: Some(c.time_ms),
                    prompt,
                    files_changed,
                    restorable: !c.over_budget,
                    rewound: false,
                    checkpoint: Some(c.manifest.clone()),
                },
            ));
        }
        items.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
        items.into_iter().map(|(_, item)| item).collect()
    }
}

/// The first line of a prompt, at most [`PROMPT_CHARS`] characters.
fn first_line(text: &str) -> String {
    let line = text.trim_start().lines().next().unwrap_or_default();
    line.chars().take(PROMPT_CHARS).collect()
}
