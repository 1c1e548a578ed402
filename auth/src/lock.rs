//! `refresh.lock`: one refresh at a time across every ansa process of a store. The holder
//! re-reads the credentials under the lock, so a process that waited sees the tokens the
//! other one obtained instead of spending a refresh token twice.

use std::fs::File;
use std::time::{Duration, Instant};

use super::dir::AuthDir;
use super::error::AuthError;

/// The lock file's name.
pub const LOCK_FILE: &str = "refresh.lock";

/// How often a waiting process tries again.
const RETRY: Duration = Duration::from_millis(10);

/// A held refresh lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RefreshLock {
    _file: File,
}

impl RefreshLock {
    /// Waits up to `timeout` for the store's refresh lock.
    pub fn acquire(dir: &AuthDir, timeout: Duration) -> Result<RefreshLock, AuthError> {
        let file = dir.open_or_create(LOCK_FILE)?;
        let deadline = Instant::now() + timeout;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(RefreshLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(RETRY);
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(AuthError::LockTimeout {
                        path: dir.path().join(LOCK_FILE),
                        seconds: timeout.as_secs(),
                    });
                }
                Err(std::fs::TryLockError::Error(source)) => {
                    return Err(AuthError::Io {
                        action: "lock",
                        path: dir.path().join(LOCK_FILE),
                        source,
                    });
                }
            }
        }
    }
}
