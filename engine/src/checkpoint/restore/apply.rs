//! Applying a plan: checks, staging, publication, the three passes and the commit (the
//! sequence is described on the module, [`super`]).

use super::desired::{self, Before, Change, Held, Item};
use super::journal::{self, DONE_COMMITTED, PREPARING, PUBLISHED};
use super::recover::{self, retune};
use super::{Applied, ObjectSource, OnConflict, Plan, RestoreError, crash, fsops};
use crate::cancel::CancelToken;
use crate::checkpoint::manifest::{Manifest, Node};
use crate::deadline::Deadline;
use crate::files::workspace::Workspace;
use crate::txn::{Halt, Stop, TxnError};
use std::collections::BTreeSet;
use std::io;

/// Staged files held open until they are fsynced together (bounds open descriptors).
const SYNC_BATCH: usize = 256;

/// How long a restore waits for a running edit transaction to release the workspace.
const LOCK_WAIT_MS: u64 = 60_000;

/// Puts the workspace back to `target` as `plan` (made by [`super::plan`] from the same
/// manifests) describes, all or nothing. With [`OnConflict::Keep`] the plan's conflicts, and
/// whatever must stay for them to stay, are left as they are now and listed in
/// [`Applied::kept`]. On any error the workspace is as it was (see [`RestoreError`]).
pub fn apply(
    ws: &Workspace,
    plan: &Plan,
    target: &Manifest,
    now: &Manifest,
    on_conflict: OnConflict,
    source: &dyn ObjectSource,
) -> Result<Applied, RestoreError> {
    desired::validate(target, "target")?;
    desired::validate(now, "now")?;
    check_plan(plan, &desired::diff(target, now, &BTreeSet::new()).changes)?;
    let keep: BTreeSet<String> = match on_conflict {
        OnConflict::Keep => plan.conflicts.iter().cloned().collect(),
        OnConflict::Take => BTreeSet::new(),
    };
    let diff = desired::diff(target, now, &keep);
    let mut applied = Applied {
        kept: diff
            .held
            .iter()
            .filter(|(_, h)| *h == Held::Kept)
            .map(|(p, _)| p.clone())
            .collect(),
        ..Applied::default()
    };
    for c in &diff.changes {
        match (&c.before, &c.after) {
            (Some(_), Some(_)) => applied.restored += 1,
            (None, Some(_)) => applied.recreated += 1,
            _ => applied.deleted += 1,
        }
    }
    if diff.changes.is_empty() {
        return Ok(applied);
    }
    refuse_read_only(ws, ".")?;
    crate::txn::lock::ensure_state_dir(ws).map_err(|e| txn_error(&e))?;
    let _locked = lock(ws)?;
    crate::txn::recover::recover(ws).map_err(|e| txn_error(&e))?;
    recover::recover_reporting(ws, &mut Vec::new())?;
    let changes = with_closed_parents(diff.changes, now);
    preflight(ws, &changes)?;
    stage(ws, &changes, source)?;
    publish(ws)?;
    match forward(ws, &changes) {
        Ok(()) => {}
        // Whether the marker exists is unknown: recovery at the next open decides by it.
        Err(e @ RestoreError::Recovery(_)) => return Err(e),
        Err(e) => {
            let conflicts = recover::roll_back(ws, &changes)?;
            if conflicts.is_empty() {
                return Err(e);
            }
            let path = match e {
                RestoreError::Concurrent { path } => path,
                _ => conflicts
                    .first()
                    .map(|c| c.path.clone())
                    .unwrap_or_default(),
            };
            return Err(RestoreError::Conflicted { path, conflicts });
        }
    }
    clean_up(ws);
    Ok(applied)
}

/// Sets the committed journal aside under a trash name and deletes it on a thread of its
/// own: freeing the replaced contents costs more than the restore itself on a busy disk, and
/// the caller already has its answer. A trash directory is never reported; whatever a crash
/// leaves of one, the next recovery deletes silently.
fn clean_up(ws: &Workspace) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let trash = format!(
        "{}/{}{}-{nanos}",
        journal::STATE,
        journal::TRASH_PREFIX,
        std::process::id()
    );
    if fsops::rename_new(ws, PUBLISHED, &trash).is_err() {
        // Committed: a failure to clean up leaves only a journal the next open deletes.
        let _ = recover::finish(ws, DONE_COMMITTED, crash::forward);
        return;
    }
    let owned = ws.clone();
    let spawned = std::thread::Builder::new()
        .name("ash-restore-cleanup".into())
        .spawn(move || {
            let _ = fsops::remove_tree(&owned, &trash);
        });
    if spawned.is_err() {
        recover::drop_trash(ws);
    }
}

/// Adds, as mode-only changes to the same mode, the unchanged directories whose entries change
/// but that we could not write to (no owner write or search bit): the journal then opens them
/// up first and puts their mode back whatever happens.
fn with_closed_parents(mut changes: Vec<Change>, now: &Manifest) -> Vec<Change> {
    let dirs: std::collections::BTreeMap<&str, u32> = now
        .entries
        .iter()
        .filter(|e| matches!(e.state, Ok(Node::Dir)))
        .map(|e| (e.path.as_str(), e.mode))
        .collect();
    let listed: BTreeSet<String> = changes.iter().map(|c| c.path.clone()).collect();
    let closed: BTreeSet<(&str, u32)> = changes
        .iter()
        .filter_map(|c| desired::parent(&c.path))
        .filter(|p| !listed.contains(*p))
        .filter_map(|p| dirs.get_key_value(p).map(|(k, m)| (*k, *m)))
        .filter(|(_, mode)| mode & 0o700 != 0o700)
        .collect();
    for (path, mode) in closed {
        let item = Item {
            mode,
            node: Node::Dir,
        };
        changes.push(Change {
            path: path.to_owned(),
            before: Some(Before::Kept(item.clone())),
            after: Some(item),
        });
    }
    changes.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    changes
}

/// Takes the edit transactions' workspace locks, so a restore never interleaves with one.
pub(crate) fn lock(ws: &Workspace) -> Result<crate::txn::lock::Locked, RestoreError> {
    let stop = Stop::new(Deadline::after_ms(LOCK_WAIT_MS), CancelToken::new());
    crate::txn::lock::acquire(ws, &stop).map_err(|e| txn_error(&e))
}

fn txn_error(e: &TxnError) -> RestoreError {
    match e {
        TxnError::Halt(Halt::Cancelled | Halt::TimedOut) => RestoreError::Busy,
        TxnError::ForeignStateDir(why) => RestoreError::ForeignStateDir(why.clone()),
        TxnError::Io(why) => RestoreError::Io(why.clone()),
        TxnError::Recovery(why) => RestoreError::Recovery(format!(
            "an interrupted edit transaction must be recovered first: {why}"
        )),
        TxnError::Conflict { index, .. } => {
            RestoreError::Io(format!("journaled action {index} conflicts"))
        }
    }
}

/// The plan must list exactly the changes the manifests give, so what the user approved is
/// what happens.
fn check_plan(plan: &Plan, changes: &[Change]) -> Result<(), RestoreError> {
    let planned: BTreeSet<&str> = plan
        .restore
        .iter()
        .chain(&plan.recreate)
        .chain(&plan.delete)
        .map(|f| f.path.as_str())
        .collect();
    let wanted: BTreeSet<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    match planned.symmetric_difference(&wanted).next() {
        Some(path) => Err(RestoreError::StalePlan {
            path: (*path).to_owned(),
        }),
        None => Ok(()),
    }
}

fn refuse_read_only(ws: &Workspace, dir: &str) -> Result<(), RestoreError> {
    match fsops::read_only(ws, dir) {
        Ok(false) => Ok(()),
        Ok(true) => Err(RestoreError::ReadOnly {
            reason: format!("{} is on a file system mounted read-only", shown(ws, dir)),
        }),
        Err(e) => Err(RestoreError::Io(format!(
            "inspecting {}: {e}",
            shown(ws, dir)
        ))),
    }
}

fn shown(ws: &Workspace, dir: &str) -> String {
    if dir == "." {
        ws.root().display().to_string()
    } else {
        ws.root().join(dir).display().to_string()
    }
}

/// Every directory the restore changes entries in must be writable and on `.ash`'s file
/// system (renames cannot cross file systems, and a copy would not be atomic).
fn preflight(ws: &Workspace, changes: &[Change]) -> Result<(), RestoreError> {
    let ash = fsops::device(ws, journal::STATE)
        .map_err(|e| RestoreError::Io(format!("inspecting .ash: {e}")))?;
    let mut seen = BTreeSet::new();
    for c in changes {
        // The nearest existing directory at or above the change's parent.
        let mut dir = desired::parent(&c.path);
        loop {
            let d = dir.unwrap_or(".");
            match fsops::lstat(ws, d) {
                Ok(Some((rustix::fs::FileType::Directory, _, _))) => break,
                Ok(_) => dir = dir.and_then(desired::parent),
                Err(e) => return Err(RestoreError::Io(format!("inspecting {d}: {e}"))),
            }
            if dir.is_none() {
                break;
            }
        }
        let d = dir.unwrap_or(".");
        if !seen.insert(d.to_owned()) {
            continue;
        }
        refuse_read_only(ws, d)?;
        let dev =
            fsops::device(ws, d).map_err(|e| RestoreError::Io(format!("inspecting {d}: {e}")))?;
        if dev != ash {
            return Err(RestoreError::CrossDevice {
                path: c.path.clone(),
            });
        }
    }
    Ok(())
}

/// Writes every staged entry and the manifest into `.ash/restore.new`, reading and verifying
/// each kept content; on failure nothing of it remains.
fn stage(
    ws: &Workspace,
    changes: &[Change],
    source: &dyn ObjectSource,
) -> Result<(), RestoreError> {
    let result = stage_all(ws, changes, source);
    if result.is_err() {
        let _ = fsops::remove_tree(ws, PREPARING);
    }
    result
}

fn stage_all(
    ws: &Workspace,
    changes: &[Change],
    source: &dyn ObjectSource,
) -> Result<(), RestoreError> {
    let io = |what: &str, path: &str, e: io::Error| -> RestoreError {
        if e.kind() == io::ErrorKind::ReadOnlyFilesystem {
            RestoreError::ReadOnly {
                reason: format!("{what} {path}: {e}"),
            }
        } else {
            RestoreError::Io(format!("{what} {path}: {e}"))
        }
    };
    let mut dirty = fsops::Dirty::default();
    let mut written = Vec::new();
    for dir in [
        PREPARING.to_owned(),
        format!("{PREPARING}/stage"),
        format!("{PREPARING}/removed"),
    ] {
        fsops::mkdir(ws, &dir).map_err(|e| io("creating", &dir, e))?;
        dirty.touch(&dir);
    }
    for (i, c) in changes.iter().enumerate() {
        if retune(c) {
            continue;
        }
        let Some(after) = &c.after else { continue };
        let staged = journal::stage(PREPARING, i);
        match &after.node {
            Node::File { digest, size } => {
                let bytes = super::plan::read(source, &c.path, digest, *size)?;
                let file = fsops::write_new_unsynced(ws, &staged, &bytes, after.mode)
                    .map_err(|e| io("staging", &c.path, e))?;
                written.push(file);
                if written.len() >= SYNC_BATCH {
                    fsops::sync_all(&written).map_err(|e| io("syncing", PREPARING, e))?;
                    written.clear();
                }
            }
            Node::Dir => fsops::mkdir(ws, &staged).map_err(|e| io("staging", &c.path, e))?,
            Node::Symlink { target } => {
                fsops::symlink(ws, target, &staged).map_err(|e| io("staging", &c.path, e))?;
            }
        }
        dirty.touch(&staged);
    }
    fsops::sync_all(&written).map_err(|e| io("syncing", PREPARING, e))?;
    drop(written);
    let manifest = format!("{PREPARING}/{}", journal::MANIFEST);
    fsops::write_new(ws, &manifest, &journal::encode(changes), 0o600)
        .map_err(|e| io("writing", &manifest, e))?;
    dirty.touch(&manifest);
    dirty.flush(ws).map_err(|e| io("syncing", PREPARING, e))?;
    crash::forward();
    Ok(())
}

/// The one rename that makes the journal count, made durable before anything changes.
fn publish(ws: &Workspace) -> Result<(), RestoreError> {
    let published = fsops::rename_new(ws, PREPARING, PUBLISHED)
        .and_then(|()| crate::txn::fsx::sync_dir(ws, journal::STATE));
    if let Err(e) = published {
        let _ = fsops::remove_tree(ws, PREPARING);
        let _ = fsops::remove_tree(ws, PUBLISHED);
        return Err(RestoreError::Io(format!("publishing {PUBLISHED}: {e}")));
    }
    crash::forward();
    crash::published();
    Ok(())
}

/// The forward passes and the commit marker; any error leaves the rollback to the caller.
fn forward(ws: &Workspace, changes: &[Change]) -> Result<(), RestoreError> {
    let concurrent = |path: &str| RestoreError::Concurrent {
        path: path.to_owned(),
    };
    let failed = |what: &str, path: &str, e: &io::Error| -> RestoreError {
        if fsops::missing(e) || e.kind() == io::ErrorKind::AlreadyExists {
            concurrent(path)
        } else {
            RestoreError::Io(format!("{what} {path}: {e}"))
        }
    };
    let mut dirty = fsops::Dirty::default();
    let flush = |dirty: &mut fsops::Dirty, path: &str| {
        dirty.flush(ws).map_err(|e| failed("syncing", path, &e))
    };
    // A directory whose entries change must be writable by us; its mode is set last.
    for c in changes {
        if let Some(Before::Kept(Item {
            mode,
            node: Node::Dir,
        })) = &c.before
            && mode & 0o700 != 0o700
        {
            fsops::chmod_dir(ws, &c.path, mode | 0o700)
                .map_err(|e| failed("opening up", &c.path, &e))?;
            crash::forward();
        }
    }
    // Deepest first: what is replaced or deleted goes into removed/, and is checked there
    // against `now`, so a write that raced the check is found and rolled back, not lost.
    // The stat of each file checked is taken again before the commit: a writer that opened
    // the path before it moved can still write into it there.
    let mut checked: Vec<(usize, fsops::Times)> = Vec::new();
    for (i, c) in changes.iter().enumerate().rev() {
        let Some(before) = &c.before else { continue };
        if retune(c) {
            continue;
        }
        let removed = journal::removed(PUBLISHED, i);
        if before.is_dir() {
            // Its children's moves must be durable before it moves itself.
            flush(&mut dirty, &c.path)?;
        }
        // Without a content to compare, the full stamp (change time included) is checked
        // before the move too; after it, the rename has moved the change time.
        if matches!(before, Before::Unkept { .. })
            && !fsops::still(ws, &c.path, before, false)
                .map_err(|e| failed("checking", &c.path, &e))?
        {
            return Err(concurrent(&c.path));
        }
        fsops::rename_new(ws, &c.path, &removed).map_err(|e| failed("moving away", &c.path, &e))?;
        dirty.touch(&c.path);
        dirty.touch(&removed);
        crash::moved_away(&c.path);
        let times = if before.is_dir() {
            None
        } else {
            fsops::times(ws, &removed).map_err(|e| failed("checking", &c.path, &e))?
        };
        let same = if before.is_dir() {
            fsops::is_empty_dir(ws, &removed)
        } else {
            fsops::still(ws, &removed, before, true)
        };
        if !same.map_err(|e| failed("checking", &c.path, &e))? {
            return Err(concurrent(&c.path));
        }
        checked.extend(times.map(|t| (i, t)));
        if before.is_dir() {
            flush(&mut dirty, &c.path)?;
        }
        crash::forward();
    }
    flush(&mut dirty, ".")?;
    // Parent first: each staged entry goes into place, never over anything.
    for (i, c) in changes.iter().enumerate() {
        let Some(after) = &c.after else { continue };
        if retune(c) {
            if !matches!(
                fsops::lstat(ws, &c.path),
                Ok(Some((rustix::fs::FileType::Directory, _, _)))
            ) {
                return Err(concurrent(&c.path));
            }
            continue;
        }
        let staged = journal::stage(PUBLISHED, i);
        if after.is_dir() {
            flush(&mut dirty, &c.path)?;
        }
        fsops::rename_new(ws, &staged, &c.path).map_err(|e| failed("placing", &c.path, &e))?;
        dirty.touch(&c.path);
        dirty.touch(&staged);
        if after.is_dir() {
            // Its children are placed into it next.
            flush(&mut dirty, &c.path)?;
        }
        crash::forward();
    }
    for c in changes {
        if let Some(Item {
            mode,
            node: Node::Dir,
        }) = &c.after
        {
            fsops::chmod_dir(ws, &c.path, *mode)
                .map_err(|e| failed("setting the mode of", &c.path, &e))?;
            crash::forward();
        }
    }
    flush(&mut dirty, ".")?;
    for (i, times) in checked {
        let removed = journal::removed(PUBLISHED, i);
        let now = fsops::times(ws, &removed).map_err(|e| failed("checking", &removed, &e))?;
        if now != Some(times) {
            return Err(concurrent(&changes[i].path));
        }
    }
    let new = format!("{PUBLISHED}/{}.new", journal::COMMITTED);
    let marker = format!("{PUBLISHED}/{}", journal::COMMITTED);
    let written = fsops::write_new(ws, &new, journal::COMMITTED_MARKER, 0o600)
        .and_then(|()| fsops::rename_over(ws, &new, &marker))
        .and_then(|()| crate::txn::fsx::sync_dir(ws, PUBLISHED));
    if let Err(e) = written {
        // A marker that may exist would make a later recovery finish instead of roll back.
        return match crate::txn::fsx::unlink(ws, &marker) {
            Err(gone) if !fsops::missing(&gone) => Err(RestoreError::Recovery(format!(
                "writing {marker} failed ({e}) and it cannot be removed ({gone})"
            ))),
            _ => Err(RestoreError::Io(format!("writing {marker}: {e}"))),
        };
    }
    crash::forward();
    Ok(())
}
