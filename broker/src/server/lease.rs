//! The lease file, reached only through a descriptor of its directory: the directory must be
//! a private one of ours (as the socket's is), the file is opened with `O_NOFOLLOW` relative
//! to that descriptor and must be a regular file of ours with one link, and it stays open, so
//! a symlink planted at the path later is never written through. On exit it is removed only
//! if the name still leads to the file the broker wrote.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use nix::fcntl::{AtFlags, OFlag, openat};
use nix::sys::stat::{FileStat, Mode, SFlag, fstatat};
use nix::unistd::{UnlinkatFlags, unlinkat};

use super::BrokerError;
use super::listen::private_dir;

/// The lease: the Unix time of the latest routed request.
pub(super) struct Lease {
    path: PathBuf,
    dir: File,
    name: OsString,
    /// Opened (created) at the first write and kept.
    file: Mutex<Option<File>>,
}

impl Lease {
    /// Checks `path`'s directory and whatever is at `path` now; creates nothing yet.
    pub(super) fn open(path: &Path) -> Result<Lease, BrokerError> {
        let fail = |reason: String| BrokerError::LeaseFile {
            path: path.to_path_buf(),
            reason,
        };
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(fail("not a file path".into()));
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        private_dir(parent)?;
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_DIRECTORY | nix::libc::O_NOFOLLOW)
            .open(parent)
            .map_err(|e| fail(format!("cannot open its directory: {e}")))?;
        // What is checked is the descriptor the file is reached through, not the path again.
        let uid = nix::unistd::geteuid().as_raw();
        let meta = dir
            .metadata()
            .map_err(|e| fail(format!("cannot inspect its directory: {e}")))?;
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(fail("its directory changed while it was checked".into()));
        }
        let lease = Lease {
            path: path.to_path_buf(),
            dir,
            name: name.to_owned(),
            file: Mutex::new(None),
        };
        match fstatat(
            &lease.dir,
            lease.name.as_os_str(),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(stat) => lease.check(&stat)?,
            Err(nix::errno::Errno::ENOENT) => {}
            Err(e) => return Err(fail(e.to_string())),
        }
        Ok(lease)
    }

    /// A regular file of ours with one link (a hard link would make the broker rewrite
    /// another file).
    fn check(&self, stat: &FileStat) -> Result<(), BrokerError> {
        let fail = |reason: String| BrokerError::LeaseFile {
            path: self.path.clone(),
            reason,
        };
        let kind = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT;
        if kind == SFlag::S_IFLNK {
            return Err(fail("it is a symbolic link".into()));
        }
        if kind != SFlag::S_IFREG {
            return Err(fail("it is not a regular file".into()));
        }
        let uid = nix::unistd::geteuid().as_raw();
        if stat.st_uid != uid {
            return Err(fail(format!(
                "it is owned by uid {}, not {uid}",
                stat.st_uid
            )));
        }
        if stat.st_nlink > 1 {
            return Err(fail(format!("it has {} hard links", stat.st_nlink)));
        }
        Ok(())
    }

    /// Writes `secs` (the first call creates the file, mode 0600, without following a link).
    pub(super) fn write(&self, secs: u64) -> Result<(), BrokerError> {
        let io = |source: std::io::Error| BrokerError::Lease {
            path: self.path.clone(),
            source,
        };
        let mut file = self
            .file
            .lock()
            .map_err(|_| io(std::io::Error::other("the lease lock is poisoned")))?;
        if file.is_none() {
            let fd: OwnedFd = openat(
                &self.dir,
                self.name.as_os_str(),
                OFlag::O_WRONLY
                    | OFlag::O_CREAT
                    | OFlag::O_NOFOLLOW
                    | OFlag::O_NONBLOCK
                    | OFlag::O_CLOEXEC,
                Mode::from_bits_truncate(0o600),
            )
            .map_err(|e| match e {
                nix::errno::Errno::ELOOP => BrokerError::LeaseFile {
                    path: self.path.clone(),
                    reason: "it is a symbolic link".into(),
                },
                e => io(e.into()),
            })?;
            let stat = nix::sys::stat::fstat(&fd).map_err(|e| io(e.into()))?;
            self.check(&stat)?;
            *file = Some(File::from(fd));
        }
        let Some(f) = file.as_ref() else {
            return Err(io(std::io::Error::other("the lease is not open")));
        };
        let text = format!("{secs}\n");
        f.write_all_at(text.as_bytes(), 0).map_err(io)?;
        f.set_len(text.len() as u64).map_err(io)
    }

    /// Removes the lease if its name still leads to the file written here.
    pub(super) fn remove(&self) {
        let Ok(file) = self.file.lock() else { return };
        let Some(ours) = file.as_ref().and_then(|f| f.metadata().ok()) else {
            return;
        };
        let there = fstatat(
            &self.dir,
            self.name.as_os_str(),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        );
        if there.is_ok_and(|s| s.st_ino == ours.ino() && s.st_dev == ours.dev()) {
            let _ = unlinkat(&self.dir, self.name.as_os_str(), UnlinkatFlags::NoRemoveDir);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn private() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn a_planted_symlink_is_refused_and_its_target_untouched() {
        let dir = private();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep").unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("b.lease");
        std::os::unix::fs::symlink(&target, &path).unwrap_or_else(|e| panic!("{e}"));
        let err = Lease::open(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("symbolic link"), "{err}");
        // Planted after the check, before the first write.
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let lease = Lease::open(&path).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&target, &path).unwrap_or_else(|e| panic!("{e}"));
        let err = lease
            .write(7)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap_or_default(), "keep");
    }

    #[test]
    fn the_lease_is_written_kept_open_and_removed_only_while_it_is_ours() {
        let dir = private();
        let path = dir.path().join("b.lease");
        let lease = Lease::open(&path).unwrap_or_else(|e| panic!("{e}"));
        lease.write(1234567).unwrap_or_else(|e| panic!("{e}"));
        lease.write(99).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "99\n");
        let mode = std::fs::metadata(&path)
            .map(|m| m.mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o600);
        lease.remove();
        assert!(!path.exists());
        // Another file put in its place is left alone.
        let lease = Lease::open(&path).unwrap_or_else(|e| panic!("{e}"));
        lease.write(1).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, "theirs").unwrap_or_else(|e| panic!("{e}"));
        lease.remove();
        assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "theirs");
    }

    #[test]
    fn a_lease_outside_a_private_directory_or_with_links_is_refused() {
        let open = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let err = Lease::open(&open.path().join("b.lease"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("mode 755"), "{err}");
        let dir = private();
        let other = dir.path().join("other");
        std::fs::write(&other, "x").unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("b.lease");
        std::fs::hard_link(&other, &path).unwrap_or_else(|e| panic!("{e}"));
        let err = Lease::open(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("hard links"), "{err}");
    }
}
