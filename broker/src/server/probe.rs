//! `ash-broker --probe SOCKET`: whether a broker answers on a socket, so the shell wrapper can
//! replace one left behind by a killed broker instead of going direct for the rest of the
//! shell's life.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use nix::errno::Errno;
use nix::sys::socket::{AddressFamily, SockFlag, SockType, UnixAddr, connect, socket};

use super::listen::{private_dir, socket_dir};

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// A broker accepts connections there (or its backlog is full: it is busy, not gone).
    Live,
    /// Nothing answers: the socket is missing, or its broker died (`ECONNREFUSED`). A new
    /// broker on the same path replaces it under the path's lock.
    Stale,
    /// Not a socket of ours in a private directory: never connected to, never replaced.
    Untrusted(String),
}

/// Probes `path` without blocking: the connect is non-blocking, so a broker whose backlog is
/// full cannot hang the shell.
pub fn probe(path: &Path) -> Probe {
    if let Err(e) = socket_dir(path).and_then(private_dir) {
        return Probe::Untrusted(e.to_string());
    }
    let uid = nix::unistd::geteuid().as_raw();
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Probe::Stale,
        Err(e) => return Probe::Untrusted(e.to_string()),
        Ok(m) if !m.file_type().is_socket() => {
            return Probe::Untrusted("not a socket".into());
        }
        Ok(m) if m.uid() != uid => {
            return Probe::Untrusted(format!("owned by uid {}, not {uid}", m.uid()));
        }
        Ok(_) => {}
    }
    let address = match UnixAddr::new(path) {
        Ok(a) => a,
        Err(e) => return Probe::Untrusted(format!("not a usable socket path: {e}")),
    };
    let fd = match socket(
        AddressFamily::Unix,
        SockType::Stream,
        SockFlag::SOCK_NONBLOCK | SockFlag::SOCK_CLOEXEC,
        None,
    ) {
        Ok(fd) => fd,
        Err(e) => return Probe::Untrusted(format!("cannot make a socket: {e}")),
    };
    match connect(fd.as_raw_fd(), &address) {
        Ok(()) | Err(Errno::EAGAIN | Errno::EINPROGRESS) => Probe::Live,
        Err(Errno::ECONNREFUSED | Errno::ENOENT) => Probe::Stale,
        Err(e) => Probe::Untrusted(format!("cannot connect: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_listening_socket_is_live_a_dead_one_stale_and_an_open_directory_untrusted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let set = |mode| {
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode))
                .unwrap_or_else(|e| panic!("{e}"));
        };
        set(0o700);
        let path = dir.path().join("b.sock");
        assert_eq!(probe(&path), Probe::Stale, "missing");
        let listener =
            std::os::unix::net::UnixListener::bind(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(probe(&path), Probe::Live);
        drop(listener);
        assert!(
            path.exists(),
            "a dropped listener leaves its file, as a killed broker does"
        );
        assert_eq!(probe(&path), Probe::Stale);
        set(0o755);
        assert!(matches!(probe(&path), Probe::Untrusted(_)));
        set(0o700);
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, "").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(probe(&path), Probe::Untrusted(_)),
            "a regular file"
        );
    }
}
