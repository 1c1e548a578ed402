//! The auth lease: how sign-out stops every process that is using the sign-in before it
//! deletes the tokens.
//!
//! A process holds a shared lock on `lease.lock` for as long as it uses an access token (one
//! model request). Sign-out first writes `logout.pending`, which blocks new dispatch at once
//! (a user takes the lease, then checks the marker, so no request starts after sign-out
//! began), and then takes the lock exclusively: it waits for the requests in flight, whose
//! holders watch for the marker and stop. The marker is removed when sign-out is done, or by
//! the next sign-in.

use std::fs::File;
use std::time::{Duration, Instant};

use super::dir::AuthDir;
use super::error::AuthError;

/// The lease lock file's name.
pub const LEASE_FILE: &str = "lease.lock";

/// The marker of a sign-out in progress.
pub const LOGOUT_FILE: &str = "logout.pending";

/// How often a waiting sign-out tries again.
const RETRY: Duration = Duration::from_millis(10);

/// A process's use of the sign-in (a shared lock); released when dropped or at exit.
#[derive(Debug)]
pub struct AuthLease {
    _file: File,
}

/// Why a lease was not granted.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// A sign-out started; nothing new is dispatched on this sign-in.
    #[error(
        "signing out of {path} (logout.pending): nothing is sent on this sign-in; run `ansa --login` to sign in again (or `ansa --logout` to finish an interrupted sign-out)"
    )]
    SigningOut {
        /// The store directory.
        path: std::path::PathBuf,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] AuthError),
}

impl AuthLease {
    /// A shared lease on `dir`, refused once a sign-out has begun.
    pub fn take(dir: &AuthDir) -> Result<AuthLease, LeaseError> {
        let file = dir.open_or_create(LEASE_FILE)?;
        match file.try_lock_shared() {
            Ok(()) => {}
            // Only a sign-out holds the lock exclusively.
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LeaseError::SigningOut {
                    path: dir.path().to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(AuthError::Io {
                    action: "lock",
                    path: dir.path().join(LEASE_FILE),
                    source,
                }
                .into());
            }
        }
        // Checked after the lock is held: a sign-out that wrote its marker later waits for
        // this lease, and this process's watcher sees the marker.
        if signing_out(dir)? {
            return Err(LeaseError::SigningOut {
                path: dir.path().to_path_buf(),
            });
        }
        Ok(AuthLease { _file: file })
    }
}

/// Whether a sign-out of `dir` has begun (and not finished).
pub fn signing_out(dir: &AuthDir) -> Result<bool, AuthError> {
    Ok(dir.read(LOGOUT_FILE)?.is_some())
}

/// Sign-out's side: the marker written, then the lock held exclusively.
#[derive(Debug)]
pub(crate) struct LogoutGate {
    _file: File,
    /// Whether every lease was released within the wait.
    pub drained: bool,
}

impl LogoutGate {
    /// Blocks new dispatch on `dir`, then waits up to `wait` for the leases in flight. A
    /// holder that does not let go in time (a hung request) does not keep the tokens alive:
    /// sign-out goes on and says so.
    pub(crate) fn close(dir: &AuthDir, wait: Duration) -> Result<LogoutGate, AuthError> {
        dir.write_atomic(LOGOUT_FILE, b"1\n")?;
        let file = dir.open_or_create(LEASE_FILE)?;
        let deadline = Instant::now() + wait;
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(LogoutGate {
                        _file: file,
                        drained: true,
                    });
                }
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(RETRY);
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Ok(LogoutGate {
                        _file: file,
                        drained: false,
                    });
                }
                Err(std::fs::TryLockError::Error(source)) => {
                    return Err(AuthError::Io {
                        action: "lock",
                        path: dir.path().join(LEASE_FILE),
                        source,
                    });
                }
            }
        }
    }

    /// Ends the sign-out: dispatch is no longer blocked (there is nothing to dispatch with
    /// until the next sign-in).
    pub(crate) fn open(self, dir: &AuthDir) -> Result<(), AuthError> {
        dir.remove(LOGOUT_FILE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, AuthDir) {
        let t = tempfile::tempdir().unwrap();
        let dir = AuthDir::create(&t.path().join("auth")).unwrap();
        (t, dir)
    }

    #[test]
    fn a_sign_out_refuses_new_leases_at_once_and_waits_for_the_ones_in_flight() {
        let (_t, dir) = store();
        let held = AuthLease::take(&dir).unwrap();
        // A second user of the sign-in shares it.
        let other = AuthLease::take(&dir).unwrap();
        drop(other);
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
        });
        let gate = LogoutGate::close(&dir, Duration::from_secs(5)).unwrap();
        assert!(gate.drained, "the lease in flight was waited for");
        release.join().unwrap();
        // While the sign-out runs, nothing new is dispatched.
        assert!(matches!(
            AuthLease::take(&dir),
            Err(LeaseError::SigningOut { .. })
        ));
        gate.open(&dir).unwrap();
        assert!(!signing_out(&dir).unwrap());
        AuthLease::take(&dir).unwrap();
    }

    #[test]
    fn a_lease_that_is_never_released_does_not_keep_the_sign_out_waiting_forever() {
        let (_t, dir) = store();
        let _hung = AuthLease::take(&dir).unwrap();
        let gate = LogoutGate::close(&dir, Duration::from_millis(100)).unwrap();
        assert!(!gate.drained);
        // The marker is there for the hung holder's watcher, and for every new request.
        assert!(signing_out(&dir).unwrap());
        let err = AuthLease::take(&dir).unwrap_err();
        assert!(err.to_string().contains("ansa --login"), "{err}");
    }

    #[test]
    fn an_interrupted_sign_out_keeps_blocking_until_the_next_one_finishes() {
        let (_t, dir) = store();
        // A sign-out killed after writing its marker.
        dir.write_atomic(LOGOUT_FILE, b"1\n").unwrap();
        assert!(matches!(
            AuthLease::take(&dir),
            Err(LeaseError::SigningOut { .. })
        ));
        LogoutGate::close(&dir, Duration::from_millis(100))
            .unwrap()
            .open(&dir)
            .unwrap();
        AuthLease::take(&dir).unwrap();
    }
}
