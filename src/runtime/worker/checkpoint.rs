//! When the worker takes checkpoints: before the first call of a turn (each run of it) that can
//! change the workspace, synced before that call's intent; after such a turn ends; and the
//! first capture of the process in the background once the first model request starts. A
//! checkpoint that cannot be taken never stops the turn, but it is never silent either.

use ansa_sessions::protocol::CheckpointNoticeKind;
use ansa_sessions::{CheckpointPhase, Record, RequestId};

use super::super::crash;
use super::super::rewind::{Taken, bytes};
use super::{Step, Worker};

/// When a checkpoint record reaches the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sync {
    /// Appended and synced now.
    Now,
    /// Appended; the next durable step syncs it.
    WithNext,
}

impl Worker {
    /// Before a call of `tool` in turn `id`: the turn's `before` checkpoint, journaled and
    /// synced, unless this run of the turn has one or the tool cannot change the workspace.
    pub(super) fn checkpoint_before(&mut self, id: RequestId, tool: &str) -> Step<()> {
        if !self.checkpointing
            || !crate::tools::can_change_workspace(tool)
            || self.checkpointed == Some(id)
        {
            return Ok(());
        }
        self.checkpointed = Some(id);
        let taken = self.checkpoints.take(id, CheckpointPhase::Before, None);
        crash::point("checkpoint:before");
        self.journal_checkpoint(id, taken, Sync::Now)?;
        crash::point("checkpoint:after");
        Ok(())
    }

    /// After turn `id` ended: its `after` checkpoint, when it had a `before` in this run.
    /// `sync`: `WithNext` when the turn's `done` follows and syncs it (a final answer must not
    /// become durable before its `done`).
    pub(super) fn checkpoint_after(&mut self, id: RequestId, sync: Sync) {
        if self.checkpointed.take() != Some(id) {
            return;
        }
        let taken = self.checkpoints.take(id, CheckpointPhase::After, None);
        // A journal that cannot be written already ended the turn with a visible reason.
        let _ = self.journal_checkpoint(id, taken, sync);
    }

    /// Journals a checkpoint (append and sync) and tells the user what they must know about
    /// it: a capture that failed, or contents left out because the budget was spent.
    fn journal_checkpoint(
        &mut self,
        id: RequestId,
        taken: Result<Taken, String>,
        sync: Sync,
    ) -> Step<()> {
        let taken = match taken {
            Ok(t) => t,
            Err(reason) => {
                let message = format!(
                    "checkpoint of turn {id} failed: {reason}; the turn goes on, but its changes cannot be rewound"
                );
                self.shared
                    .lock()
                    .checkpoint_notice(id, CheckpointNoticeKind::Failed, message);
                return Ok(());
            }
        };
        let over_budget = taken.record.over_budget;
        let record = Record::Checkpoint(taken.record.clone());
        match sync {
            Sync::Now => self.shared.lock().durable(record)?,
            Sync::WithNext => {
                self.shared.lock().append(record)?;
            }
        }
        self.checkpoints.journaled(taken);
        if over_budget {
            let (used, budget) = self.checkpoints.usage().unwrap_or_default();
            let message = format!(
                "checkpoint store is over its budget ({} used of {}): contents changed from here on are not kept and cannot be rewound; raise checkpoint_budget_bytes",
                bytes(used),
                bytes(budget)
            );
            self.shared
                .lock()
                .checkpoint_notice(id, CheckpointNoticeKind::OverBudget, message);
        }
        Ok(())
    }
}
