//! Applying a published journal, action by action, re-checking preimages right before each
//! step. On failure the applied actions, and the failing one if it got as far as changing the
//! workspace, are rolled back by the recovery code, which infers each action's state.

use super::journal::Journal;
use super::manifest::Kind;
use super::{CommitFailure, MAX_FILE_BYTES, Stop, TxnError, crash, fsx, io_err, recover};
use crate::files::workspace::Workspace;
use crate::protocol::Digest;
use std::fs::Permissions;
use std::io;
use std::os::unix::fs::PermissionsExt;

/// Applies every action in order; on any failure (including a stop request) rolls back the
/// applied ones and reports the failure with the number rolled back.
pub(crate) fn apply_all(journal: &Journal, stop: &Stop) -> Result<(), CommitFailure> {
    for i in 0..journal.entries.len() {
        let mut touched = false;
        let step = stop
            .check()
            .map_err(TxnError::from)
            .and_then(|()| apply_one(journal, i, &mut touched));
        if let Err(error) = step {
            let upto = if touched { i + 1 } else { i };
            return Err(match recover::roll_back(journal, upto) {
                Ok(()) => CommitFailure {
                    error,
                    rolled_back: i,
                },
                Err(recovery) => CommitFailure {
                    error: recovery,
                    rolled_back: 0,
                },
            });
        }
    }
    Ok(())
}

/// Applies action `i`. `touched` is set once the workspace may have changed; for every kind
/// but replace the state inference is exact (hard-link identity, stage presence), so those
/// always count as touched and a half-done step is undone by the rollback.
fn apply_one(j: &Journal, i: usize, touched: &mut bool) -> Result<(), TxnError> {
    let ws = j.ws();
    let e = &j.entries[i];
    let path = e.path.as_str();
    *touched = e.kind != Kind::Replace;
    match e.kind {
        Kind::Create | Kind::Copy => {
            let target = e.destination.as_deref().unwrap_or(path);
            link_staged(ws, i, &j.stage(i), target)
        }
        Kind::Move => {
            let target = e.destination.as_deref().unwrap_or_default();
            expect(ws, i, path, e.digest, e.size)?;
            link_new(ws, i, path, target)?;
            crash::forward();
            fsx::unlink(ws, path)
                .and_then(|()| fsx::sync_parent(ws, path))
                .map_err(|err| io_err("unlinking", path, &err))?;
            crash::forward();
            Ok(())
        }
        Kind::Remove => {
            expect(ws, i, path, e.digest, e.size)?;
            let removed = j.removed(i);
            fsx::rename(ws, path, &removed).map_err(|err| io_err("removing", path, &err))?;
            fsx::sync_parent(ws, path)
                .and_then(|()| fsx::sync_parent(ws, &removed))
                .map_err(|err| io_err("syncing", path, &err))?;
            crash::forward();
            Ok(())
        }
        Kind::Replace => {
            let (pre_digest, pre_size) = e.preimage.unwrap_or((e.digest, e.size));
            replace(j, i, path, (pre_digest, pre_size), touched)
        }
    }
}

/// Create and copy: hard-link the staged file to the new name (an existing name fails
/// without being overwritten), then drop the stage name.
fn link_staged(ws: &Workspace, i: usize, stage: &str, target: &str) -> Result<(), TxnError> {
    link_new(ws, i, stage, target)?;
    crash::forward();
    fsx::unlink(ws, stage)
        .and_then(|()| fsx::sync_parent(ws, stage))
        .map_err(|err| io_err("unlinking", stage, &err))?;
    crash::forward();
    Ok(())
}

/// Links `from` to the new name `to` durably; an existing `to` is a conflict.
fn link_new(ws: &Workspace, i: usize, from: &str, to: &str) -> Result<(), TxnError> {
    match fsx::link(ws, from, to) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            return Err(TxnError::Conflict {
                index: i,
                observed: observe(ws, to),
            });
        }
        Err(err) => return Err(io_err("linking", to, &err)),
    }
    fsx::sync_parent(ws, to).map_err(|err| io_err("syncing", to, &err))
}

/// Replace: link the staged content under a temp name beside the target, give it the target's
/// permissions, re-check the target's preimage, and rename over it.
fn replace(
    j: &Journal,
    i: usize,
    path: &str,
    (digest, size): (Digest, u64),
    touched: &mut bool,
) -> Result<(), TxnError> {
    let ws = j.ws();
    let temp = j.temp(i);
    if let Err(err) = place_temp(ws, &j.stage(i), &temp, path) {
        let _ = fsx::unlink(ws, &temp);
        return Err(err);
    }
    crash::forward();
    let swapped = expect(ws, i, path, digest, size)
        .and_then(|()| fsx::rename(ws, &temp, path).map_err(|err| io_err("replacing", path, &err)));
    if let Err(err) = swapped {
        let _ = fsx::unlink(ws, &temp);
        return Err(err);
    }
    *touched = true;
    fsx::sync_parent(ws, path).map_err(|err| io_err("syncing", path, &err))?;
    crash::forward();
    Ok(())
}

/// Puts `content` at `temp` (a hard link, or a copy across filesystems) with `like`'s
/// permission bits, durably.
pub(crate) fn place_temp(
    ws: &Workspace,
    content: &str,
    temp: &str,
    like: &str,
) -> Result<(), TxnError> {
    let mode = fsx::probe(ws, like)
        .map_err(|err| io_err("inspecting", like, &err))?
        .map(|m| m.mode);
    let _ = fsx::unlink(ws, temp);
    match fsx::link(ws, content, temp) {
        Ok(()) => {
            let have = fsx::probe(ws, temp)
                .map_err(|err| io_err("inspecting", temp, &err))?
                .map(|m| m.mode);
            if let Some(mode) = mode.filter(|&m| Some(m) != have) {
                let file = ws
                    .locate(temp)
                    .and_then(|at| at.open_read())
                    .map_err(|err| io_err("opening", temp, &err))?;
                file.set_permissions(Permissions::from_mode(mode))
                    .and_then(|()| fsx::sync(&file))
                    .map_err(|err| io_err("setting permissions of", temp, &err))?;
            }
        }
        Err(err) if err.raw_os_error() == Some(nix::libc::EXDEV) => {
            let (bytes, _) = fsx::read_hashed(ws, content, MAX_FILE_BYTES, None)
                .map_err(|_| io_err("reading", content, &err))?;
            fsx::write_new(ws, temp, &bytes, mode).map_err(|err| io_err("writing", temp, &err))?;
        }
        Err(err) => return Err(io_err("linking", temp, &err)),
    }
    fsx::sync_parent(ws, temp).map_err(|err| io_err("syncing", temp, &err))
}

/// The preimage check: `path` must be a regular file with exactly this size and digest.
fn expect(ws: &Workspace, i: usize, path: &str, digest: Digest, size: u64) -> Result<(), TxnError> {
    let meta = fsx::probe(ws, path).map_err(|err| io_err("inspecting", path, &err))?;
    let matches = match meta {
        Some(m) if m.file && m.size == size => {
            matches!(fsx::hash_file(ws, path, MAX_FILE_BYTES, None), Ok((d, n)) if d == digest && n == size)
        }
        _ => false,
    };
    if matches {
        Ok(())
    } else {
        Err(TxnError::Conflict {
            index: i,
            observed: observe(ws, path),
        })
    }
}

/// The digest of whatever regular file `path` names now, if any.
pub(crate) fn observe(ws: &Workspace, path: &str) -> Option<Digest> {
    match fsx::probe(ws, path) {
        Ok(Some(m)) if m.file => fsx::hash_file(ws, path, MAX_FILE_BYTES, None)
            .ok()
            .map(|(d, _)| d),
        _ => None,
    }
}
