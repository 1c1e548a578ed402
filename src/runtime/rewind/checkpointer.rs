//! Taking checkpoints of the session's workspace: the first one in a background thread while
//! the first model request is in flight, then incremental ones (only entries whose stat
//! changed are read again) before a turn's first call that can change the workspace, after
//! such a turn, and before a rewind.

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};

use ansa_sessions::{Checkpoint, CheckpointPhase, MAX_CHANGED_PATHS, ManifestHex, RequestId};
use ash_engine::checkpoint::{
    CaptureRules, Captured, CheckpointError, Manifest, ManifestId, Store, Unrestorable, capture,
    capture_for_restore,
};
use ash_engine::files::workspace::Workspace;

use super::user_changes;

/// What the background capture hands back: the last journaled manifest (reloaded from the
/// store after a resume) and a fresh capture on top of it.
type Primed = (Option<Manifest>, Result<Captured, CheckpointError>);

/// The session's checkpoint store and the manifests the next capture builds on.
pub struct Checkpointer {
    ws: Workspace,
    store: Result<Arc<Store>, String>,
    rules: CaptureRules,
    /// The newest manifest of the workspace this process knows (journaled or not): what the
    /// next capture compares stamps with.
    latest: Option<Manifest>,
    /// The manifest of the last journaled checkpoint: what `changed` is computed against.
    journaled: Option<Manifest>,
    /// Its id, for reloading it from the store after a resume.
    journaled_id: Option<ManifestHex>,
    background: Option<JoinHandle<Primed>>,
    primed: bool,
}

/// A checkpoint taken, ready to be journaled.
pub struct Taken {
    /// The record to journal.
    pub record: Checkpoint,
    /// The manifest it names.
    pub manifest: Manifest,
}

impl Checkpointer {
    /// A checkpointer for `ws` with its store at `dir` (created 0700 when first used). A store
    /// that cannot be opened makes every capture fail with that reason (a visible notice).
    pub fn new(
        ws: Workspace,
        dir: &Path,
        budget_bytes: u64,
        rules: CaptureRules,
        journaled_id: Option<ManifestHex>,
    ) -> Self {
        let store = Store::open(dir, budget_bytes)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        Checkpointer {
            ws,
            store,
            rules,
            latest: None,
            journaled: None,
            journaled_id,
            background: None,
            primed: false,
        }
    }

    /// The store, or why there is none.
    pub fn store(&self) -> Result<&Store, String> {
        self.store.as_deref().map_err(Clone::clone)
    }

    /// The workspace checkpoints are taken of.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// Starts the first capture of this process in the background (once): it usually ends
    /// while the model is still answering, so the first `before` checkpoint only has to look
    /// at what changed since.
    pub fn prime(&mut self) {
        if self.primed {
            return;
        }
        self.primed = true;
        let Ok(store) = self.store.as_ref().map(Arc::clone) else {
            return;
        };
        let ws = self.ws.clone();
        let rules = self.rules.clone();
        let journaled_id = self.journaled_id.clone();
        let spawned = std::thread::Builder::new()
            .name("ansa-checkpoint".into())
            .spawn(move || {
                let journaled =
                    journaled_id.and_then(|id| store.manifest(&ManifestId(id.to_bytes())).ok());
                let captured = capture(&ws, &store, journaled.as_ref(), &rules);
                (journaled, captured)
            });
        // Without a thread the first capture simply happens in the foreground.
        self.background = spawned.ok();
    }

    /// Waits for the background capture, if one runs, and keeps what it found.
    fn settle(&mut self) {
        let Some(handle) = self.background.take() else {
            return;
        };
        if let Ok((journaled, captured)) = handle.join() {
            if self.journaled.is_none() {
                self.journaled = journaled;
            }
            if let Ok(c) = captured {
                self.latest = Some(c.manifest);
            }
        }
    }

    /// A manifest by id from the store.
    pub fn load(&self, id: &ManifestHex) -> Result<Manifest, String> {
        let store = self.store()?;
        store
            .manifest(&ManifestId(id.to_bytes()))
            .map_err(|e| e.to_string())
    }

    /// Captures the workspace now (incrementally on the newest manifest known).
    pub fn capture_now(&mut self) -> Result<Captured, String> {
        self.capture_toward(None)
    }

    /// [`Self::capture_now`] for a restore to `target`: a directory `target` kept that is
    /// ignored or excluded now is listed too, so the restore can bring it back.
    pub fn capture_for_restore(&mut self, target: &Manifest) -> Result<Captured, String> {
        self.capture_toward(Some(target))
    }

    fn capture_toward(&mut self, target: Option<&Manifest>) -> Result<Captured, String> {
        self.settle();
        let store = self.store.as_ref().map_err(Clone::clone)?;
        if self.latest.is_none()
            && let Some(id) = &self.journaled_id
        {
            self.latest = store.manifest(&ManifestId(id.to_bytes())).ok();
        }
        let captured = match target {
            None => capture(&self.ws, store, self.latest.as_ref(), &self.rules),
            Some(target) => {
                capture_for_restore(&self.ws, store, self.latest.as_ref(), &self.rules, target)
            }
        }
        .map_err(|e| e.to_string())?;
        self.latest = Some(captured.manifest.clone());
        Ok(captured)
    }

    /// Captures the workspace and builds its record for `request_id` in `phase`, with the
    /// paths that differ from the last journaled checkpoint.
    pub fn take(
        &mut self,
        request_id: RequestId,
        phase: CheckpointPhase,
        rewind_to: Option<ManifestHex>,
    ) -> Result<Taken, String> {
        let captured = self.capture_now()?;
        Ok(self.record(captured, request_id, phase, rewind_to))
    }

    /// The record of a capture already taken, for `request_id` in `phase`.
    pub fn record(
        &mut self,
        captured: Captured,
        request_id: RequestId,
        phase: CheckpointPhase,
        rewind_to: Option<ManifestHex>,
    ) -> Taken {
        if self.journaled.is_none()
            && let Some(id) = &self.journaled_id
        {
            self.journaled = self.load(id).ok();
        }
        let changes = match &self.journaled {
            Some(previous) => user_changes(previous, &captured.manifest),
            None => Vec::new(),
        };
        let record = Checkpoint {
            request_id,
            phase,
            manifest: ManifestHex::from_bytes(&captured.id.0),
            changed: changes
                .iter()
                .take(MAX_CHANGED_PATHS)
                .map(|c| c.path.clone())
                .collect(),
            changed_total: changes.len() as u64,
            not_restorable: captured.stats.not_restorable,
            // An entry carried over from an earlier capture that ran out of budget is just as
            // missing from the store as one this capture left out.
            over_budget: captured.over_budget
                || captured
                    .manifest
                    .entries
                    .iter()
                    .any(|e| e.state == Err(Unrestorable::OverBudget)),
            time_ms: now_ms(),
            rewind_to,
        };
        Taken {
            record,
            manifest: captured.manifest,
        }
    }

    /// The checkpoint was journaled: later records say what changed since it.
    pub fn journaled(&mut self, taken: Taken) {
        self.journaled_id = Some(taken.record.manifest);
        self.journaled = Some(taken.manifest);
    }

    /// Bytes the store keeps and its budget, for notices.
    pub fn usage(&self) -> Option<(u64, u64)> {
        self.store
            .as_ref()
            .ok()
            .map(|s| (s.used_bytes(), s.budget_bytes()))
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_before_checkpoint_builds_on_the_background_capture() {
        let dir = tempfile::tempdir().unwrap();
        let ws_dir = dir.path().join("ws");
        for n in 0..200 {
            let d = ws_dir.join(format!("d{}", n / 20));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join(format!("f{n}.txt")),
                format!("file {n}\n").repeat(50),
            )
            .unwrap();
        }
        // Past the racy window: files as new as the capture's clock are read again.
        std::thread::sleep(std::time::Duration::from_millis(1200));
        let ws = Workspace::new(&ws_dir).unwrap();
        let mut c = Checkpointer::new(
            ws,
            &dir.path().join("store"),
            1 << 30,
            CaptureRules::default(),
            None,
        );
        c.prime();
        c.settle();
        assert!(c.latest.is_some(), "the background capture finished");
        std::fs::write(ws_dir.join("d0/f0.txt"), "changed\n").unwrap();
        let captured = c.capture_now().unwrap();
        assert_eq!(captured.stats.files_read, 1, "{:?}", captured.stats);
        assert_eq!(captured.stats.files_reused, 199, "{:?}", captured.stats);
    }
}
