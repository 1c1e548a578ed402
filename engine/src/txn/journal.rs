//! The on-disk journal: preparing `transaction.new`, publishing it as `transaction`, the
//! `COMMITTED` marker and deletion.

use super::manifest::{self, Entry};
use super::tag::{MAX_TAG_BYTES, Tag};
use super::{Action, Stop, TxnError, crash, fsx, io_err};
use crate::files::workspace::Workspace;
use crate::protocol::to_lower_hex;
use std::io::{self, Read};

/// The journal being prepared (a logical path, like every path of the journal).
pub(crate) const PREPARING: &str = ".ash/transaction.new";
/// The published journal.
pub(crate) const PUBLISHED: &str = ".ash/transaction";
/// The state directory holding both.
pub(crate) const STATE: &str = ".ash";
const MANIFEST: &str = "MANIFEST";
/// The embedder's tag of the request (absent for an untagged one); not part of the reference
/// layout, which ignores extra files (docs/protocol.md).
const TAG: &str = "TAG";
const COMMITTED: &str = "COMMITTED";
const COMMITTED_NEW: &str = "COMMITTED.new";
/// Exact content of the commit marker.
pub(crate) const COMMITTED_MARKER: &[u8] = b"committed\n";

/// A published journal and the workspace it belongs to.
#[derive(Debug)]
pub(crate) struct Journal {
    ws: Workspace,
    dir: &'static str,
    /// The journaled actions in apply order.
    pub entries: Vec<Entry>,
    // Names this journal's temp files in workspace directories (from the manifest checksum,
    // so recovery can find them and they never collide with another transaction's).
    tag: String,
}

impl Journal {
    /// Binds decoded `entries` to the journal directory `dir`; `manifest` gives the temp tag.
    pub(crate) fn new(ws: &Workspace, entries: Vec<Entry>, manifest: &[u8]) -> Journal {
        let check = &manifest[manifest.len().saturating_sub(32)..];
        let tag = to_lower_hex(&check[..check.len().min(8)]);
        Journal {
            ws: ws.clone(),
            dir: PUBLISHED,
            entries,
            tag,
        }
    }

    /// The workspace every path of the journal is reached through.
    pub(crate) fn ws(&self) -> &Workspace {
        &self.ws
    }

    /// `stage/<i>`.
    pub(crate) fn stage(&self, i: usize) -> String {
        format!("{}/stage/{i:08x}", self.dir)
    }

    /// `removed/<i>`.
    pub(crate) fn removed(&self, i: usize) -> String {
        format!("{}/removed/{i:08x}", self.dir)
    }

    /// The temp name a replace of action `i` uses beside its target.
    pub(crate) fn temp(&self, i: usize) -> String {
        let name = format!(".ash-{}-{i:08x}.tmp", self.tag);
        match fsx::parent(&self.entries[i].path) {
            "." => name,
            dir => format!("{dir}/{name}"),
        }
    }

    /// Writes the commit marker durably, then deletes the journal.
    pub(crate) fn commit(&self) -> Result<(), TxnError> {
        let ws = &self.ws;
        let new = format!("{}/{COMMITTED_NEW}", self.dir);
        let marker = format!("{}/{COMMITTED}", self.dir);
        fsx::write_new(ws, &new, COMMITTED_MARKER, None)
            .map_err(|e| io_err("writing", &new, &e))?;
        fsx::rename(ws, &new, &marker).map_err(|e| io_err("publishing", &marker, &e))?;
        fsx::sync_dir(ws, self.dir).map_err(|e| io_err("syncing", self.dir, &e))?;
        crash::forward();
        delete(ws, self.dir, false)?;
        crash::forward();
        Ok(())
    }

    /// Deletes a rolled-back journal.
    pub(crate) fn discard(&self) -> Result<(), TxnError> {
        delete(&self.ws, self.dir, true)?;
        crash::recovery();
        Ok(())
    }
}

/// Deletes a journal directory. `MANIFEST` goes first: a published journal without one is
/// finished by definition (publication requires it), so a crash mid-deletion is harmless.
/// `durable` makes that first unlink durable before anything else goes (needed when no
/// `COMMITTED` marker protects the partially deleted journal).
pub(crate) fn delete(ws: &Workspace, dir: &str, durable: bool) -> Result<(), TxnError> {
    let manifest = format!("{dir}/{MANIFEST}");
    match fsx::unlink(ws, &manifest) {
        Ok(()) => {}
        Err(e) if fsx::is_missing(&e) => {}
        Err(e) => return Err(io_err("deleting", &manifest, &e)),
    }
    if durable {
        fsx::sync_dir(ws, dir).map_err(|e| io_err("syncing", dir, &e))?;
    }
    fsx::remove_tree(ws, dir).map_err(|e| io_err("deleting", dir, &e))?;
    fsx::sync_dir(ws, STATE).map_err(|e| io_err("syncing", STATE, &e))
}

/// What a published journal directory holds.
pub(crate) enum Found {
    /// No `transaction/`.
    Nothing,
    /// Committed (`committed`), or deletion had started: only cleanup remains. Deletion starts
    /// after a commit and after a rollback alike, so without the marker the outcome is unknown.
    Finished {
        /// The `COMMITTED` marker is present: every action was applied.
        committed: bool,
    },
    /// An interrupted transaction to roll back.
    Pending(Journal),
}

/// Reads `.ash/transaction`, classifying it; an unreadable journal is a recovery error.
pub(crate) fn open(ws: &Workspace) -> Result<Found, TxnError> {
    let dir = PUBLISHED;
    match fsx::probe(ws, dir).map_err(|e| io_err("inspecting", dir, &e))? {
        None => return Ok(Found::Nothing),
        Some(meta) if !meta.dir => {
            return Err(TxnError::Recovery(format!(
                "{dir} is not a journal directory"
            )));
        }
        Some(_) => {}
    }
    let committed = format!("{dir}/{COMMITTED}");
    match read_small(ws, &committed, COMMITTED_MARKER.len() as u64) {
        Ok(marker) if marker == COMMITTED_MARKER => {
            return Ok(Found::Finished { committed: true });
        }
        Ok(_) => {
            return Err(TxnError::Recovery(format!(
                "{dir} holds an invalid COMMITTED marker"
            )));
        }
        Err(e) if fsx::is_missing(&e) => {}
        Err(e) => return Err(io_err("reading", &committed, &e)),
    }
    let manifest_path = format!("{dir}/{MANIFEST}");
    let bytes = match read_small(ws, &manifest_path, manifest::MAX_MANIFEST_BYTES as u64) {
        Ok(bytes) => bytes,
        Err(e) if fsx::is_missing(&e) => return Ok(Found::Finished { committed: false }),
        Err(e) => return Err(io_err("reading", &manifest_path, &e)),
    };
    let entries = manifest::decode(&bytes)
        .map_err(|why| TxnError::Recovery(format!("{manifest_path}: {why}")))?;
    Ok(Found::Pending(Journal::new(ws, entries, &bytes)))
}

/// The tag in journal directory `dir` (prepared or published); missing, unreadable or
/// malformed is no tag.
pub(crate) fn read_tag(ws: &Workspace, dir: &str) -> Option<Tag> {
    let bytes = read_small(ws, &format!("{dir}/{TAG}"), MAX_TAG_BYTES as u64).ok()?;
    Tag::from_journal(&bytes)
}

/// The actions a journal directory's manifest names, best effort (for reports only: an
/// unreadable or invalid manifest is none).
pub(crate) fn read_entries(ws: &Workspace, dir: &str) -> Option<Vec<Entry>> {
    let bytes = read_small(
        ws,
        &format!("{dir}/{MANIFEST}"),
        manifest::MAX_MANIFEST_BYTES as u64,
    )
    .ok()?;
    manifest::decode(&bytes).ok()
}

/// At most `limit + 1` bytes of a journal file (one more than allowed shows it is too long).
fn read_small(ws: &Workspace, path: &str, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    ws.locate(path)?
        .open_read()?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Stages `actions` into `transaction.new`, writes the manifest and publishes it.
/// Nothing in the workspace is touched; on failure the half-built journal is removed.
pub(crate) fn prepare(
    ws: &Workspace,
    actions: &[Action],
    stop: &Stop,
    tag: Option<&Tag>,
) -> Result<Journal, TxnError> {
    let result = build(ws, PREPARING, actions, stop, tag);
    let bytes = match result {
        Ok(bytes) => bytes,
        Err(e) => {
            let _ = fsx::remove_tree(ws, PREPARING);
            return Err(e);
        }
    };
    if let Err(e) = fsx::rename(ws, PREPARING, PUBLISHED) {
        let _ = fsx::remove_tree(ws, PREPARING);
        return Err(io_err("publishing", PUBLISHED, &e));
    }
    // From here the journal is published: failures are the caller's to roll back, but the
    // rename itself must reach the disk before any workspace file changes.
    let entries = actions.iter().map(|a| a.entry.clone()).collect();
    let journal = Journal::new(ws, entries, &bytes);
    if let Err(e) = fsx::sync_dir(ws, STATE) {
        // Nothing is applied yet, so dropping the journal is the whole rollback.
        let _ = delete(ws, journal.dir, true);
        return Err(io_err("syncing", STATE, &e));
    }
    crash::forward();
    crash::published();
    Ok(journal)
}

fn build(
    ws: &Workspace,
    new: &str,
    actions: &[Action],
    stop: &Stop,
    tag: Option<&Tag>,
) -> Result<Vec<u8>, TxnError> {
    // What recovery could not read back is refused before anything is staged.
    let entries: Vec<Entry> = actions.iter().map(|a| a.entry.clone()).collect();
    let bytes = manifest::encode(&entries);
    if !(1..=manifest::MAX_ACTIONS).contains(&entries.len())
        || bytes.len() > manifest::MAX_MANIFEST_BYTES
    {
        return Err(TxnError::Io(format!(
            "the change has {} actions and a journal manifest of {} bytes; at most {} actions and {} bytes can be journaled safely. Nothing was changed: split it into smaller changes",
            entries.len(),
            bytes.len(),
            manifest::MAX_ACTIONS,
            manifest::MAX_MANIFEST_BYTES
        )));
    }
    let mkdir = |dir: &str| fsx::mkdir(ws, dir, 0o700).map_err(|e| io_err("creating", dir, &e));
    mkdir(new)?;
    if let Some(tag) = tag {
        // First, so that even a journal discarded before publication can be attributed.
        let path = format!("{new}/{TAG}");
        fsx::write_new(ws, &path, tag.as_bytes(), Some(0o600))
            .map_err(|e| io_err("writing", &path, &e))?;
    }
    let (stage, removed) = (format!("{new}/stage"), format!("{new}/removed"));
    mkdir(&stage)?;
    mkdir(&removed)?;
    for (i, action) in actions.iter().enumerate() {
        stop.check()?;
        let name = format!("{i:08x}");
        if let Some(bytes) = &action.stage {
            let path = format!("{stage}/{name}");
            fsx::write_new(ws, &path, bytes, action.mode)
                .map_err(|e| io_err("staging", &path, &e))?;
        }
        if let Some(bytes) = &action.preimage {
            let path = format!("{removed}/{name}");
            fsx::write_new(ws, &path, bytes, Some(0o600))
                .map_err(|e| io_err("saving preimage", &path, &e))?;
        }
        crash::forward();
    }
    for dir in [&stage, &removed] {
        fsx::sync_dir(ws, dir).map_err(|e| io_err("syncing", dir, &e))?;
    }
    let path = format!("{new}/{MANIFEST}");
    fsx::write_new(ws, &path, &bytes, Some(0o600)).map_err(|e| io_err("writing", &path, &e))?;
    fsx::sync_dir(ws, new).map_err(|e| io_err("syncing", new, &e))?;
    crash::forward();
    stop.check()?;
    Ok(bytes)
}
