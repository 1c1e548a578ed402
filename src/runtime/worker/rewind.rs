//! A rewind's steps on the worker: find the checkpoint of the chosen turn, capture the
//! workspace now, plan, publish the plan; then (unless it was a dry run or a conflict refuses
//! it) journal the `before_rewind` checkpoint, restore through the engine's all-or-nothing
//! path, start a context epoch without the rewound turns, journal the `rewind` record and
//! publish the result. Nothing is changed before the plan is published, and a refusal at any
//! step changes nothing.

use ansa_sessions::protocol::{ErrorCode, EventBody, RewindConflict, RewindDone};
use ansa_sessions::{
    CheckpointPhase, CodePoint, ContextEpoch, ManifestHex, OnConflict, Record, RequestId, Rewind,
    RewindApplied, RewindRecovery, RewindScope, Seq,
};
use ash_engine::checkpoint::Manifest;
use ash_engine::checkpoint::restore::{self, Applied, Plan, RestoreError};

use super::super::context;
use super::super::core::RewindJob;
use super::super::crash;
use super::super::rewind::{external_since, plan_event};
use super::Worker;

/// Why a rewind stopped without changing anything (or, for `Storage`, with the journal
/// unwritable after the restore).
enum Refusal {
    /// The message for `rewind_refused`.
    Refused(String),
    /// The message for `rewind_conflict`.
    Conflict(String),
    /// The journal failed.
    Storage(String),
}

/// Where the workspace is to go back to.
struct CodeTarget {
    /// The manifest to restore.
    manifest: Manifest,
    /// Its id.
    id: ManifestHex,
    /// Changes after this journal position were made by something else if no turn made them.
    since: Seq,
}

impl Worker {
    /// Runs a rewind job to its end: the plan and the result, or an error, are published.
    pub(super) fn rewind(&mut self, job: RewindJob) {
        let id = job.command_id.clone();
        let last = self.rewind_steps(&job);
        // The rewind is over before its last event says so: a command that follows the event
        // must not find it still running.
        let mut core = self.shared.lock();
        core.rewind_ended();
        match last {
            Ok(body) => core.publish(body),
            Err(refusal) => {
                let (code, message) = match refusal {
                    Refusal::Refused(m) => (ErrorCode::RewindRefused, m),
                    Refusal::Conflict(m) => (ErrorCode::RewindConflict, m),
                    Refusal::Storage(m) => (ErrorCode::StorageFailed, m),
                };
                core.error(Some(id), code, message);
            }
        }
    }

    /// The steps; returns the last event to publish (the plan of a dry run, or the result).
    fn rewind_steps(&mut self, job: &RewindJob) -> Result<EventBody, Refusal> {
        let target = job.target;
        let refused = |why: String| {
            Refusal::Refused(format!(
                "rewind to turn {target} refused: {why}; nothing changed"
            ))
        };
        // The engine's refusals say themselves what became of the workspace (rolled back, or
        // left for inspection when even that could not be proven).
        let engine_refused =
            |e: RestoreError| Refusal::Refused(format!("rewind to turn {target} refused: {e}"));
        let (prompt, rewound) = {
            let core = self.shared.lock();
            let state = core.session().state();
            let prompt = state
                .turn(target)
                .map(|t| t.text.clone())
                .ok_or_else(|| refused(format!("there is no turn {target}")))?;
            let rewound: Vec<RequestId> = match job.scope.conversation() {
                true => state
                    .turns()
                    .map(|t| t.request_id)
                    .filter(|r| *r >= target && !state.is_rewound(*r))
                    .collect(),
                false => Vec::new(),
            };
            (prompt, rewound)
        };
        let code = match job.scope.code() {
            true => self.code_target(job).map_err(refused)?,
            false => None,
        };
        let mut plan = Plan::default();
        let mut now = None;
        if let Some(code) = &code {
            let captured = self
                .checkpoints
                .capture_for_restore(&code.manifest)
                .map_err(|e| refused(format!("the workspace could not be captured: {e}")))?;
            let store = self.checkpoints.store().map_err(&refused)?;
            let mut unreadable = Vec::new();
            let external = {
                let core = self.shared.lock();
                let load = |m: &ManifestHex| self.checkpoints.load(m);
                external_since(
                    core.session().state(),
                    code.since,
                    &captured.manifest,
                    &load,
                    &mut unreadable,
                )
            };
            if let Some(e) = unreadable.first() {
                return Err(refused(format!(
                    "a checkpoint needed to find changes made outside this session cannot be read ({e})"
                )));
            }
            plan = restore::plan(&code.manifest, &captured.manifest, &external, store)
                .map_err(engine_refused)?;
            now = Some(captured);
        }
        let event = EventBody::RewindPlan(plan_event(target, job.scope, &plan, rewound.clone()));
        if job.dry_run {
            return Ok(event);
        }
        self.shared.lock().publish(event);
        let on_conflict = match job.on_conflict {
            OnConflict::Keep => restore::OnConflict::Keep,
            OnConflict::Take => restore::OnConflict::Take,
            OnConflict::Refuse if plan.conflicts.is_empty() => restore::OnConflict::Take,
            OnConflict::Refuse => {
                return Err(Refusal::Conflict(format!(
                    "rewind to turn {target} refused: {} changed after that turn by something other than this session; nothing changed. Send on_conflict `keep` (leave them as they are) or `take` (the checkpoint's version wins)",
                    list(&plan.conflicts)
                )));
            }
        };
        let mut applied = Applied::default();
        let mut checkpoint = None;
        if let (Some(code), Some(now)) = (&code, now) {
            // The workspace the plan was made from is the point before the rewind: the restore
            // checks every path against it, so a change since then rolls the restore back.
            let taken = self.checkpoints.record(
                now,
                target,
                CheckpointPhase::BeforeRewind,
                Some(code.id.clone()),
            );
            let now = taken.manifest.clone();
            checkpoint = Some(taken.record.manifest.clone());
            self.shared
                .lock()
                .durable(Record::Checkpoint(taken.record.clone()))
                .map_err(|e| Refusal::Storage(format!("rewind to turn {target} refused: the journal cannot be written ({e}); nothing changed")))?;
            self.checkpoints.journaled(taken);
            crash::point("rewind:restore");
            let store = self.checkpoints.store().map_err(&refused)?;
            let ws = self.checkpoints.workspace();
            applied = match restore::apply(ws, &plan, &code.manifest, &now, on_conflict, store) {
                Ok(applied) => applied,
                Err(RestoreError::Conflicted { conflicts, .. }) => {
                    // Rolled back with both versions of each path kept: a result, not a
                    // refusal, since the workspace now holds files the user must look at.
                    self.settle_rolled_back(job, checkpoint.clone());
                    return Ok(EventBody::RewindDone(RewindDone {
                        target,
                        scope: job.scope,
                        restored: 0,
                        recreated: 0,
                        deleted: 0,
                        kept: Vec::new(),
                        prompt,
                        rewound: Vec::new(),
                        checkpoint,
                        rolled_back: true,
                        conflicts: conflicts
                            .into_iter()
                            .map(|c| RewindConflict {
                                path: c.path,
                                set_aside: c.set_aside,
                            })
                            .collect(),
                    }));
                }
                Err(e) => {
                    // The restore changed nothing (or, unproven, is left to the recovery at the
                    // next open): a settled refusal is journaled so no reopen takes it for an
                    // interrupted rewind.
                    if !matches!(e, RestoreError::Recovery(_)) {
                        self.settle_rolled_back(job, checkpoint.clone());
                    }
                    return Err(engine_refused(e));
                }
            };
            crash::point("rewind:restored");
        }
        let epoch = match job.scope.conversation() {
            true => self.rewind_context(target)?,
            false => self.context.epoch,
        };
        let record = Rewind {
            command_id: job.command_id.clone(),
            request_id: target,
            scope: job.scope,
            checkpoint: checkpoint.clone(),
            restored_to: code.as_ref().map(|c| c.id.clone()),
            applied: RewindApplied {
                restored: applied.restored as u64,
                recreated: applied.recreated as u64,
                deleted: applied.deleted as u64,
                kept: applied.kept.len() as u64,
            },
            epoch,
            recovered: None,
        };
        self.shared
            .lock()
            .durable(Record::Rewind(record))
            .map_err(|e| {
                Refusal::Storage(format!(
                    "rewind to turn {target}: the workspace was restored but the journal cannot record it ({e})"
                ))
            })?;
        Ok(EventBody::RewindDone(RewindDone {
            target,
            scope: job.scope,
            restored: applied.restored as u64,
            recreated: applied.recreated as u64,
            deleted: applied.deleted as u64,
            kept: applied.kept,
            prompt,
            rewound,
            checkpoint,
            rolled_back: false,
            conflicts: Vec::new(),
        }))
    }

    /// Journals a restore that changed nothing in the end, so no reopen takes the
    /// `before_rewind` checkpoint for an interrupted rewind.
    fn settle_rolled_back(&mut self, job: &RewindJob, checkpoint: Option<ManifestHex>) {
        let settled = Rewind {
            command_id: job.command_id.clone(),
            request_id: job.target,
            scope: RewindScope::Code,
            checkpoint,
            restored_to: None,
            applied: RewindApplied::default(),
            epoch: self.context.epoch,
            recovered: Some(RewindRecovery::RolledBack),
        };
        let _ = self.shared.lock().durable(Record::Rewind(settled));
    }

    /// The manifest a code rewind restores, or `None` when nothing since the turn changed
    /// the workspace.
    fn code_target(&self, job: &RewindJob) -> Result<Option<CodeTarget>, String> {
        let core = self.shared.lock();
        let state = core.session().state();
        let (seq, id) = match &job.checkpoint {
            Some(m) => match state.rewind_point(m) {
                Some((seq, c)) => (*seq, c.manifest.clone()),
                None => return Err(format!("this session has no rewind checkpoint {m}")),
            },
            None => match state.code_point(job.target, &crate::tools::can_change_workspace) {
                CodePoint::Checkpoint(_, c) if c.over_budget => {
                    return Err(format!(
                        "the checkpoint before turn {} was taken after the checkpoint store's budget was spent, so not every content was kept; raise checkpoint_budget_bytes for new sessions",
                        c.request_id
                    ));
                }
                CodePoint::Checkpoint(seq, c) => (seq, c.manifest.clone()),
                CodePoint::Unchanged => return Ok(None),
                CodePoint::Missing => {
                    return Err(format!(
                        "turn {} or a later one changed the workspace without a checkpoint (a session from before checkpoints, or a checkpoint that failed), so its changes cannot be taken back; rewind the conversation only",
                        job.target
                    ));
                }
            },
        };
        drop(core);
        let manifest = self.checkpoints.load(&id)?;
        Ok(Some(CodeTarget {
            manifest,
            id,
            since: seq,
        }))
    }

    /// Starts a context epoch without turn `target` and those after it; returns its number.
    fn rewind_context(&mut self, target: RequestId) -> Result<u64, Refusal> {
        let epoch = self.context.epoch + 1;
        let mut core = self.shared.lock();
        core.durable(Record::ContextEpoch(ContextEpoch {
            epoch,
            request_id: target,
            compaction: None,
            rewound: Some(target),
        }))
        .map_err(|e| {
            Refusal::Storage(format!(
                "rewind to turn {target}: the conversation could not be rewound, the journal cannot be written ({e})"
            ))
        })?;
        let records = core.session().read_records();
        drop(core);
        // The journal is the one definition of the context: rebuild it from there.
        let replayed = records
            .map_err(|e| e.to_string())
            .and_then(|r| context::replay(&r).map_err(|e| e.to_string()))
            .map_err(|e| {
                Refusal::Storage(format!(
                    "rewind to turn {target}: the journal could not be read back ({e}); restart the session"
                ))
            })?;
        self.context = replayed;
        Ok(epoch)
    }
}

/// Paths for a message: all of them up to ten, then how many more.
fn list(paths: &[String]) -> String {
    let shown: Vec<&str> = paths.iter().take(10).map(String::as_str).collect();
    match paths.len() {
        n if n > 10 => format!("{} and {} more", shown.join(", "), n - 10),
        _ => shown.join(", "),
    }
}
