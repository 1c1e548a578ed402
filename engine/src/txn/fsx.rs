//! Small filesystem helpers of the journal: timed fsyncs, new-file writes, `lstat` probes,
//! links, renames and unlinks, and bounded, interruptible hashing.
//!
//! Every name is a logical path below the workspace root (workspace files and the `.ash`
//! journal alike) and is reached through real directories from the root's descriptor at each
//! use ([`Workspace::locate`]): no helper follows a symlink or opens anything by absolute path,
//! so a directory swapped for a link mid-transaction fails the step instead of redirecting it.

use super::{Halt, Stop, stats};
use crate::files::workspace::{At, Workspace, type_of};
use crate::protocol::Digest;
use nix::fcntl::AtFlags;
use nix::fcntl::{OFlag, RenameFlags, openat, renameat, renameat2};
use nix::sys::stat::{Mode, SFlag, mkdirat};
use nix::unistd::{UnlinkatFlags, linkat, unlinkat};
use std::fs::{File, Permissions};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
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

fn sync_fd(fd: BorrowedFd<'_>) -> io::Result<()> {
    let started = Instant::now();
    let result = nix::unistd::fsync(fd).map_err(io::Error::from);
    stats::record(started.elapsed());
    result
}

/// Makes the entries of the directory `dir` names durable.
pub(crate) fn sync_dir(ws: &Workspace, dir: &str) -> io::Result<()> {
    sync_fd(ws.open_dir(dir)?.as_fd())
}

/// Makes the directory entry of `path` durable (fsync of the directory holding it).
pub(crate) fn sync_parent(ws: &Workspace, path: &str) -> io::Result<()> {
    sync_fd(ws.locate(path)?.dir())
}

/// The logical directory holding `path` (`.` for a name directly below the root).
pub(crate) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

/// Writes `bytes` to a new file (never replacing one), sets `mode` exactly, and fsyncs it.
pub(crate) fn write_new(
    ws: &Workspace,
    path: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    let at = ws.locate(path)?;
    let mut file = create_new(&at, mode.unwrap_or(0o666))?;
    if let Some(mode) = mode {
        // The open mode is filtered by the umask; permissions must match exactly.
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    file.write_all(bytes)?;
    sync(&file)
}

/// Creates `at` exclusively for writing, never through a symlink.
pub(crate) fn create_new(at: &At, mode: u32) -> io::Result<File> {
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = openat(at.dir(), at.name(), flags, Mode::from_bits_truncate(mode))?;
    Ok(File::from(fd))
}

/// Creates the directory `path` with `mode` (filtered by the umask).
pub(crate) fn mkdir(ws: &Workspace, path: &str, mode: u32) -> io::Result<()> {
    let at = ws.locate(path)?;
    mkdirat(at.dir(), at.name(), Mode::from_bits_truncate(mode)).map_err(io::Error::from)
}

/// A new hard link `to` for the file `from`; an existing `to` fails with `AlreadyExists`.
pub(crate) fn link(ws: &Workspace, from: &str, to: &str) -> io::Result<()> {
    let (from, to) = (ws.locate(from)?, ws.locate(to)?);
    linkat(
        from.dir(),
        from.name(),
        to.dir(),
        to.name(),
        AtFlags::empty(),
    )
    .map_err(io::Error::from)
}

/// Renames `from` to `to`, replacing a file at `to`.
pub(crate) fn rename(ws: &Workspace, from: &str, to: &str) -> io::Result<()> {
    let (from, to) = (ws.locate(from)?, ws.locate(to)?);
    renameat(from.dir(), from.name(), to.dir(), to.name()).map_err(io::Error::from)
}

/// Renames `from` to `to`; an existing `to` fails with `AlreadyExists`.
pub(crate) fn rename_new(ws: &Workspace, from: &str, to: &str) -> io::Result<()> {
    let (from, to) = (ws.locate(from)?, ws.locate(to)?);
    renameat2(
        from.dir(),
        from.name(),
        to.dir(),
        to.name(),
        RenameFlags::RENAME_NOREPLACE,
    )
    .map_err(io::Error::from)
}

/// Removes the file (or symlink) `path`.
pub(crate) fn unlink(ws: &Workspace, path: &str) -> io::Result<()> {
    let at = ws.locate(path)?;
    unlinkat(at.dir(), at.name(), UnlinkatFlags::NoRemoveDir).map_err(io::Error::from)
}

/// Removes the directory `path` and everything below it, through descriptors only (a
/// symlink inside is removed, never followed). A missing `path` is not an error.
pub(crate) fn remove_tree(ws: &Workspace, path: &str) -> io::Result<()> {
    let at = ws.locate(path)?;
    match at.open_dir() {
        Ok(_) => {}
        Err(e) if is_missing(&e) => return Ok(()),
        Err(e) => return Err(e),
    }
    remove_tree_at(&at, 0)
}

/// Deepest tree [`remove_tree`] descends into; the journal's own trees are two levels deep.
const MAX_TREE_DEPTH: usize = 16;

fn remove_tree_at(at: &At, depth: usize) -> io::Result<()> {
    if depth > MAX_TREE_DEPTH {
        return Err(io::Error::other("directory tree too deep to remove"));
    }
    let fd = at.open_dir()?;
    let mut dir = nix::dir::Dir::from_fd(fd)?;
    let mut names = Vec::new();
    for entry in dir.iter() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(std::ffi::OsStr::from_bytes(name).to_os_string());
        }
    }
    let dir_fd = std::sync::Arc::new(nix::unistd::dup(dir.as_fd())?);
    drop(dir);
    for name in names {
        let child = At::new(std::sync::Arc::clone(&dir_fd), name);
        let is_dir = child.stat().is_ok_and(|s| type_of(&s) == SFlag::S_IFDIR);
        if is_dir {
            remove_tree_at(&child, depth + 1)?;
        } else {
            unlinkat(child.dir(), child.name(), UnlinkatFlags::NoRemoveDir)?;
        }
    }
    unlinkat(at.dir(), at.name(), UnlinkatFlags::RemoveDir).map_err(io::Error::from)
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
pub(crate) fn probe(ws: &Workspace, path: &str) -> io::Result<Option<Meta>> {
    match ws.locate(path).and_then(|at| at.stat()) {
        Ok(s) => Ok(Some(Meta {
            file: type_of(&s) == SFlag::S_IFREG,
            dir: type_of(&s) == SFlag::S_IFDIR,
            size: u64::try_from(s.st_size).unwrap_or(0),
            mode: s.st_mode & 0o7777,
            id: (s.st_dev, s.st_ino),
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

/// Reads at most `limit` bytes of a regular file (without following a symlink) into memory,
/// checking `stop` between chunks; returns the bytes and their digest.
pub(crate) fn read_hashed(
    ws: &Workspace,
    path: &str,
    limit: u64,
    stop: Option<&Stop>,
) -> Result<(Vec<u8>, Digest), HashError> {
    let mut bytes = Vec::new();
    let (digest, _) = hash_into(ws, path, limit, stop, Some(&mut bytes))?;
    Ok((bytes, digest))
}

/// Digest and size of a file of at most `limit` bytes, read in chunks.
pub(crate) fn hash_file(
    ws: &Workspace,
    path: &str,
    limit: u64,
    stop: Option<&Stop>,
) -> Result<(Digest, u64), HashError> {
    hash_into(ws, path, limit, stop, None)
}

fn hash_into(
    ws: &Workspace,
    path: &str,
    limit: u64,
    stop: Option<&Stop>,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<(Digest, u64), HashError> {
    let file = ws
        .locate(path)
        .and_then(|at| at.open_read())
        .map_err(HashError::Io)?;
    if !file.metadata().map_err(HashError::Io)?.is_file() {
        return Err(HashError::Io(io::Error::from(io::ErrorKind::InvalidInput)));
    }
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
