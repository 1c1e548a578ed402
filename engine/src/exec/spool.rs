//! Session-private spool directories for captures that outgrow memory.
//!
//! A root `ash-store-v1-<unique>` (mode 0700) holds a versioned owner marker, a lock file that
//! stays locked for the root's lifetime, and spool files (mode 0600). The root lives as long as
//! its handle and every spool file made in it. Roots left behind by dead processes are reclaimed
//! only when provably inactive: idle past a threshold, lock free, and every entry recognised.

use crate::store::SpoolFile;
use std::fs::{self, DirBuilder, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Name prefix of every spool root.
pub const ROOT_PREFIX: &str = "ash-store-v1-";
/// Roots idle for longer than this may be reclaimed (docs/contract/ash-protocol.md §5).
pub const DEFAULT_IDLE: Duration = Duration::from_secs(3600);

const OWNER_FILE: &str = "OWNER";
const LOCK_FILE: &str = "LOCK";
const OWNER_MAGIC: &[u8] = b"ash-store-owner-v1\n";
const SPOOL_PREFIX: &str = "spool-";
// Larger markers are not ours; the bound keeps reclaim from reading arbitrary files.
const MAX_OWNER_BYTES: u64 = 4096;

/// A live spool root; clones share it, and it is removed when the last clone and the last
/// spool file made in it are gone.
#[derive(Debug, Clone)]
pub struct SpoolRoot {
    inner: Arc<RootInner>,
}

#[derive(Debug)]
struct RootInner {
    dir: PathBuf,
    // Held locked until drop: tells reclaimers in other processes that the root is in use.
    _lock: File,
    next: AtomicU64,
}

/// What a reclaim pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReclaimReport {
    /// Roots deleted.
    pub reclaimed: Vec<PathBuf>,
    /// Roots seen but left alone (live, recent, unrecognised or not ours).
    pub kept: Vec<PathBuf>,
}

impl SpoolRoot {
    /// Creates a root under the system temporary directory, reclaiming stale ones there.
    pub fn in_temp_dir() -> io::Result<SpoolRoot> {
        SpoolRoot::create(&std::env::temp_dir(), DEFAULT_IDLE).map(|(root, _)| root)
    }

    /// Creates a root under `base`, then reclaims roots there that are idle longer than `idle`.
    pub fn create(base: &Path, idle: Duration) -> io::Result<(SpoolRoot, ReclaimReport)> {
        let root = SpoolRoot::make(base)?;
        let uid = fs::symlink_metadata(root.dir())?.uid();
        let report = reclaim(base, idle, uid, Some(root.dir()));
        Ok((root, report))
    }

    fn make(base: &Path) -> io::Result<SpoolRoot> {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut attempt = 0;
        let dir = loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let name = format!("{ROOT_PREFIX}{}-{:x}-{serial}", std::process::id(), nanos);
            let dir = base.join(name);
            match DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                Err(e) => return Err(e),
            }
        };
        match RootInner::populate(dir.clone()) {
            Ok(inner) => Ok(SpoolRoot {
                inner: Arc::new(inner),
            }),
            Err(e) => {
                // Never leave a half-made root behind: it would look unrecognised forever.
                let _ = fs::remove_file(dir.join(LOCK_FILE));
                let _ = fs::remove_file(dir.join(OWNER_FILE));
                let _ = fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// The root directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Creates a new, empty spool file (mode 0600) that is deleted unless finished.
    pub fn create_file(&self) -> io::Result<PartialSpool> {
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let path = self.inner.dir.join(format!("{SPOOL_PREFIX}{n}"));
        let file = private_file().write(true).create_new(true).open(&path)?;
        Ok(PartialSpool {
            path,
            file,
            root: self.clone(),
            len: 0,
            armed: true,
        })
    }
}

impl RootInner {
    fn populate(dir: PathBuf) -> io::Result<RootInner> {
        // The mode given to mkdir is filtered by the umask; make sure it is exactly 0700.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
        let mut owner = private_file()
            .write(true)
            .create_new(true)
            .open(dir.join(OWNER_FILE))?;
        owner.write_all(OWNER_MAGIC)?;
        owner.write_all(format!("pid {}\n", std::process::id()).as_bytes())?;
        let lock = private_file()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.join(LOCK_FILE))?;
        lock.try_lock().map_err(|e| match e {
            TryLockError::Error(e) => e,
            TryLockError::WouldBlock => io::Error::other("fresh spool lock is already held"),
        })?;
        Ok(RootInner {
            dir,
            _lock: lock,
            next: AtomicU64::new(0),
        })
    }
}

impl Drop for RootInner {
    fn drop(&mut self) {
        // Every spool file holds the root, so normally only the marker and lock remain; if
        // anything else is there, leave the root intact (and recognisable) rather than guess.
        let only_ours = fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries.into_iter().all(|e| {
                e.is_ok_and(|e| matches!(e.file_name().to_str(), Some(OWNER_FILE | LOCK_FILE)))
            })
        });
        if only_ours {
            let _ = fs::remove_file(self.dir.join(OWNER_FILE));
            let _ = fs::remove_file(self.dir.join(LOCK_FILE));
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// A spool file being written; deleted on drop unless `finish`ed.
#[derive(Debug)]
pub struct PartialSpool {
    path: PathBuf,
    file: File,
    root: SpoolRoot,
    len: u64,
    armed: bool,
}

impl PartialSpool {
    /// Appends bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Overwrites bytes already written, from `offset` on (a header whose room was kept).
    pub fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let end = offset.saturating_add(bytes.len() as u64);
        if end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a write at {offset}..{end} overruns the {} bytes written",
                    self.len
                ),
            ));
        }
        std::os::unix::fs::FileExt::write_all_at(&self.file, bytes, offset)
    }

    /// The complete file, which now keeps the root alive until it is dropped and deleted.
    pub fn finish(self) -> SpoolFile {
        self.finish_from(0)
    }

    /// Like [`PartialSpool::finish`] for a value that is the file's bytes from `start` on.
    pub fn finish_from(mut self, start: u64) -> SpoolFile {
        self.armed = false;
        let owner: Arc<dyn std::any::Any + Send + Sync> = self.root.inner.clone();
        let start = start.min(self.len);
        SpoolFile::adopt_from(
            std::mem::take(&mut self.path),
            start,
            self.len - start,
            owner,
        )
    }
}

impl Drop for PartialSpool {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn private_file() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC);
    options
}

/// Deletes roots under `base` owned by `uid` that are idle longer than `idle`, unlocked and made
/// only of entries we recognise; `skip` (our own root) is never considered.
pub fn reclaim(base: &Path, idle: Duration, uid: u32, skip: Option<&Path>) -> ReclaimReport {
    let mut report = ReclaimReport::default();
    let Ok(entries) = fs::read_dir(base) else {
        return report;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with(ROOT_PREFIX)) {
            continue;
        }
        let dir = entry.path();
        if skip == Some(dir.as_path()) {
            continue;
        }
        if try_reclaim(&dir, idle, uid) {
            report.reclaimed.push(dir);
        } else {
            report.kept.push(dir);
        }
    }
    report
}

fn try_reclaim(dir: &Path, idle: Duration, uid: u32) -> bool {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return false;
    };
    if !meta.is_dir() || meta.uid() != uid {
        return false;
    }
    let Some(spools) = recognised_entries(dir) else {
        return false;
    };
    if !idle_for(dir, &meta, &spools, idle) {
        return false;
    }
    let Ok(lock) = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(dir.join(LOCK_FILE))
    else {
        return false;
    };
    if lock.try_lock().is_err() {
        return false;
    }
    // Under the lock, look again: a root that changed meanwhile is no longer provably idle.
    let Some(spools) = recognised_entries(dir) else {
        return false;
    };
    for spool in &spools {
        if fs::remove_file(dir.join(spool)).is_err() {
            return false;
        }
    }
    let removed = fs::remove_file(dir.join(OWNER_FILE)).is_ok()
        && fs::remove_file(dir.join(LOCK_FILE)).is_ok()
        && fs::remove_dir(dir).is_ok();
    drop(lock);
    removed
}

/// The spool file names of a root whose every entry is ours (valid marker, lock, spool files,
/// all regular files); `None` when anything is missing or unfamiliar.
fn recognised_entries(dir: &Path) -> Option<Vec<String>> {
    let mut spools = Vec::new();
    let (mut owner, mut lock) = (false, false);
    for entry in fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().into_string().ok()?;
        if !entry.file_type().ok()?.is_file() {
            return None;
        }
        match name.as_str() {
            OWNER_FILE => owner = valid_marker(&entry.path()),
            LOCK_FILE => lock = true,
            _ if is_spool_name(&name) => spools.push(name),
            _ => return None,
        }
    }
    (owner && lock).then_some(spools)
}

fn is_spool_name(name: &str) -> bool {
    name.strip_prefix(SPOOL_PREFIX)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn valid_marker(path: &Path) -> bool {
    let mut content = Vec::new();
    let read = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
        .and_then(|f| f.take(MAX_OWNER_BYTES + 1).read_to_end(&mut content));
    read.is_ok() && content.len() as u64 <= MAX_OWNER_BYTES && content.starts_with(OWNER_MAGIC)
}

/// True when the root and every entry were last modified more than `idle` ago.
fn idle_for(dir: &Path, meta: &fs::Metadata, spools: &[String], idle: Duration) -> bool {
    let mut newest = match meta.modified() {
        Ok(t) => t,
        Err(_) => return false,
    };
    let names = spools
        .iter()
        .map(String::as_str)
        .chain([OWNER_FILE, LOCK_FILE]);
    for name in names {
        match fs::symlink_metadata(dir.join(name)).and_then(|m| m.modified()) {
            Ok(t) => newest = newest.max(t),
            Err(_) => return false,
        }
    }
    // A clock that went backwards gives an error here: not provably idle.
    SystemTime::now()
        .duration_since(newest)
        .is_ok_and(|age| age > idle)
}
