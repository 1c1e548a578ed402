//! The restore's file-system steps, each through the workspace's directory descriptors
//! ([`Workspace::locate`]: every parent a real directory, no symlink followed, nothing opened by
//! absolute name), and the checks that tell what a path holds.

use super::desired::{Before, Item};
use crate::checkpoint::manifest::{Node, Stamp};
use crate::files::workspace::Workspace;
use crate::protocol::Digest;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, StatVfsMountFlags};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;

/// What `lstat` says about a path: its type and permission bits, `None` when absent.
pub(crate) fn lstat(ws: &Workspace, path: &str) -> io::Result<Option<(FileType, u32, u64)>> {
    let at = match ws.locate(path) {
        Ok(at) => at,
        Err(e) if missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    match rustix::fs::statat(at.dir(), at.name(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some((
            FileType::from_raw_mode(st.st_mode),
            st.st_mode & 0o7777,
            u64::try_from(st.st_size).unwrap_or(0),
        ))),
        Err(e) => {
            let e = io::Error::from(e);
            if missing(&e) { Ok(None) } else { Err(e) }
        }
    }
}

/// The size, modification time and inode of a path (symlinks unfollowed): what a write
/// through a descriptor opened earlier changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Times {
    size: i64,
    mtime: (i64, u64),
    ino: u64,
}

/// [`Times`] of `path`, `None` when absent.
pub(crate) fn times(ws: &Workspace, path: &str) -> io::Result<Option<Times>> {
    let at = match ws.locate(path) {
        Ok(at) => at,
        Err(e) if missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    match rustix::fs::statat(at.dir(), at.name(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(Times {
            size: st.st_size,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            ino: st.st_ino,
        })),
        Err(e) => {
            let e = io::Error::from(e);
            if missing(&e) { Ok(None) } else { Err(e) }
        }
    }
}

/// True for "no such name": missing, or a parent that is not a directory.
pub(crate) fn missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Whether `path` holds exactly `item`: a regular file of that size, mode and digest, a real
/// directory (its mode is set last, so it is not compared), or a symlink to that target.
pub(crate) fn holds(ws: &Workspace, path: &str, item: &Item) -> io::Result<bool> {
    let Some((kind, mode, size)) = lstat(ws, path)? else {
        return Ok(false);
    };
    Ok(match &item.node {
        Node::File { digest, size: want } => {
            kind == FileType::RegularFile
                && mode == item.mode
                && size == *want
                && hash(ws, path, *want)? == Some(*digest)
        }
        Node::Dir => kind == FileType::Directory,
        Node::Symlink { target } => {
            kind == FileType::Symlink && ws.locate(path)?.read_link()?.as_bytes() == target
        }
    })
}

/// Whether `path` still is what `before` says: its kept content, or for an entry recorded
/// without content the same non-directory inode with the same mode, size and times.
/// `renamed` leaves the change time out, which the journal's own rename has moved.
pub(crate) fn still(
    ws: &Workspace,
    path: &str,
    before: &Before,
    renamed: bool,
) -> io::Result<bool> {
    match before {
        Before::Kept(item) => holds(ws, path, item),
        Before::Unkept { mode, stamp } => {
            let at = match ws.locate(path) {
                Ok(at) => at,
                Err(e) if missing(&e) => return Ok(false),
                Err(e) => return Err(e),
            };
            let st = match rustix::fs::statat(at.dir(), at.name(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(e) => {
                    let e = io::Error::from(e);
                    return if missing(&e) { Ok(false) } else { Err(e) };
                }
            };
            let now = Stamp {
                size: u64::try_from(st.st_size).unwrap_or(0),
                mtime_ns: i128::from(st.st_mtime) * 1_000_000_000 + i128::from(st.st_mtime_nsec),
                ctime_ns: i128::from(st.st_ctime) * 1_000_000_000 + i128::from(st.st_ctime_nsec),
                ino: st.st_ino,
                dev: st.st_dev,
            };
            // A directory recorded without content may hold what was never captured: it is
            // never moved away (its contents would go with the journal).
            Ok(FileType::from_raw_mode(st.st_mode) != FileType::Directory
                && st.st_mode & 0o7777 == *mode
                && now.size == stamp.size
                && now.mtime_ns == stamp.mtime_ns
                && now.ino == stamp.ino
                && now.dev == stamp.dev
                && (renamed || now.ctime_ns == stamp.ctime_ns))
        }
    }
}

/// The digest of a regular file of at most `limit` bytes (`None` when it is longer).
fn hash(ws: &Workspace, path: &str, limit: u64) -> io::Result<Option<Digest>> {
    let file = ws.locate(path)?.open_read()?;
    let mut hasher = blake3::Hasher::new();
    let mut reader = file.take(limit.saturating_add(1));
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((total <= limit).then(|| hasher.finalize().into()))
}

/// Whether the directory `path` has no entries.
pub(crate) fn is_empty_dir(ws: &Workspace, path: &str) -> io::Result<bool> {
    let fd = ws.open_dir(path)?;
    let mut dir = rustix::fs::Dir::read_from(&fd).map_err(io::Error::from)?;
    for entry in dir.by_ref() {
        let entry = entry.map_err(io::Error::from)?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Renames `from` to `to`, failing with `AlreadyExists` instead of replacing anything.
pub(crate) fn rename_new(ws: &Workspace, from: &str, to: &str) -> io::Result<()> {
    let (a, b) = (ws.locate(from)?, ws.locate(to)?);
    rustix::fs::renameat_with(a.dir(), a.name(), b.dir(), b.name(), RenameFlags::NOREPLACE)
        .map_err(io::Error::from)
}

/// Renames `from` over `to` (a file or an empty directory there is replaced).
pub(crate) fn rename_over(ws: &Workspace, from: &str, to: &str) -> io::Result<()> {
    let (a, b) = (ws.locate(from)?, ws.locate(to)?);
    rustix::fs::renameat(a.dir(), a.name(), b.dir(), b.name()).map_err(io::Error::from)
}

/// Removes the empty directory `path` (a non-empty one fails: nothing in it is lost).
pub(crate) fn rmdir(ws: &Workspace, path: &str) -> io::Result<()> {
    let at = ws.locate(path)?;
    rustix::fs::unlinkat(at.dir(), at.name(), AtFlags::REMOVEDIR).map_err(io::Error::from)
}

/// Creates the directory `path` (0700 before the umask; the restore sets final modes last).
pub(crate) fn mkdir(ws: &Workspace, path: &str) -> io::Result<()> {
    let at = ws.locate(path)?;
    rustix::fs::mkdirat(at.dir(), at.name(), Mode::from_raw_mode(0o700)).map_err(io::Error::from)
}

/// Sets the mode of the real directory `path` (opened without following a symlink), durably.
pub(crate) fn chmod_dir(ws: &Workspace, path: &str, mode: u32) -> io::Result<()> {
    let dir = File::from(ws.open_dir(path)?);
    rustix::fs::fchmod(&dir, Mode::from_raw_mode(mode)).map_err(io::Error::from)?;
    crate::txn::fsx::sync(&dir)
}

/// Creates the symlink `path` pointing at the raw bytes `target`.
pub(crate) fn symlink(ws: &Workspace, target: &[u8], path: &str) -> io::Result<()> {
    let at = ws.locate(path)?;
    rustix::fs::symlinkat(OsStr::from_bytes(target), at.dir(), at.name()).map_err(io::Error::from)
}

/// Writes `bytes` to the new file `path` with exactly `mode`, durably (its directory entry is
/// the caller's to flush).
pub(crate) fn write_new(ws: &Workspace, path: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
    let file = write_new_unsynced(ws, path, bytes, mode)?;
    crate::txn::fsx::sync(&file)
}

/// Threads that fsync staged files together: concurrent fsyncs share journal commits
/// (ext4's jbd2 batches them), where one after another each waits for its own.
const SYNC_THREADS: usize = 8;

/// Fsyncs `files` on up to [`SYNC_THREADS`] threads; the first failure is returned.
pub(crate) fn sync_all(files: &[File]) -> io::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let per = files.len().div_ceil(SYNC_THREADS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(per)
            .map(|chunk| scope.spawn(move || chunk.iter().try_for_each(crate::txn::fsx::sync)))
            .collect();
        // The scope joins every thread whichever result comes first.
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(io::Error::other("an fsync thread panicked")))
        })
    })
}

/// [`write_new`] without the fsync: the open file is returned for [`sync_all`].
pub(crate) fn write_new_unsynced(
    ws: &Workspace,
    path: &str,
    bytes: &[u8],
    mode: u32,
) -> io::Result<File> {
    let at = ws.locate(path)?;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(at.dir(), at.name(), flags, Mode::from_raw_mode(0o600))
        .map_err(io::Error::from)?;
    rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(io::Error::from)?;
    let mut file = File::from(fd);
    file.write_all(bytes)?;
    Ok(file)
}

/// Directories whose entries changed and are not durable yet. Flushed at the barriers the
/// recovery inference needs (before and after a directory moves, at the end of each pass):
/// one fsync per directory touched, not per entry, and never a `syncfs`, whose cost grows
/// with whatever else is dirty on a shared file system.
#[derive(Debug, Default)]
pub(crate) struct Dirty(BTreeSet<String>);

impl Dirty {
    /// Notes that the directory holding `path` changed.
    pub(crate) fn touch(&mut self, path: &str) {
        self.0
            .insert(path.rsplit_once('/').map_or(".", |(d, _)| d).to_owned());
    }

    /// Fsyncs every noted directory. One that is gone has moved as a whole after its own
    /// entries were flushed (a directory moves only after a flush), so there is nothing left
    /// to make durable under that name.
    pub(crate) fn flush(&mut self, ws: &Workspace) -> io::Result<()> {
        for dir in std::mem::take(&mut self.0) {
            match crate::txn::fsx::sync_dir(ws, &dir) {
                Ok(()) => {}
                Err(e) if missing(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Whether the directory `path` is on a file system mounted read-only.
pub(crate) fn read_only(ws: &Workspace, path: &str) -> io::Result<bool> {
    let fd = ws.open_dir(path)?;
    let vfs = rustix::fs::fstatvfs(&fd).map_err(io::Error::from)?;
    Ok(vfs.f_flag.contains(StatVfsMountFlags::RDONLY))
}

/// The device of the real directory `path`.
pub(crate) fn device(ws: &Workspace, path: &str) -> io::Result<u64> {
    let fd = ws.open_dir(path)?;
    let st = rustix::fs::fstat(&fd).map_err(io::Error::from)?;
    Ok(st.st_dev)
}

/// Removes the directory tree `path` (a missing one is fine), symlinks inside unfollowed.
pub(crate) fn remove_tree(ws: &Workspace, path: &str) -> io::Result<()> {
    crate::txn::fsx::remove_tree(ws, path)
}
