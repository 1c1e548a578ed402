//! The on-disk journal: preparing `transaction.new`, publishing it as `transaction`, the
//! `COMMITTED` marker and deletion.

use super::manifest::{self, Entry};
use super::{Action, Stop, TxnError, crash, fsx, io_err};
use crate::protocol::to_lower_hex;
use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// Name of the journal being prepared.
pub(crate) const PREPARING: &str = "transaction.new";
/// Name of the published journal.
pub(crate) const PUBLISHED: &str = "transaction";
const MANIFEST: &str = "MANIFEST";
const COMMITTED: &str = "COMMITTED";
const COMMITTED_NEW: &str = "COMMITTED.new";
/// Exact content of the commit marker.
pub(crate) const COMMITTED_MARKER: &[u8] = b"committed\n";

/// A published journal and the workspace it belongs to.
#[derive(Debug)]
pub(crate) struct Journal {
    root: PathBuf,
    dir: PathBuf,
    /// The journaled actions in apply order.
    pub entries: Vec<Entry>,
    // Names this journal's temp files in workspace directories (from the manifest checksum,
    // so recovery can find them and they never collide with another transaction's).
    tag: String,
}

impl Journal {
    /// Binds decoded `entries` to the journal directory `dir`; `manifest` gives the temp tag.
    pub(crate) fn new(root: &Path, dir: PathBuf, entries: Vec<Entry>, manifest: &[u8]) -> Journal {
        let check = &manifest[manifest.len().saturating_sub(32)..];
        let tag = to_lower_hex(&check[..check.len().min(8)]);
        Journal {
            root: root.to_path_buf(),
            dir,
            entries,
            tag,
        }
    }

    /// The absolute path of a logical workspace path.
    pub(crate) fn abs(&self, logical: &str) -> PathBuf {
        self.root.join(logical)
    }

    /// `stage/<i>`.
    pub(crate) fn stage(&self, i: usize) -> PathBuf {
        self.dir.join("stage").join(format!("{i:08x}"))
    }

    /// `removed/<i>`.
    pub(crate) fn removed(&self, i: usize) -> PathBuf {
        self.dir.join("removed").join(format!("{i:08x}"))
    }

    /// The temp name a replace of action `i` uses beside its target.
    pub(crate) fn temp(&self, i: usize) -> PathBuf {
        let target = self.abs(&self.entries[i].path);
        fsx::parent(&target).join(format!(".ash-{}-{i:08x}.tmp", self.tag))
    }

    /// Writes the commit marker durably, then deletes the journal.
    pub(crate) fn commit(&self) -> Result<(), TxnError> {
        let new = self.dir.join(COMMITTED_NEW);
        let marker = self.dir.join(COMMITTED);
        fsx::write_new(&new, COMMITTED_MARKER, None).map_err(|e| io_err("writing", &new, &e))?;
        fs::rename(&new, &marker).map_err(|e| io_err("publishing", &marker, &e))?;
        fsx::sync_dir(&self.dir).map_err(|e| io_err("syncing", &self.dir, &e))?;
        crash::forward();
        delete(&self.dir, false)?;
        crash::forward();
        Ok(())
    }

    /// Deletes a rolled-back journal.
    pub(crate) fn discard(&self) -> Result<(), TxnError> {
        delete(&self.dir, true)?;
        crash::recovery();
        Ok(())
    }
}

/// Deletes a journal directory. `MANIFEST` goes first: a published journal without one is
/// finished by definition (publication requires it), so a crash mid-deletion is harmless.
/// `durable` makes that first unlink durable before anything else goes (needed when no
/// `COMMITTED` marker protects the partially deleted journal).
pub(crate) fn delete(dir: &Path, durable: bool) -> Result<(), TxnError> {
    let manifest = dir.join(MANIFEST);
    match fs::remove_file(&manifest) {
        Ok(()) => {}
        Err(e) if fsx::is_missing(&e) => {}
        Err(e) => return Err(io_err("deleting", &manifest, &e)),
    }
    if durable {
        fsx::sync_dir(dir).map_err(|e| io_err("syncing", dir, &e))?;
    }
    fs::remove_dir_all(dir).map_err(|e| io_err("deleting", dir, &e))?;
    let state = fsx::parent(dir);
    fsx::sync_dir(state).map_err(|e| io_err("syncing", state, &e))
}

/// What a published journal directory holds.
pub(crate) enum Found {
    /// No `transaction/`.
    Nothing,
    /// Committed, or deletion had started: only cleanup remains.
    Finished,
    /// An interrupted transaction to roll back.
    Pending(Journal),
}

/// Reads `.ash/transaction`, classifying it; an unreadable journal is a recovery error.
pub(crate) fn open(root: &Path, state: &Path) -> Result<Found, TxnError> {
    let dir = state.join(PUBLISHED);
    match fsx::probe(&dir).map_err(|e| io_err("inspecting", &dir, &e))? {
        None => return Ok(Found::Nothing),
        Some(meta) if meta.file => {
            return Err(TxnError::Recovery(format!(
                "{} is a file, not a journal directory",
                dir.display()
            )));
        }
        Some(_) => {}
    }
    match fs::read(dir.join(COMMITTED)) {
        Ok(marker) if marker == COMMITTED_MARKER => return Ok(Found::Finished),
        Ok(_) => {
            return Err(TxnError::Recovery(format!(
                "{} holds an invalid COMMITTED marker",
                dir.display()
            )));
        }
        Err(e) if fsx::is_missing(&e) => {}
        Err(e) => return Err(io_err("reading", &dir.join(COMMITTED), &e)),
    }
    let bytes = match read_manifest(&dir.join(MANIFEST)) {
        Ok(bytes) => bytes,
        Err(e) if fsx::is_missing(&e) => return Ok(Found::Finished),
        Err(e) => return Err(io_err("reading", &dir.join(MANIFEST), &e)),
    };
    let entries = manifest::decode(&bytes)
        .map_err(|why| TxnError::Recovery(format!("{}: {why}", dir.join(MANIFEST).display())))?;
    Ok(Found::Pending(Journal::new(root, dir, entries, &bytes)))
}

fn read_manifest(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(manifest::MAX_MANIFEST_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Stages `actions` into `transaction.new`, writes the manifest and publishes it.
/// Nothing in the workspace is touched; on failure the half-built journal is removed.
pub(crate) fn prepare(
    root: &Path,
    state: &Path,
    actions: &[Action],
    stop: &Stop,
) -> Result<Journal, TxnError> {
    let new = state.join(PREPARING);
    let result = build(&new, actions, stop);
    let bytes = match result {
        Ok(bytes) => bytes,
        Err(e) => {
            let _ = fs::remove_dir_all(&new);
            return Err(e);
        }
    };
    let dir = state.join(PUBLISHED);
    if let Err(e) = fs::rename(&new, &dir) {
        let _ = fs::remove_dir_all(&new);
        return Err(io_err("publishing", &dir, &e));
    }
    // From here the journal is published: failures are the caller's to roll back, but the
    // rename itself must reach the disk before any workspace file changes.
    let entries = actions.iter().map(|a| a.entry.clone()).collect();
    let journal = Journal::new(root, dir, entries, &bytes);
    if let Err(e) = fsx::sync_dir(state) {
        // Nothing is applied yet, so dropping the journal is the whole rollback.
        let _ = delete(&journal.dir, true);
        return Err(io_err("syncing", state, &e));
    }
    crash::forward();
    Ok(journal)
}

fn build(new: &Path, actions: &[Action], stop: &Stop) -> Result<Vec<u8>, TxnError> {
    let mkdir = |dir: &Path| {
        DirBuilder::new()
            .mode(0o700)
            .create(dir)
            .map_err(|e| io_err("creating", dir, &e))
    };
    mkdir(new)?;
    let (stage, removed) = (new.join("stage"), new.join("removed"));
    mkdir(&stage)?;
    mkdir(&removed)?;
    for (i, action) in actions.iter().enumerate() {
        stop.check()?;
        let name = format!("{i:08x}");
        if let Some(bytes) = &action.stage {
            let path = stage.join(&name);
            fsx::write_new(&path, bytes, action.mode).map_err(|e| io_err("staging", &path, &e))?;
        }
        if let Some(bytes) = &action.preimage {
            let path = removed.join(&name);
            fsx::write_new(&path, bytes, Some(0o600))
                .map_err(|e| io_err("saving preimage", &path, &e))?;
        }
        crash::forward();
    }
    for dir in [&stage, &removed] {
        fsx::sync_dir(dir).map_err(|e| io_err("syncing", dir, &e))?;
    }
    let entries: Vec<Entry> = actions.iter().map(|a| a.entry.clone()).collect();
    let bytes = manifest::encode(&entries);
    let path = new.join(MANIFEST);
    fsx::write_new(&path, &bytes, Some(0o600)).map_err(|e| io_err("writing", &path, &e))?;
    fsx::sync_dir(new).map_err(|e| io_err("syncing", new, &e))?;
    crash::forward();
    stop.check()?;
    Ok(bytes)
}
