//! Rolling back a restore and recovering an interrupted one.
//!
//! Each change's progress is read off the file system: its staged entry gone means it was
//! placed, its `removed/` entry present means what it replaced was taken away. Rollback first
//! classifies every change, then un-places deepest first, puts the removed entries back parent
//! first and resets directory modes. A path a concurrent writer holds keeps the writer's
//! version; the other version is set aside next to it (`aside`), so a rollback always
//! finishes and loses nothing. Every step is one rename, rmdir or chmod, so a crash during rollback leaves a state
//! the next run reads the same way (recovery is re-entrant).

use super::aside::{self, Move, Slot};
use super::desired::{Before, Change, Item};
use super::journal::{self, DONE_COMMITTED, DONE_ROLLED_BACK, PREPARING, PUBLISHED, STATE};
use super::{RestoreError, RollbackConflict, crash, fsops};
use crate::checkpoint::manifest::Node;
use crate::files::workspace::Workspace;
use crate::txn::Outcome;
use std::collections::{BTreeMap, BTreeSet};
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
    /// Paths of a rolled-back restore where a concurrent writer's version stayed and the
    /// other version was set aside next to it, sorted.
    pub conflicts: Vec<RollbackConflict>,
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
            conflicts: Vec::new(),
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
            conflicts: Vec::new(),
        });
    }
    for (dir, outcome) in [
        (DONE_COMMITTED, Outcome::Committed),
        (DONE_ROLLED_BACK, Outcome::RolledBack),
    ] {
        if exists(ws, dir)? {
            let changes = journal_changes(ws, dir);
            let conflicts = aside::recorded(ws, dir, &changes);
            drop_dir(ws, dir)?;
            found.push(RecoveredRestore {
                paths: changes.into_iter().map(|c| c.path).collect(),
                outcome,
                conflicts,
            });
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
            conflicts: Vec::new(),
        });
        return Ok(());
    }
    let manifest = format!("{PUBLISHED}/{}", journal::MANIFEST);
    let bytes = read_small(ws, &manifest, journal::MAX_MANIFEST_BYTES)
        .map_err(|e| RestoreError::Recovery(format!("reading {manifest}: {e}")))?;
    let changes = journal::decode(&bytes).map_err(RestoreError::Recovery)?;
    let conflicts = roll_back(ws, &changes)?;
    found.push(RecoveredRestore {
        paths,
        outcome: Outcome::RolledBack,
        conflicts,
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
    journal_changes(ws, dir)
        .into_iter()
        .map(|c| c.path)
        .collect()
}

/// The changes of a journal directory's `MANIFEST`, best effort (for reports).
fn journal_changes(ws: &Workspace, dir: &str) -> Vec<Change> {
    read_small(
        ws,
        &format!("{dir}/{}", journal::MANIFEST),
        journal::MAX_MANIFEST_BYTES,
    )
    .ok()
    .and_then(|bytes| journal::decode(&bytes).ok())
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

fn step_err(what: &str, path: &str, e: &io::Error) -> RestoreError {
    RestoreError::Recovery(format!("{what} {path} during rollback: {e}"))
}

/// Rolls the published journal's `changes` back and deletes the journal. Where a concurrent
/// writer holds a path the rollback must put a version back at, the writer's version stays
/// and the other is set aside next to it (`aside`); those paths are returned.
pub(crate) fn roll_back(
    ws: &Workspace,
    changes: &[Change],
) -> Result<Vec<RollbackConflict>, RestoreError> {
    let dir = PUBLISHED;
    let records = aside::read_records(ws, dir)?;
    let reserved: BTreeSet<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    // Directories already set aside (by a rollback a crash interrupted), by change path.
    let mut set_aside: BTreeMap<String, u32> = BTreeMap::new();
    for (&(slot, i), &n) in &records {
        let Some(c) = changes.get(i) else {
            return Err(RestoreError::Recovery(format!(
                "a conflict record of {dir} names change {i}, which the journal does not have; the journal and the files are left as they are"
            )));
        };
        if slot == Slot::Removed {
            set_aside.insert(c.path.clone(), n);
        }
    }
    // Everything is classified before anything changes.
    let mut unplace = vec![false; changes.len()];
    let mut unremove = vec![false; changes.len()];
    let mut writers = vec![false; changes.len()];
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
        let staged = present(&stage)?;
        if let Some(after) = &c.after
            && !after.is_dir()
            && staged
            && !fsops::holds(ws, &stage, after).map_err(|e| step_err("checking", &stage, &e))?
        {
            // The stage holds what a writer wrote into the placed entry: a rollback taking
            // it back was interrupted. It goes back to the path (or next to it).
            writers[i] = true;
        } else if let Some(after) = &c.after
            && !staged
            && present(&c.path)?
            && (c.before.is_none() || has_removed)
        {
            // Placed: taken back only if it still holds exactly what was placed; otherwise a
            // writer's version is there and stays.
            unplace[i] =
                fsops::holds(ws, &c.path, after).map_err(|e| step_err("checking", &c.path, &e))?;
        }
        unremove[i] = has_removed;
    }
    let mut conflicts = Vec::new();
    let mut dirty = fsops::Dirty::default();
    let flush =
        |dirty: &mut fsops::Dirty| dirty.flush(ws).map_err(|e| step_err("syncing", ".", &e));
    for i in (0..changes.len()).rev() {
        if writers[i] {
            let known = records.get(&(Slot::Staged, i)).copied();
            if let Some(c) = writer_back(ws, &changes[i], i, known, &reserved, &mut dirty)? {
                conflicts.push(c);
            }
        } else if unplace[i] {
            if let Some(c) = un_place(ws, &changes[i], i, &reserved, &mut dirty)? {
                conflicts.push(c);
            }
        } else if let Some(&n) = records.get(&(Slot::Staged, i)) {
            // Set aside by a rollback a crash interrupted after that step.
            conflicts.push(RollbackConflict {
                path: changes[i].path.clone(),
                set_aside: aside::side(&changes[i].path, n),
            });
        }
    }
    flush(&mut dirty)?;
    for (i, c) in changes.iter().enumerate() {
        let target = aside::mapped(&c.path, &set_aside);
        let known = records.get(&(Slot::Removed, i)).copied();
        if !unremove[i] {
            if let Some(n) = known {
                conflicts.push(RollbackConflict {
                    path: c.path.clone(),
                    set_aside: aside::side(&target, n),
                });
            }
            continue;
        }
        let removed = journal::removed(dir, i);
        if c.before.as_ref().is_some_and(Before::is_dir) {
            flush(&mut dirty)?;
        }
        let back = match known {
            Some(_) => Err(io::ErrorKind::AlreadyExists.into()),
            None => fsops::rename_new(ws, &removed, &target),
        };
        let at = match back {
            Ok(()) => target.clone(),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // A writer created the path again after the restore moved it away: its
                // version stays, the one the restore moved away goes next to it.
                let m = Move {
                    slot: Slot::Removed,
                    i,
                    from: &removed,
                    path: &target,
                    known,
                };
                let (to, n) = aside::set_aside(ws, &m, &reserved)?;
                set_aside.insert(c.path.clone(), n);
                conflicts.push(RollbackConflict {
                    path: c.path.clone(),
                    set_aside: to.clone(),
                });
                to
            }
            Err(e) => return Err(step_err("putting back", &c.path, &e)),
        };
        dirty.touch(&at);
        dirty.touch(&removed);
        if let Some(Before::Kept(Item {
            mode,
            node: Node::Dir,
        })) = &c.before
            && mode & 0o700 != 0o700
        {
            // Its children come back next; its own mode is set last.
            fsops::chmod_dir(ws, &at, mode | 0o700).map_err(|e| step_err("opening up", &at, &e))?;
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
        {
            let at = match set_aside.get(&c.path) {
                Some(&n) => aside::side(&aside::mapped(&c.path, &set_aside), n),
                None => aside::mapped(&c.path, &set_aside),
            };
            if matches!(fsops::lstat(ws, &at), Ok(Some((rustix::fs::FileType::Directory, m, _))) if m != *mode)
            {
                fsops::chmod_dir(ws, &at, *mode)
                    .map_err(|e| step_err("resetting the mode of", &at, &e))?;
                crash::recovery();
            }
        }
    }
    flush(&mut dirty)?;
    finish(ws, DONE_ROLLED_BACK, crash::recovery)?;
    Ok(aside::report(conflicts))
}

/// Takes back what change `i` placed: a directory is removed (only if empty: one a writer put
/// entries in stays, with them), anything else goes back into the stage. A version a writer
/// wrote between the check and the move goes back to the path, or next to it.
fn un_place(
    ws: &Workspace,
    c: &Change,
    i: usize,
    reserved: &BTreeSet<&str>,
    dirty: &mut fsops::Dirty,
) -> Result<Option<RollbackConflict>, RestoreError> {
    let stage = journal::stage(PUBLISHED, i);
    let mut conflict = None;
    if c.after.as_ref().is_some_and(Item::is_dir) {
        match fsops::rmdir(ws, &c.path) {
            Ok(()) => {}
            // A writer's entries: the directory stays for them (what the restore moved away
            // from here, if anything, is set aside next to it).
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => {}
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
            // Written between the check and the rename (a crash from here on is found by
            // the stage no longer holding what was staged).
            conflict = writer_back(ws, c, i, None, reserved, dirty)?;
        }
    }
    crash::recovery();
    Ok(conflict)
}

/// Change `i`'s stage holds a writer's version: back to the path if it is free, else next
/// to it (`known`: the number a record announced before a crash).
fn writer_back(
    ws: &Workspace,
    c: &Change,
    i: usize,
    known: Option<u32>,
    reserved: &BTreeSet<&str>,
    dirty: &mut fsops::Dirty,
) -> Result<Option<RollbackConflict>, RestoreError> {
    let stage = journal::stage(PUBLISHED, i);
    let back = match known {
        Some(_) => Err(io::ErrorKind::AlreadyExists.into()),
        None => fsops::rename_new(ws, &stage, &c.path),
    };
    let conflict = match back {
        Ok(()) => {
            dirty.touch(&c.path);
            None
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let m = Move {
                slot: Slot::Staged,
                i,
                from: &stage,
                path: &c.path,
                known,
            };
            let (to, _) = aside::set_aside(ws, &m, reserved)?;
            Some(RollbackConflict {
                path: c.path.clone(),
                set_aside: to,
            })
        }
        Err(e) => return Err(step_err("putting back", &c.path, &e)),
    };
    dirty.touch(&stage);
    dirty
        .flush(ws)
        .map_err(|e| step_err("syncing", &c.path, &e))?;
    Ok(conflict)
}
