//! The `--continue` index: one pointer file per (cwd, profile) naming the newest session, so the
//! lookup reads one small file instead of scanning every session.

use std::fs::{self, File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Result, SessionError};
use crate::fsutil::{FILE_MODE, create_private_dir, write_atomic};
use crate::home::SessionStore;
use crate::ids::{Profile, SessionId};
use crate::meta::{META_FILE, SessionMeta};

/// One pointer: the newest session of a cwd and profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// The session ID.
    pub id: SessionId,
    /// Its directory.
    pub dir: PathBuf,
    /// The cwd it was created in (guards against hash collisions).
    pub cwd: PathBuf,
}

fn pointer_path(home: &SessionStore, cwd: &Path, profile: Profile) -> PathBuf {
    let hash = blake3::hash(cwd.as_os_str().as_bytes()).to_hex();
    home.index_dir()
        .join(format!("{}-{}", profile.as_str(), &hash[..32]))
}

fn lock_index(home: &SessionStore) -> Result<File> {
    let dir = home.index_dir();
    create_private_dir(&dir)?;
    let path = dir.join(".lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(&path)
        .map_err(|e| SessionError::io("cannot open index lock", &path, e))?;
    file.lock()
        .map_err(|e| SessionError::io("cannot lock index", &path, e))?;
    Ok(file)
}

fn read_pointer(path: &Path) -> Option<IndexEntry> {
    let bytes = fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Makes `entry` the newest session of its cwd and profile unless a newer one is already indexed.
pub fn record(home: &SessionStore, profile: Profile, entry: &IndexEntry) -> Result<()> {
    let _lock = lock_index(home)?;
    let path = pointer_path(home, &entry.cwd, profile);
    if let Some(cur) = read_pointer(&path)
        && cur.cwd == entry.cwd
        && cur.id > entry.id
        && cur.dir.join(META_FILE).exists()
    {
        return Ok(());
    }
    let json = serde_json::to_vec(entry).map_err(|e| {
        SessionError::io("cannot encode index entry", &path, std::io::Error::other(e))
    })?;
    write_atomic(&path, &json)
}

/// The newest session of `cwd` and `profile`: one pointer read; falls back to scanning the
/// session metadata only when the pointer is missing or stale (and then repairs it).
pub fn latest(home: &SessionStore, cwd: &Path, profile: Profile) -> Result<Option<IndexEntry>> {
    let path = pointer_path(home, cwd, profile);
    if let Some(entry) = read_pointer(&path)
        && entry.cwd == cwd
        && entry.dir.join(META_FILE).exists()
    {
        return Ok(Some(entry));
    }
    let found = scan_sessions(home, cwd, profile)?;
    if let Some(entry) = &found {
        record(home, profile, entry)?;
    }
    Ok(found)
}

fn scan_sessions(home: &SessionStore, cwd: &Path, profile: Profile) -> Result<Option<IndexEntry>> {
    let dir = home.sessions_dir();
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SessionError::io("cannot list", &dir, e)),
    };
    let mut best: Option<IndexEntry> = None;
    for entry in entries.flatten() {
        let Some(id) = entry.file_name().to_str().and_then(SessionId::parse) else {
            continue;
        };
        if best.as_ref().is_some_and(|b| b.id >= id) {
            continue;
        }
        let Ok(meta) = SessionMeta::read(&entry.path()) else {
            continue;
        };
        if meta.cwd == cwd && meta.profile == profile {
            best = Some(IndexEntry {
                id,
                dir: entry.path(),
                cwd: meta.cwd,
            });
        }
    }
    Ok(best)
}
