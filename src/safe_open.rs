//! Opening configuration and instruction files without following links.
//!
//! Automatic loading must not be redirected by a symlink or a hard link that someone else planted,
//! so every lookup is an `openat` chain with `O_NOFOLLOW`, and the checks (regular file, link
//! count, size) run on the opened descriptor, never on a second lookup of the path.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{OFlag, open, openat};
use nix::sys::stat::{Mode, fstat};

/// `O_PATH` lets us walk directories we may search but not list (a 0711 home, say).
#[cfg(any(target_os = "linux", target_os = "android"))]
const DIR_FLAGS: OFlag = OFlag::O_PATH
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const DIR_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);

/// An open directory, used as the anchor of further no-follow lookups.
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Why a file found by automatic loading was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The name is a symbolic link.
    Symlink,
    /// The file has more than one hard link.
    HardLinked(u64),
    /// Not a regular file (directory, FIFO, device…).
    NotRegular,
    /// Larger than the caller's limit.
    TooLarge { size: u64, limit: u64 },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Symlink => {
                f.write_str("it is a symbolic link, which automatic loading never follows")
            }
            Refusal::HardLinked(n) => write!(
                f,
                "it has {n} hard links; automatic loading only reads files with a single link"
            ),
            Refusal::NotRegular => f.write_str("it is not a regular file"),
            Refusal::TooLarge { size, limit } => {
                write!(
                    f,
                    "it is {size} bytes, more than the limit of {limit} bytes"
                )
            }
        }
    }
}

/// The outcome of looking a file up.
#[derive(Debug)]
pub(crate) enum Lookup<T> {
    /// Nothing by that name.
    Missing,
    /// Something is there but must not be used.
    Refused(Refusal),
    /// Found and acceptable.
    Found(T),
}

impl Dir {
    /// Opens `path` as a directory, following symlinks: the caller chose this path explicitly.
    pub(crate) fn open_trusted(path: &Path) -> std::io::Result<Lookup<Dir>> {
        match open(path, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Lookup::Found(Dir {
                fd,
                path: path.to_path_buf(),
            })),
            Err(Errno::ENOENT) => Ok(Lookup::Missing),
            Err(Errno::ENOTDIR) => Ok(Lookup::Refused(Refusal::NotRegular)),
            Err(e) => Err(e.into()),
        }
    }

    /// The path this directory was reached by.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether both handles name the same directory (same device and inode).
    pub(crate) fn same_as(&self, other: &Dir) -> std::io::Result<bool> {
        let a = fstat(&self.fd)?;
        let b = fstat(&other.fd)?;
        Ok(a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    }

    /// Opens the child directory `name` without following a symlink.
    pub(crate) fn child_dir(
        &self,
        name: &(impl AsRef<OsStr> + ?Sized),
    ) -> std::io::Result<Lookup<Dir>> {
        let name = name.as_ref();
        let path = self.path.join(name);
        match openat(&self.fd, name, DIR_FLAGS | OFlag::O_NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok(Lookup::Found(Dir { fd, path })),
            Err(Errno::ENOENT) => Ok(Lookup::Missing),
            // With O_NOFOLLOW a symlink yields ELOOP or ENOTDIR; tell the two cases apart so the
            // message says what is actually there.
            Err(Errno::ELOOP | Errno::ENOTDIR) => Ok(Lookup::Refused(classify(&path))),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads the regular file `name` (at most `limit` bytes) without following links.
    pub(crate) fn read_file(
        &self,
        name: &(impl AsRef<OsStr> + ?Sized),
        limit: u64,
    ) -> std::io::Result<Lookup<Vec<u8>>> {
        let name = name.as_ref();
        // O_NONBLOCK keeps a planted FIFO from hanging the open; it changes nothing for regular files.
        let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let fd = match openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => return Ok(Lookup::Missing),
            Err(Errno::ELOOP) => return Ok(Lookup::Refused(Refusal::Symlink)),
            Err(Errno::ENXIO) => return Ok(Lookup::Refused(Refusal::NotRegular)),
            Err(e) => return Err(e.into()),
        };
        let mut file = File::from(fd);
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(Lookup::Refused(Refusal::NotRegular));
        }
        if meta.nlink() > 1 {
            return Ok(Lookup::Refused(Refusal::HardLinked(meta.nlink())));
        }
        if meta.len() > limit {
            return Ok(Lookup::Refused(Refusal::TooLarge {
                size: meta.len(),
                limit,
            }));
        }
        let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // The file may grow between fstat and read; the bound holds regardless.
        file.by_ref().take(limit + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > limit {
            return Ok(Lookup::Refused(Refusal::TooLarge {
                size: buf.len() as u64,
                limit,
            }));
        }
        Ok(Lookup::Found(buf))
    }
}

fn classify(path: &Path) -> Refusal {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Refusal::Symlink,
        _ => Refusal::NotRegular,
    }
}
