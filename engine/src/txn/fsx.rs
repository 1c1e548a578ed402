//! Small filesystem helpers of the journal: timed fsyncs, new-file writes, `lstat` probes and
//! bounded, interruptible hashing.

use super::{Halt, Stop, stats};
use crate::protocol::Digest;
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::Instant;

/// Bytes read per hashing step; stop conditions are checked between steps.
const CHUNK: usize = 64 << 10;

/// `sync_all` on an open file, timed for [`stats`].
pub(crate) fn sync(file: &File) -> io::Result<()> {
    let started = Instant::now();
    let result = file.sync_all();
    stats::record(started.elapsed());
    result
}

/// Makes a directory's entries durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    sync(&File::open(dir)?)
}

/// The directory holding `path` (a journal or workspace file always has one).
pub(crate) fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Writes `bytes` to a new file (never replacing one), sets `mode` exactly, and fsyncs it.
pub(crate) fn write_new(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    if let Some(mode) = mode {
        options.mode(mode);
    }
    let mut file = options.open(path)?;
    if let Some(mode) = mode {
        // The open mode is filtered by the umask; permissions must match exactly.
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    file.write_all(bytes)?;
    sync(&file)
}

/// What `lstat` says about a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    /// A regular file (not a symlink, directory or other).
    pub file: bool,
    /// A real directory (not a symlink to one).
    pub dir: bool,
    /// Size in bytes.
    pub size: u64,
    /// Permission bits.
    pub mode: u32,
    /// Native identity (device, inode).
    pub id: (u64, u64),
}

/// `lstat` of `path`; `None` when the name (or a parent) does not exist.
pub(crate) fn probe(path: &Path) -> io::Result<Option<Meta>> {
    match fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(Meta {
            file: m.file_type().is_file(),
            dir: m.file_type().is_dir(),
            size: m.len(),
            mode: m.mode() & 0o7777,
            id: (m.dev(), m.ino()),
        })),
        Err(e) if is_missing(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// True for errors that mean "no such name": missing, or a parent that is not a directory.
pub(crate) fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// A hashing failure.
#[derive(Debug)]
pub(crate) enum HashError {
    /// Stopped between chunks.
    Halt(Halt),
    /// The file grew past `limit`.
    TooLarge,
    /// Reading failed.
    Io(io::Error),
}

/// Reads at most `limit` bytes of a regular file (without following a final symlink) into
/// memory, checking `stop` between chunks; returns the bytes and their digest.
pub(crate) fn read_hashed(
    path: &Path,
    limit: u64,
    stop: Option<&Stop>,
) -> Result<(Vec<u8>, Digest), HashError> {
    let mut bytes = Vec::new();
    let (digest, _) = hash_into(path, limit, stop, Some(&mut bytes))?;
    Ok((bytes, digest))
}

/// Digest and size of a file of at most `limit` bytes, read in chunks.
pub(crate) fn hash_file(
    path: &Path,
    limit: u64,
    stop: Option<&Stop>,
) -> Result<(Digest, u64), HashError> {
    hash_into(path, limit, stop, None)
}

fn hash_into(
    path: &Path,
    limit: u64,
    stop: Option<&Stop>,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<(Digest, u64), HashError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
        .map_err(HashError::Io)?;
    let mut reader = file.take(limit.saturating_add(1));
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; CHUNK];
    let mut total = 0u64;
    loop {
        if let Some(stop) = stop {
            stop.check().map_err(HashError::Halt)?;
        }
        let n = reader.read(&mut buf).map_err(HashError::Io)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > limit {
            return Err(HashError::TooLarge);
        }
        hasher.update(&buf[..n]);
        if let Some(keep) = keep.as_deref_mut() {
            keep.extend_from_slice(&buf[..n]);
        }
    }
    Ok((hasher.finalize().into(), total))
}
