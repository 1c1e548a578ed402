//! Claiming the socket: only in a private directory of ours, one broker per socket (by a
//! lock beside it), a stale socket probed before it is replaced, the new one mode 0600.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use super::{BrokerError, Options};

/// A socket this broker owns until [`Claimed::release`].
pub(super) struct Claimed {
    listener: Option<UnixListener>,
    socket: PathBuf,
    lock_path: PathBuf,
    _lock: Flock<File>,
}

/// Checks the directory, takes the lock, replaces a stale socket and binds.
pub(super) fn claim(options: &Options) -> Result<Claimed, BrokerError> {
    let socket = options.socket.clone();
    private_dir(socket_dir(&socket)?)?;
    let lock_path = with_suffix(&socket, ".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&lock_path)
        .map_err(|source| BrokerError::Socket {
            path: lock_path.clone(),
            source,
        })?;
    let lock = Flock::lock(file, FlockArg::LockExclusiveNonblock)
        .map_err(|_| BrokerError::Running(socket.clone()))?;
    match std::fs::symlink_metadata(&socket) {
        Ok(_) if UnixStream::connect(&socket).is_ok() => {
            return Err(BrokerError::Running(socket));
        }
        // Nobody answers on it (a broker that died): it is ours to replace.
        Ok(_) => std::fs::remove_file(&socket).map_err(|source| BrokerError::Socket {
            path: socket.clone(),
            source,
        })?,
        Err(_) => {}
    }
    let listener = UnixListener::bind(&socket).map_err(|source| BrokerError::Socket {
        path: socket.clone(),
        source,
    })?;
    // The directory is private already; the mode keeps the socket so if it is ever moved.
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(
        |source| BrokerError::Socket {
            path: socket.clone(),
            source,
        },
    )?;
    listener
        .set_nonblocking(true)
        .map_err(|source| BrokerError::Socket {
            path: socket.clone(),
            source,
        })?;
    Ok(Claimed {
        listener: Some(listener),
        socket,
        lock_path,
        _lock: lock,
    })
}

impl Claimed {
    /// The bound listener (once).
    pub(super) fn listener(&self) -> Result<UnixListener, BrokerError> {
        self.listener
            .as_ref()
            .ok_or_else(|| BrokerError::Listen(std::io::Error::other("listener taken")))?
            .try_clone()
            .map_err(BrokerError::Listen)
    }

    /// Removes the socket and the lock file.
    pub(super) fn release(mut self) {
        self.listener = None;
        let _ = std::fs::remove_file(&self.socket);
        let _ = std::fs::remove_file(&self.lock_path);
    }
}

/// The directory of `socket`.
pub(super) fn socket_dir(socket: &Path) -> Result<&Path, BrokerError> {
    socket
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| BrokerError::Directory {
            dir: socket.to_path_buf(),
            reason: "the socket path has no directory".into(),
        })
}

/// `dir` must be a real directory (no symlink) of ours with no group or other access.
pub(super) fn private_dir(dir: &Path) -> Result<(), BrokerError> {
    let fail = |reason: String| BrokerError::Directory {
        dir: dir.to_path_buf(),
        reason,
    };
    let meta = std::fs::symlink_metadata(dir).map_err(|e| fail(e.to_string()))?;
    if !meta.is_dir() {
        return Err(fail("not a directory (or a symlink)".into()));
    }
    let uid = nix::unistd::geteuid().as_raw();
    if meta.uid() != uid {
        return Err(fail(format!("owned by uid {}, not {uid}", meta.uid())));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(fail(format!("mode {:o}", meta.mode() & 0o777)));
    }
    Ok(())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}
