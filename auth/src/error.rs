//! Why an auth store operation failed: each error names the file, what is wrong and what to do.

use std::path::PathBuf;

/// An auth store error.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// An I/O call failed.
    #[error("auth store {path}: cannot {action}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The directory or file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Group or others can reach the store, or another user owns it.
    #[error(
        "auth store {path} is not private (mode {mode:04o}, owner uid {owner}): tokens are refused; run `chmod {fix} {path}` and make sure you own it"
    )]
    Insecure {
        /// The directory or file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// Its owner.
        owner: u32,
        /// The mode to set.
        fix: &'static str,
    },
    /// A symlink where the store expects its own directory or file.
    #[error(
        "auth store {path} is a symlink: the store is refused; replace it with a real directory or file"
    )]
    Symlink {
        /// The path.
        path: PathBuf,
    },
    /// Something other than a regular file (or directory) sits at a store path.
    #[error("auth store {path} is not a {expected}; remove it and sign in again")]
    WrongType {
        /// The path.
        path: PathBuf,
        /// What was expected.
        expected: &'static str,
    },
    /// A store file does not decode.
    #[error("auth store {path} is damaged ({reason}); sign in again with `ansa --login`")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `--auth-dir` must be absolute.
    #[error("--auth-dir {path}: the auth directory must be an absolute path")]
    RelativeDir {
        /// The path given.
        path: PathBuf,
    },
    /// No home directory to put the store in.
    #[error("no home directory: set HOME, or pass --auth-dir /absolute/path")]
    NoHome,
    /// The keyring this store records (`store.json`) failed.
    #[error(
        "auth store {path}: the keyring (Secret Service) that store.json names cannot {action} the sign-in: {reason}; unlock the keyring and try again, or remove store.json and sign in again to keep the tokens in files"
    )]
    Keyring {
        /// The store directory.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// Why it failed.
        reason: String,
    },
    /// The refresh lock was not obtained in time.
    #[error(
        "auth store {path}: another ansa process holds the refresh lock for more than {seconds} s; try again, or remove a stale lock holder"
    )]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long it waited.
        seconds: u64,
    },
}
