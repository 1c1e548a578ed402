//! The store directory, held by descriptor: opened once without following a final symlink,
//! checked private (owner-only, mode without group/other bits), and every file below it is
//! opened, written, renamed and removed relative to that descriptor.

use std::fs::{DirBuilder, File};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::{OFlag, RenameFlags, open, openat, renameat, renameat2};
use nix::sys::stat::Mode;
use nix::unistd::{Uid, UnlinkatFlags, unlinkat};

use super::error::AuthError;

/// Largest store file read (tokens are a few KiB).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Distinguishes temp files of one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An open, private store directory.
#[derive(Debug)]
pub struct AuthDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl AuthDir {
    /// Opens the existing store at `path`, refusing a symlink, a non-directory, and a directory
    /// another user owns or group/others can reach.
    pub fn open(path: &Path) -> Result<AuthDir, AuthError> {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = match open(path, flags, Mode::empty()) {
            Ok(fd) => fd,
            // With O_DIRECTORY a final symlink fails as ENOTDIR: lstat only words the error,
            // the open already refused it.
            Err(Errno::ELOOP | Errno::ENOTDIR) => {
                let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
                return Err(if link {
                    AuthError::Symlink {
                        path: path.to_path_buf(),
                    }
                } else {
                    AuthError::WrongType {
                        path: path.to_path_buf(),
                        expected: "directory",
                    }
                });
            }
            Err(e) => return Err(io_err("open the directory", path, e.into())),
        };
        let dir = AuthDir {
            fd,
            path: path.to_path_buf(),
        };
        let meta = File::from(dir.fd.try_clone().map_err(|e| io_err("inspect", path, e))?)
            .metadata()
            .map_err(|e| io_err("inspect", path, e))?;
        check_private(path, meta.mode(), meta.uid(), "700")?;
        Ok(dir)
    }

    /// Opens the store at `path`, creating it (and missing parents) with mode 0700 first.
    pub fn create(path: &Path) -> Result<AuthDir, AuthError> {
        match DirBuilder::new().recursive(true).mode(0o700).create(path) {
            Ok(()) => Self::open(path),
            Err(e) => Err(io_err("create the directory", path, e)),
        }
    }

    /// The directory's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The bytes of the private file `name`, `None` when it does not exist. A symlink, a
    /// non-regular file, another user's file or one group/others can read is refused.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, AuthError> {
        let Some(file) = self.open_private(name, OFlag::O_RDONLY)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_err("read", &self.file_path(name), e))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(AuthError::Damaged {
                path: self.file_path(name),
                reason: format!("larger than {MAX_FILE_BYTES} bytes"),
            });
        }
        Ok(Some(bytes))
    }

    /// Opens the existing private file `name` with `access` (`O_RDONLY` or `O_RDWR`), checked
    /// like [`Self::read`]; `None` when it does not exist.
    pub(crate) fn open_private(
        &self,
        name: &str,
        access: OFlag,
    ) -> Result<Option<File>, AuthError> {
        let path = self.file_path(name);
        let flags = access | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
        let fd = match openat(self.fd.as_fd(), name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => return Ok(None),
            Err(Errno::ELOOP) => return Err(AuthError::Symlink { path }),
            Err(e) => return Err(io_err("open", &path, e.into())),
        };
        let file = File::from(fd);
        let meta = file.metadata().map_err(|e| io_err("inspect", &path, e))?;
        if !meta.is_file() {
            return Err(AuthError::WrongType {
                path,
                expected: "regular file",
            });
        }
        check_private(&path, meta.mode(), meta.uid(), "600")?;
        Ok(Some(file))
    }

    /// Opens the private file `name` for reading and writing, creating it (mode 0600) when
    /// missing.
    pub(crate) fn open_or_create(&self, name: &str) -> Result<File, AuthError> {
        let path = self.file_path(name);
        let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        match openat(
            self.fd.as_fd(),
            name,
            flags,
            Mode::from_bits_truncate(0o600),
        ) {
            Ok(fd) => drop(File::from(fd)),
            Err(Errno::ELOOP) => return Err(AuthError::Symlink { path }),
            Err(e) => return Err(io_err("create", &path, e.into())),
        }
        self.open_private(name, OFlag::O_RDWR)?
            .ok_or_else(|| io_err("open", &path, io::ErrorKind::NotFound.into()))
    }

    /// Replaces the file `name` with `bytes` atomically: a new 0600 temp file in the store,
    /// written and fsynced, renamed over `name`, then the directory fsynced. A crash leaves
    /// the old file or the new one, never a mix.
    pub fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), AuthError> {
        let path = self.file_path(name);
        let temp = self.write_temp(name, bytes)?;
        if let Err(e) = renameat(self.fd.as_fd(), temp.as_str(), self.fd.as_fd(), name) {
            let _ = unlinkat(self.fd.as_fd(), temp.as_str(), UnlinkatFlags::NoRemoveDir);
            return Err(io_err("replace", &path, e.into()));
        }
        self.sync()
    }

    /// Publishes `bytes` as the new file `name` unless one exists (then that one stays):
    /// written to a temp file, fsynced, renamed without replacing, directory fsynced.
    pub fn publish_new(&self, name: &str, bytes: &[u8]) -> Result<(), AuthError> {
        let path = self.file_path(name);
        let temp = self.write_temp(name, bytes)?;
        let placed = renameat2(
            self.fd.as_fd(),
            temp.as_str(),
            self.fd.as_fd(),
            name,
            RenameFlags::RENAME_NOREPLACE,
        );
        let _ = unlinkat(self.fd.as_fd(), temp.as_str(), UnlinkatFlags::NoRemoveDir);
        match placed {
            Ok(()) | Err(Errno::EEXIST) => self.sync(),
            Err(e) => Err(io_err("publish", &path, e.into())),
        }
    }

    /// A new fsynced 0600 temp file holding `bytes`, named for `name`; its name is returned.
    fn write_temp(&self, name: &str, bytes: &[u8]) -> Result<String, AuthError> {
        let path = self.file_path(name);
        let temp = format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = openat(
            self.fd.as_fd(),
            temp.as_str(),
            flags,
            Mode::from_bits_truncate(0o600),
        )
        .map_err(|e| io_err("create a temp file for", &path, e.into()))?;
        let mut file = File::from(fd);
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| io_err("write", &path, e));
        if let Err(e) = written {
            let _ = unlinkat(self.fd.as_fd(), temp.as_str(), UnlinkatFlags::NoRemoveDir);
            return Err(e);
        }
        Ok(temp)
    }

    /// Removes the file `name` (nothing to do when it is missing) and makes that durable.
    pub fn remove(&self, name: &str) -> Result<(), AuthError> {
        match unlinkat(self.fd.as_fd(), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => self.sync(),
            Err(e) => Err(io_err("remove", &self.file_path(name), e.into())),
        }
    }

    fn sync(&self) -> Result<(), AuthError> {
        nix::unistd::fsync(self.fd.as_fd()).map_err(|e| io_err("sync", &self.path, e.into()))
    }
}

/// Refuses `mode` with any group/other bit, or an owner other than this user.
fn check_private(path: &Path, mode: u32, owner: u32, fix: &'static str) -> Result<(), AuthError> {
    if mode & 0o077 != 0 || owner != Uid::effective().as_raw() {
        return Err(AuthError::Insecure {
            path: path.to_path_buf(),
            mode: mode & 0o7777,
            owner,
            fix,
        });
    }
    Ok(())
}

fn io_err(action: &'static str, path: &Path, source: io::Error) -> AuthError {
    AuthError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}
