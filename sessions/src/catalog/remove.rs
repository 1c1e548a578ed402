//! Deleting sessions: naming them safely (an ID or a unique prefix of one, never a path) and
//! removing one only while holding its lock, so a session open elsewhere is never deleted
//! under its process.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::list::{Listed, list};
use crate::error::SessionError;
use crate::fsutil::sync_dir;
use crate::home::SessionStore;
use crate::ids::SessionId;
use crate::meta::META_FILE;

/// Why a session could not be named or deleted.
#[derive(Debug, Error)]
pub enum RemoveError {
    /// The argument is a path or a relative name, not an ID.
    #[error(
        "{given:?} is not a session ID: give the ID `ansa sessions` lists (like 20261130-142501-123456-4f9a2c) or a unique prefix of it, not a path"
    )]
    NotAnId {
        /// What was given.
        given: String,
    },
    /// No session has this ID or prefix.
    #[error("no session {given:?} in {}; `ansa sessions` lists them", .sessions.display())]
    Unknown {
        /// What was given.
        given: String,
        /// The sessions directory searched.
        sessions: PathBuf,
    },
    /// More than one session starts with this prefix.
    #[error("{given:?} matches {} sessions ({}); give more of the ID", .matches.len(), .matches.iter().map(SessionId::as_str).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// What was given.
        given: String,
        /// The sessions it matches.
        matches: Vec<SessionId>,
    },
    /// Another process holds the session.
    #[error(
        "session_busy: session {id} is open in another process; close it there first (nothing was deleted)"
    )]
    Busy {
        /// The session.
        id: SessionId,
    },
    /// The sessions directory could not be listed.
    #[error("cannot list the sessions: {0}")]
    List(#[source] SessionError),
    /// A filesystem failure while deleting.
    #[error("cannot delete session {id}: {source}")]
    Io {
        /// The session.
        id: SessionId,
        /// What failed.
        #[source]
        source: SessionError,
    },
}

/// The characters a session ID is made of (and so all a prefix may hold).
fn id_chars(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_digit() || c == b'-' || (b'a'..=b'f').contains(&c))
}

/// The session `given` names: an exact ID or a prefix matching exactly one session of `store`.
pub fn resolve(store: &SessionStore, given: &str) -> Result<SessionId, RemoveError> {
    if !id_chars(given) {
        return Err(RemoveError::NotAnId {
            given: given.to_owned(),
        });
    }
    if let Some(id) = SessionId::parse(given)
        && store.session_dir(&id).is_dir()
    {
        return Ok(id);
    }
    let root = store.sessions_dir();
    let matches: Vec<SessionId> = fs::read_dir(&root)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().and_then(SessionId::parse))
                .filter(|id| id.as_str().starts_with(given))
                .collect()
        })
        .unwrap_or_default();
    match matches.len() {
        0 => Err(RemoveError::Unknown {
            given: given.to_owned(),
            sessions: root,
        }),
        1 => Ok(matches.into_iter().next().ok_or(RemoveError::Unknown {
            given: given.to_owned(),
            sessions: root,
        })?),
        _ => {
            let mut matches = matches;
            matches.sort();
            Err(RemoveError::Ambiguous {
                given: given.to_owned(),
                matches,
            })
        }
    }
}

/// Deletes session `id` of `store` and the directories in `also` (its evidence, logs), holding
/// the session's lock throughout. `session.json` goes first (and is synced), so a process that
/// opens the session meanwhile finds no session rather than half of one. Returns the bytes freed.
pub fn remove(store: &SessionStore, id: &SessionId, also: &[PathBuf]) -> Result<u64, RemoveError> {
    let dir = store.session_dir(id);
    let io = |source: SessionError| RemoveError::Io {
        id: id.clone(),
        source,
    };
    let lock = lock_now(&dir).map_err(|e| match e {
        LockFailure::Busy => RemoveError::Busy { id: id.clone() },
        LockFailure::Io(e) => io(SessionError::io("cannot lock", dir.join("lock"), e)),
    })?;
    let mut freed = tree_bytes(&dir);
    let meta = dir.join(META_FILE);
    match fs::remove_file(&meta) {
        Ok(()) => sync_dir(&dir).map_err(|e| io(SessionError::io("cannot sync", &dir, e)))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(SessionError::io("cannot remove", &meta, e))),
    }
    for extra in also {
        freed += tree_bytes(extra);
        remove_tree(extra).map_err(io)?;
    }
    remove_tree(&dir).map_err(io)?;
    drop(lock);
    Ok(freed)
}

/// What `prune` did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// Sessions deleted.
    pub sessions: Vec<SessionId>,
    /// Sessions old enough but open elsewhere, left alone.
    pub busy: Vec<SessionId>,
    /// Orphaned directories reclaimed (evidence of deleted sessions, half-deleted sessions).
    pub orphans: Vec<PathBuf>,
    /// Bytes freed.
    pub bytes: u64,
}

/// Deletes every session of `store` whose last activity is before `cutoff_ms` (with the
/// directories `also(id)` names), then reclaims orphans: each directory in `evidence_root`
/// named for a session ID that has no session any more, and each session directory left
/// without `session.json` by an interrupted delete more than an hour ago.
pub fn prune(
    store: &SessionStore,
    cutoff_ms: u64,
    evidence_root: &Path,
    also: &dyn Fn(&SessionId) -> Vec<PathBuf>,
) -> Result<Pruned, RemoveError> {
    let mut out = Pruned::default();
    let listed: Vec<Listed> = list(store).map_err(RemoveError::List)?;
    for s in listed.iter().filter(|s| s.last_activity_ms < cutoff_ms) {
        if !s.dir.join(META_FILE).exists() {
            continue;
        }
        match remove(store, &s.id, &also(&s.id)) {
            Ok(bytes) => {
                out.bytes += bytes;
                out.sessions.push(s.id.clone());
            }
            Err(RemoveError::Busy { id }) => out.busy.push(id),
            Err(e) => return Err(e),
        }
    }
    reclaim_evidence(store, evidence_root, &mut out);
    reclaim_half_deleted(store, &mut out);
    Ok(out)
}

fn reclaim_evidence(store: &SessionStore, evidence_root: &Path, out: &mut Pruned) {
    let Ok(entries) = fs::read_dir(evidence_root) else {
        return;
    };
    for e in entries.flatten() {
        let Some(id) = e.file_name().to_str().and_then(SessionId::parse) else {
            continue;
        };
        if store.session_dir(&id).exists() {
            continue;
        }
        let path = e.path();
        let bytes = tree_bytes(&path);
        if remove_tree(&path).is_ok() {
            out.bytes += bytes;
            out.orphans.push(path);
        }
    }
}

fn reclaim_half_deleted(store: &SessionStore, out: &mut Pruned) {
    let Ok(entries) = fs::read_dir(store.sessions_dir()) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_str().and_then(SessionId::parse).is_none() {
            continue;
        }
        let dir = e.path();
        // A session being created has no session.json for a moment: only old ones are litter.
        let old = fs::metadata(&dir)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|d| d.as_secs() > 3600);
        if !old || dir.join(META_FILE).exists() {
            continue;
        }
        let Ok(lock) = lock_now(&dir) else { continue };
        let bytes = tree_bytes(&dir);
        if remove_tree(&dir).is_ok() {
            out.bytes += bytes;
            out.orphans.push(dir);
        }
        drop(lock);
    }
}

enum LockFailure {
    Busy,
    Io(std::io::Error),
}

/// Takes the session's lock without waiting (a holder means a live process).
fn lock_now(dir: &Path) -> Result<File, LockFailure> {
    // A link in the sessions directory is not a session: locking "through" it would create a
    // lock file wherever it points. Left for the user to remove.
    if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(LockFailure::Io(std::io::Error::other(
            "it is a symbolic link, not a session directory; nothing was deleted (remove the link yourself if it is not wanted)",
        )));
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .or_else(|e| {
            // A session directory without a lock file was never opened: create one to hold.
            if e.kind() == std::io::ErrorKind::NotFound
                && fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
            {
                use std::os::unix::fs::OpenOptionsExt;
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(crate::fsutil::FILE_MODE)
                    .open(dir.join("lock"))
            } else {
                Err(e)
            }
        })
        .map_err(LockFailure::Io)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(LockFailure::Busy),
        Err(TryLockError::Error(e)) => Err(LockFailure::Io(e)),
    }
}

fn remove_tree(path: &Path) -> Result<(), SessionError> {
    match fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SessionError::io("cannot remove", path, e)),
    }
}

/// Bytes of the regular files under `path` (symlinks are not followed).
fn tree_bytes(path: &Path) -> u64 {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return if meta.is_file() { meta.len() } else { 0 };
    }
    fs::read_dir(path).map_or(0, |entries| {
        entries.flatten().map(|e| tree_bytes(&e.path())).sum()
    })
}
