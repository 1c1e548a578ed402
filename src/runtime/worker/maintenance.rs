//! The worker's on-demand jobs: `diff` (capture the workspace now and compare it with the
//! session's first checkpoint, `runtime::workspace_diff`) and `compact` (the ordinary
//! compaction path, `worker/compact.rs`, whatever the budget says).

use ansa_sessions::CommandId;
use ansa_sessions::protocol::{Compacted, ErrorCode, EventBody, WorkspaceDiff, estimated_tokens};

use super::super::compaction::{self, NotDue};
use super::super::context::context_bytes;
use super::super::core::Maintenance;
use super::super::stop::Stop;
use super::super::workspace_diff;
use super::Worker;

impl Worker {
    /// Runs one on-demand job and publishes its answer (or why there is none).
    pub(super) fn maintain(&mut self, job: Maintenance) {
        match job {
            Maintenance::Diff(id) => match self.workspace_diff(id.clone()) {
                Ok(diff) => self.shared.lock().answer(EventBody::WorkspaceDiff(diff)),
                Err(message) => {
                    self.shared
                        .lock()
                        .error(Some(id), ErrorCode::DiffUnavailable, message)
                }
            },
            Maintenance::Compact(id) => match self.compact_now(id.clone()) {
                Ok(done) => {
                    self.report_context();
                    self.shared.lock().answer(EventBody::Compacted(done));
                }
                Err(message) => {
                    self.shared
                        .lock()
                        .error(Some(id), ErrorCode::CompactRefused, message)
                }
            },
        }
    }

    fn workspace_diff(&mut self, command_id: CommandId) -> Result<WorkspaceDiff, String> {
        let first = self
            .shared
            .lock()
            .session()
            .state()
            .checkpoints()
            .first()
            .map(|(_, c)| (c.manifest.clone(), c.request_id));
        let Some((base_id, base_request_id)) = first else {
            return Err("this session has not changed the workspace: it has no checkpoint yet (one is taken before a turn's first call that can change files)".to_owned());
        };
        let unusable = |e: String| format!("cannot show what this session changed: {e}");
        let base = self.checkpoints.load(&base_id).map_err(unusable)?;
        let now = self.checkpoints.capture_now().map_err(unusable)?;
        let store = self.checkpoints.store().map_err(unusable)?;
        let (files, lines_left_out) = workspace_diff::files(&base, &now.manifest, store);
        Ok(WorkspaceDiff {
            command_id,
            base: base_id.as_str().to_owned(),
            base_request_id,
            files,
            lines_left_out,
        })
    }

    /// Compacts now, for `command_id`.
    fn compact_now(&mut self, command_id: CommandId) -> Result<Compacted, String> {
        let latest = self
            .shared
            .lock()
            .session()
            .state()
            .latest_turn()
            .map(|t| t.request_id);
        let nothing = || {
            format!(
                "nothing to compact: compaction keeps the last {} turns whole and needs {} completed turns since the last compaction",
                compaction::KEPT_TURNS,
                compaction::MIN_COMPLETED_TURNS
            )
        };
        let Some(id) = latest else {
            return Err(nothing());
        };
        let split = match compaction::split(
            &self.context.items,
            self.context.completed_in_epoch,
            0,
            true,
        ) {
            Ok(split) => split,
            Err(NotDue::TooFewTurns | NotDue::UnderBudget) => return Err(nothing()),
        };
        let before = context_bytes(&self.context.items);
        // A compaction between turns asks the model in force now.
        self.in_force = self.model.in_force(self.shared.lock().session());
        match self.compact_split(id, split) {
            Ok(()) => {}
            Err(Stop::Cancelled) => return Err("compaction cancelled; nothing changed".into()),
            Err(Stop::Paused(pause)) => return Err(format!("compaction failed: {pause}")),
            Err(Stop::Storage(fault)) => {
                return Err(format!("compaction failed: {fault}; nothing changed"));
            }
            Err(Stop::Failed(f)) => return Err(format!("compaction failed: {f}")),
            Err(Stop::Auth(m) | Stop::ContextTooLong(m)) => {
                return Err(format!("compaction failed: {m}"));
            }
        }
        let after = context_bytes(&self.context.items);
        Ok(Compacted {
            command_id,
            bytes_before: before,
            bytes_after: after,
            tokens_before: estimated_tokens(before),
            tokens_after: estimated_tokens(after),
        })
    }
}
