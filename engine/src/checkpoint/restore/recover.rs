//! Rolling back a restore and recovering an interrupted one.
//!
//! Each change's progress is read off the file system: its staged entry gone means it was
//! placed, its `removed/` entry present means what it replaced was taken away. Rollback first
//! proves every change's state (one it cannot prove leaves journal and files untouched), then
//! un-places deepest first, puts the removed entries back parent first and resets directory
//! modes. Every step is one rename, rmdir or chmod, so a crash during rollback leaves a state
//! the next run reads the same way (recovery is re-entrant).

use super::desired::{Before, Change, Item};
use super::journal::{self, DONE_COMMITTED, DONE_ROLLED_BACK, PREPARING, PUBLISHED, STATE};
use super::{RestoreError, crash, fsops};
use crate::checkpoint::manifest::Node;
use crate::files::workspace::Workspace;
use crate::txn::Outcome;
use std::io::{self, Read};

/// What recovery found of an interrupted restore and did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveredRestore {
    /// The paths the restore was changing, sorted (empty when its journal was unreadable or
    /// it was interrupted before its journal was written).
    pub paths: Vec<String>,
    /// `RolledBack`: the tree is exactly as before the restore. `Committed`: exactly as the
    /// checkpoint (only cleanup remained). `Unresolved`: left untouched for inspection.
    pub outcome: Outcome,
}

/// Recovers an interrupted restore in `ws` under the workspace lock (waiting for a running
/// mutation) and reports what it did; the embedder normally gets this from session open.
pub fn recover(ws: &Workspace) -> Result<Vec<RecoveredRestore>, RestoreError> {
    let mut found = Vec::new();
    if !ws.has_state_dir() {
        return Ok(found);
    }
    let _locked = super::apply::lock(ws)?;
    recover_reporting(ws, &mut found)?;
    Ok(found)
}

/// [`recover`] without taking the lock (the caller holds it), adding to `found` what it did;
/// a failure is also recorded there as the last entry, unresolved.
pub(crate) fn recover_reporting(
    ws: &Workspace,
    found: &mut Vec<RecoveredRestore>,
) -> Result<(), RestoreError> {
    let result = recover_inner(ws, found);
    if let Err(e) = &result {
        found.push(RecoveredRestore {
            paths: journal_paths(ws, PUBLISHED),
            outcome: Outcome::Unresolved {
                reason: e.to_string(),
            },
        });
    }
    result
}

fn recover_inner(ws: &Workspace, found: &mut Vec<RecoveredRestore>) -> Result<(), RestoreError> {
    drop_trash(ws);
    // A journal never published changed nothing in the workspace.
    if exists(ws, PREPARING)? {
        let paths = journal_paths(ws, PREPARING);
        drop_dir(ws, PREPARING)?;
        found.push(RecoveredRestore {
            paths,
            outcome: Outcome::RolledBack,
        });
    }
    for (dir, outcome) in [
        (DONE_COMMITTED, Outcome::Committed),
        (DONE_ROLLED_BACK, Outcome::RolledBack),
    ] {
        if exists(ws, dir)? {
            let paths = journal_paths(ws, dir);
            drop_dir(ws, dir)?;
            found.push(RecoveredRestore { paths, outcome });
        }
    }
    if !exists(ws, PUBLISHED)? {
        return Ok(());
    }
    let paths = journal_paths(ws, PUBLISHED);
    if committed(ws)? {
        finish(ws, DONE_COMMITTED, crash::recovery)?;
        found.push(RecoveredRestore {
            paths,
            outcome: Outcome::Committed,
        });
        return Ok(());
    }
    let manifest = format!("{PUBLISHED}/{}", journal::MANIFEST);
    let bytes = read_small(ws, &manifest, journal::MAX_MANIFEST_BYTES)
        .map_err(|e| RestoreError::Recovery(format!("reading {manifest}: {e}")))?;
    let changes = journal::decode(&bytes).map_err(RestoreError::Recovery)?;
    roll_back(ws, &changes)?;
    found.push(RecoveredRestore {
        paths,
        outcome: Outcome::RolledBack,
    });
    Ok(())
}

/// Whether the published journal carries a valid commit marker.
pub(crate) fn committed(ws: &Workspace) -> Result<bool, RestoreError> {
    let marker = format!("{PUBLISHED}/{}", journal::COMMITTED);
    match read_small(ws, &marker, journal::COMMITTED_MARKER.len() as u64) {
        Ok(bytes) if bytes == journal::COMMITTED_MARKER => Ok(true),
        Ok(_) => Err(RestoreError::Recovery(format!(
            "{marker} is not a valid commit marker; journal and files are left for inspection"
        ))),
        Err(e) if fsops::missing(&e) => Ok(false),
        Err(e) => Err(RestoreError::Recovery(format!("reading {marker}: {e}"))),
    }
}

/// Renames the published journal to `done` (which records the outcome) and deletes it.
pub(crate) fn finish(ws: &Workspace, done: &str, cut: fn()) -> Result<(), RestoreError> {
    fsops::rename_new(ws, PUBLISHED, done)
        .map_err(|e| RestoreError::Recovery(format!("renaming {PUBLISHED} to {done}: {e}")))?;
    cut();
    // No cut point after this: with the journal gone there is nothing left to tell apart.
    drop_dir(ws, done)
}

/// Deletes every committed journal set aside as trash, best effort and silently (its restore
/// was answered; a background deletion may be racing this one, and either may finish it).
pub(crate) fn drop_trash(ws: &Workspace) {
    let Ok(fd) = ws.open_dir(STATE) else { return };
    let Ok(dir) = rustix::fs::Dir::read_from(&fd) else {
        return;
    };
    let names: Vec<String> = dir
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().ok().map(str::to_owned))
        .filter(|n| n.starts_with(journal::TRASH_PREFIX))
        .collect();
    for name in names {
        let _ = fsops::remove_tree(ws, &format!("{STATE}/{name}"));
    }
}

fn drop_dir(ws: &Workspace, dir: &str) -> Result<(), RestoreError> {
    fsops::remove_tree(ws, dir)
        .and_then(|()| crate::txn::fsx::sync_dir(ws, STATE))
        .map_err(|e| RestoreError::Recovery(format!("deleting {dir}: {e}")))
}

fn exists(ws: &Workspace, dir: &str) -> Result<bool, RestoreError> {
    fsops::lstat(ws, dir)
        .map(|m| m.is_some())
        .map_err(|e| RestoreError::Recovery(format!("inspecting {dir}: {e}")))
}

/// The paths a journal directory's `MANIFEST` names, best effort (for reports).
fn journal_paths(ws: &Workspace, dir: &str) -> Vec<String> {
    read_small(
        ws,
        &format!("{dir}/{}", journal::MANIFEST),
        journal::MAX_MANIFEST_BYTES,
    )
    .ok()
    .and_then(|bytes| journal::decode(&bytes).ok())
    .map(|changes| changes.into_iter().map(|c| c.path).collect())
    .unwrap_or_default()
}

fn read_small(ws: &Workspace, path: &str, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    ws.locate(path)?
        .open_read()?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other("longer than a journal file can be"));
    }
    Ok(bytes)
}

/// Whether a change only sets a directory's mode (it has no staged or removed entry).
pub(crate) fn retune(c: &Change) -> bool {
    c.before.as_ref().is_some_and(Before::is_dir) && c.after.as_ref().is_some_and(Item::is_dir)
}

fn unprovable(path: &str, what: &str) -> RestoreError {
    RestoreError::Recovery(format!(
        "cannot prove the state of {path} ({what}); the restore journal in {PUBLISHED} and the \
         files are left as they are for inspection"
    ))
}

fn step_err(what: &str, path: &str, e: &io::Error) -> RestoreError {
    RestoreError::Recovery(format!("{what} {path} during rollback: {e}"))
}

/// Rolls the published journal's `changes` back and deletes the journal.
pub(crate) fn roll_back(ws: &Workspace, changes: &[Change]) -> Result<(), RestoreError> {
    let dir = PUBLISHED;
    // Everything is classified before anything changes.
    let mut unplace = vec![false; changes.len()];
    let mut unremove = vec![false; changes.len()];
    for (i, c) in changes.iter().enumerate() {
        if retune(c) {
            continue;
        }
        let stage = journal::stage(dir, i);
        let removed = journal::removed(dir, i);
        let present = |p: &str| {
            fsops::lstat(ws, p)
                .map(|m| m.is_some())
                .map_err(|e| step_err("inspecting", p, &e))
        };
        let has_removed = c.before.is_some() && present(&removed)?;
        if let Some(after) = &c.after
            && !present(&stage)?
            && present(&c.path)?
            && (c.before.is_none() || has_removed)
        {
            // Placed: the path must still hold exactly what was placed.
            if !fsops::holds(ws, &c.path, after).map_err(|e| step_err("checking", &c.path, &e))? {
                return Err(unprovable(
                    &c.path,
                    "it holds neither what was there nor what the restore placed",
                ));
            }
            unplace[i] = true;
        }
        unremove[i] = has_removed;
    }
    let mut dirty = fsops::Dirty::default();
    let flush =
        |dirty: &mut fsops::Dirty| dirty.flush(ws).map_err(|e| step_err("syncing", ".", &e));
    for i in (0..changes.len()).rev() {
        if unplace[i] {
            un_place(ws, &changes[i], i, &mut dirty)?;
        }
    }
    flush(&mut dirty)?;
    for (i, c) in changes.iter().enumerate() {
        if !unremove[i] {
            continue;
        }
        let removed = journal::removed(dir, i);
        if c.before.as_ref().is_some_and(Before::is_dir) {
            flush(&mut dirty)?;
        }
        match fsops::rename_new(ws, &removed, &c.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(unprovable(
                    &c.path,
                    "another process created it again; its entry and the original (in the journal's removed/) are both kept",
                ));
            }
            Err(e) => return Err(step_err("putting back", &c.path, &e)),
        }
        dirty.touch(&c.path);
        dirty.touch(&removed);
        if let Some(Before::Kept(Item {
            mode,
            node: Node::Dir,
        })) = &c.before
            && mode & 0o700 != 0o700
        {
            // Its children come back next; its own mode is set last.
            fsops::chmod_dir(ws, &c.path, mode | 0o700)
                .map_err(|e| step_err("opening up", &c.path, &e))?;
        }
        if c.before.as_ref().is_some_and(Before::is_dir) {
            flush(&mut dirty)?;
        }
        crash::recovery();
    }
    for c in changes {
        if let Some(Before::Kept(Item {
            mode,
            node: Node::Dir,
        })) = &c.before
            && matches!(fsops::lstat(ws, &c.path), Ok(Some((rustix::fs::FileType::Directory, m, _))) if m != *mode)
        {
            fsops::chmod_dir(ws, &c.path, *mode)
                .map_err(|e| step_err("resetting the mode of", &c.path, &e))?;
            crash::recovery();
        }
    }
    flush(&mut dirty)?;
    finish(ws, DONE_ROLLED_BACK, crash::recovery)
}

/// Takes back what change `i` placed: a directory is removed (only if empty, so nothing a
/// concurrent writer put there is lost), anything else goes back into the stage.
fn un_place(
    ws: &Workspace,
    c: &Change,
    i: usize,
    dirty: &mut fsops::Dirty,
) -> Result<(), RestoreError> {
    let stage = journal::stage(PUBLISHED, i);
    if c.after.as_ref().is_some_and(Item::is_dir) {
        match fsops::rmdir(ws, &c.path) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => {
                return Err(unprovable(&c.path, "another process created entries in it"));
            }
            Err(e) => return Err(step_err("removing", &c.path, &e)),
        }
        dirty.touch(&c.path);
        dirty
            .flush(ws)
            .map_err(|e| step_err("syncing", &c.path, &e))?;
    } else {
        fsops::rename_new(ws, &c.path, &stage).map_err(|e| step_err("taking back", &c.path, &e))?;
        dirty.touch(&c.path);
        dirty.touch(&stage);
        let after = c.after.as_ref();
        let intact = after.map_or(Ok(true), |a| fsops::holds(ws, &stage, a));
        if !intact.map_err(|e| step_err("checking", &stage, &e))? {
            // Written between the check and the rename: put it back, lose nothing.
            let _ = fsops::rename_new(ws, &stage, &c.path);
            return Err(unprovable(
                &c.path,
                "another process wrote it during the rollback",
            ));
        }
    }
    crash::recovery();
    Ok(())
}
