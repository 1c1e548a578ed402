//! Applying a published journal, action by action, re-checking preimages right before each
//! step. On failure the applied actions, and the failing one if it got as far as changing the
//! workspace, are rolled back by the recovery code, which infers each action's state.

use super::journal::Journal;
use super::manifest::Kind;
use super::{CommitFailure, MAX_FILE_BYTES, Stop, TxnError, crash, fsx, io_err, recover};
use crate::protocol::Digest;
use std::fs::{self, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

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
    let e = &j.entries[i];
    let path = j.abs(&e.path);
    *touched = e.kind != Kind::Replace;
    match e.kind {
        Kind::Create | Kind::Copy => {
            let target = match &e.destination {
                Some(d) => j.abs(d),
                None => path,
            };
            link_staged(i, &j.stage(i), &target)
        }
        Kind::Move => {
            let target = j.abs(e.destination.as_deref().unwrap_or_default());
            expect(i, &path, e.digest, e.size)?;
            link_new(i, &path, &target)?;
            crash::forward();
            fs::remove_file(&path)
                .and_then(|()| sync_parent(&path))
                .map_err(|err| io_err("unlinking", &path, &err))?;
            crash::forward();
            Ok(())
        }
        Kind::Remove => {
            expect(i, &path, e.digest, e.size)?;
            let removed = j.removed(i);
            fs::rename(&path, &removed).map_err(|err| io_err("removing", &path, &err))?;
            sync_parent(&path)
                .and_then(|()| sync_parent(&removed))
                .map_err(|err| io_err("syncing", &path, &err))?;
            crash::forward();
            Ok(())
        }
        Kind::Replace => {
            let (pre_digest, pre_size) = e.preimage.unwrap_or((e.digest, e.size));
            replace(j, i, &path, (pre_digest, pre_size), touched)
        }
    }
}

/// Create and copy: hard-link the staged file to the new name (an existing name fails
/// without being overwritten), then drop the stage name.
fn link_staged(i: usize, stage: &Path, target: &Path) -> Result<(), TxnError> {
    link_new(i, stage, target)?;
    crash::forward();
    fs::remove_file(stage)
        .and_then(|()| sync_parent(stage))
        .map_err(|err| io_err("unlinking", stage, &err))?;
    crash::forward();
    Ok(())
}

/// Links `from` to the new name `to` durably; an existing `to` is a conflict.
fn link_new(i: usize, from: &Path, to: &Path) -> Result<(), TxnError> {
    match fs::hard_link(from, to) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            return Err(TxnError::Conflict {
                index: i,
                observed: observe(to),
            });
        }
        Err(err) => return Err(io_err("linking", to, &err)),
    }
    sync_parent(to).map_err(|err| io_err("syncing", to, &err))
}

/// Replace: link the staged content under a temp name beside the target, give it the target's
/// permissions, re-check the target's preimage, and rename over it.
fn replace(
    j: &Journal,
    i: usize,
    path: &Path,
    (digest, size): (Digest, u64),
    touched: &mut bool,
) -> Result<(), TxnError> {
    let temp = j.temp(i);
    if let Err(err) = place_temp(&j.stage(i), &temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(err);
    }
    crash::forward();
    let swapped = expect(i, path, digest, size)
        .and_then(|()| fs::rename(&temp, path).map_err(|err| io_err("replacing", path, &err)));
    if let Err(err) = swapped {
        let _ = fs::remove_file(&temp);
        return Err(err);
    }
    *touched = true;
    sync_parent(path).map_err(|err| io_err("syncing", path, &err))?;
    crash::forward();
    Ok(())
}

/// Puts `content` at `temp` (a hard link, or a copy across filesystems) with `like`'s
/// permission bits, durably.
pub(crate) fn place_temp(content: &Path, temp: &Path, like: &Path) -> Result<(), TxnError> {
    let mode = fsx::probe(like)
        .map_err(|err| io_err("inspecting", like, &err))?
        .map(|m| m.mode);
    let _ = fs::remove_file(temp);
    match fs::hard_link(content, temp) {
        Ok(()) => {
            let have = fsx::probe(temp)
                .map_err(|err| io_err("inspecting", temp, &err))?
                .map(|m| m.mode);
            if let Some(mode) = mode.filter(|&m| Some(m) != have) {
                let file = fs::File::open(temp).map_err(|err| io_err("opening", temp, &err))?;
                file.set_permissions(Permissions::from_mode(mode))
                    .and_then(|()| fsx::sync(&file))
                    .map_err(|err| io_err("setting permissions of", temp, &err))?;
            }
        }
        Err(err) if err.raw_os_error() == Some(nix::libc::EXDEV) => {
            let (bytes, _) = fsx::read_hashed(content, MAX_FILE_BYTES, None)
                .map_err(|_| io_err("reading", content, &err))?;
            fsx::write_new(temp, &bytes, mode).map_err(|err| io_err("writing", temp, &err))?;
        }
        Err(err) => return Err(io_err("linking", temp, &err)),
    }
    sync_parent(temp).map_err(|err| io_err("syncing", temp, &err))
}

/// The preimage check: `path` must be a regular file with exactly this size and digest.
fn expect(i: usize, path: &Path, digest: Digest, size: u64) -> Result<(), TxnError> {
    let meta = fsx::probe(path).map_err(|err| io_err("inspecting", path, &err))?;
    let matches = match meta {
        Some(m) if m.file && m.size == size => {
            matches!(fsx::hash_file(path, MAX_FILE_BYTES, None), Ok((d, n)) if d == digest && n == size)
        }
        _ => false,
    };
    if matches {
        Ok(())
    } else {
        Err(TxnError::Conflict {
            index: i,
            observed: observe(path),
        })
    }
}

/// The digest of whatever regular file `path` names now, if any.
pub(crate) fn observe(path: &Path) -> Option<Digest> {
    match fsx::probe(path) {
        Ok(Some(m)) if m.file => fsx::hash_file(path, MAX_FILE_BYTES, None)
            .ok()
            .map(|(d, _)| d),
        _ => None,
    }
}

/// fsync of the directory holding `path`.
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    fsx::sync_dir(fsx::parent(path))
}
