//! Why a sandbox policy cannot be enforced, or was not enforced, for one command.

use std::path::PathBuf;
use thiserror::Error;

/// Why a policy cannot be enforced here; the command is then not run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SandboxError {
    /// The kernel has no Landlock (not built in, or not in the `lsm=` list).
    #[error(
        "the OS sandbox needs Landlock, which this kernel does not offer (Linux 6.12 or later with Landlock enabled in the `lsm=` boot list); choose sandbox mode `off` to run commands with your full rights"
    )]
    NoLandlock,
    /// Landlock is there but lacks rights the mode needs.
    #[error(
        "the OS sandbox needs Landlock ABI {need}, this kernel has ABI {have} (missing: {missing}); upgrade to Linux 6.12 or later, or choose sandbox mode `off` to run commands with your full rights"
    )]
    AbiTooOld {
        /// The kernel's ABI.
        have: u8,
        /// The ABI the policy needs.
        need: u8,
        /// What the missing ABI versions would enforce, in words.
        missing: String,
    },
    /// The kernel cannot install seccomp filters.
    #[error(
        "the OS sandbox needs seccomp filters (CONFIG_SECCOMP_FILTER), which this kernel does not offer; choose sandbox mode `off` to run commands with your full rights"
    )]
    NoSeccomp,
    /// The kernel's seccomp cannot hand calls to a supervising process.
    #[error(
        "the OS sandbox needs seccomp user notification (Linux 5.5 or later) to decide on chmod, chown, utime and xattr changes, which this kernel does not offer; choose sandbox mode `off` to run commands with your full rights"
    )]
    NoUserNotif,
    /// A writable root is not an absolute path.
    #[error("sandbox writable root {0:?} is not an absolute path")]
    WritableNotAbsolute(PathBuf),
    /// A writable root is `/`, which would leave nothing protected.
    #[error("sandbox writable root {0:?} is the whole filesystem; list narrower directories")]
    WritableIsRoot(PathBuf),
    /// A writable root does not exist or is not a directory.
    #[error("sandbox writable root {path:?} is not an existing directory: {reason}")]
    WritableMissing {
        /// The root as configured.
        path: PathBuf,
        /// What the filesystem said.
        reason: String,
    },
    /// A writable root is no longer the directory recorded when the sandbox was set up (moved
    /// away, or replaced by a symlink): writing through it now could reach anywhere.
    #[error(
        "sandbox writable root {path:?} is no longer the directory it was when the session's sandbox was set up (it was moved or replaced, perhaps by a symlink). Restore the directory, or restart ansa to sandbox the directory now there"
    )]
    RootReplaced {
        /// The root as configured.
        path: PathBuf,
    },
    /// The workspace is `/`: write access to it would be write access to everything.
    #[error(
        "the workspace is the whole filesystem (/), so a workspace-write sandbox would protect nothing; start ansa in a project directory, or choose sandbox mode read-only"
    )]
    WorkspaceIsRoot,
    /// Building the Landlock ruleset or the seccomp filter failed.
    #[error("cannot build the OS sandbox: {0}")]
    Build(String),
    /// The command's process could not restrict itself; it was not run.
    #[error(
        "the OS sandbox could not be applied to the command ({step}: {message}); the command was not run"
    )]
    Apply {
        /// Which restriction failed.
        step: &'static str,
        /// The OS error text.
        message: String,
    },
}
