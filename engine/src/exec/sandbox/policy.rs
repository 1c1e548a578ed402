//! The sandbox policy of one command: its mode, extra writable roots and network switch, what
//! a kernel must offer to enforce it, and its one-line description.

use super::apply::Restrictions;
use super::error::SandboxError;
use super::probe::Support;
use super::roots::{self, DirId, WritableRoot};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The domain of the digest of a sandboxed action.
const SANDBOXED_ACTION: &[u8] = b"ash-sandboxed-action-v1\0";

/// The Landlock ABI every sandboxed mode needs: 3 for truncation, 6 for scoping signals and
/// abstract Unix sockets (without it a command could kill ansa or reach a daemon's abstract
/// socket); 4 and 5 come along.
pub const REQUIRED_LANDLOCK_ABI: u8 = 6;

/// What each Landlock ABI version added that the sandbox relies on, for error messages.
const ABI_FEATURES: [(u8, &str); 6] = [
    (1, "filesystem write rules"),
    (2, "rules for moving and linking files between directories"),
    (3, "rules for truncating files"),
    (4, "TCP bind/connect rules"),
    (5, "device ioctl rules"),
    (6, "scoping of signals and abstract Unix sockets"),
];

/// Devices a sandboxed command may always write: sinks, sources and the terminal.
pub const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/urandom",
    "/dev/random",
];

/// Shared scratch directories writable in workspace-write besides the workspace and $TMPDIR.
pub const SCRATCH_ROOTS: [&str; 2] = ["/tmp", "/dev/shm"];

/// How much of the system a command may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SandboxMode {
    /// No OS sandbox: the command has the user's rights.
    Off,
    /// Read everywhere, write only the workspace, temp directories and listed roots.
    WorkspaceWrite,
    /// Read everywhere, write nothing but harmless devices.
    ReadOnly,
}

impl SandboxMode {
    /// Every mode, in order of increasing restriction.
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::Off,
        SandboxMode::WorkspaceWrite,
        SandboxMode::ReadOnly,
    ];

    /// The name used in config, flags and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sandbox mode name that is not one of `off`, `workspace-write`, `read-only`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode {0:?}: expected off, workspace-write or read-only")]
pub struct UnknownMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SandboxMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMode(s.to_owned()))
    }
}

/// The restrictions one command runs under (part of what a permit signs).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxPolicy {
    /// The mode.
    pub mode: SandboxMode,
    /// Absolute, existing directories writable besides the workspace, $TMPDIR and /tmp
    /// (config `sandbox_writable`); ignored in read-only mode.
    pub writable: Vec<PathBuf>,
    /// TCP/UDP/INET sockets allowed (config `sandbox_network`; only honoured in
    /// workspace-write, read-only never has network).
    pub network: bool,
}

impl SandboxPolicy {
    /// The policy of mode `off`.
    pub fn off() -> SandboxPolicy {
        SandboxPolicy {
            mode: SandboxMode::Off,
            writable: Vec::new(),
            network: true,
        }
    }

    /// Whether the policy restricts anything (every mode but `off`).
    pub fn is_enforced(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    /// The action digest a permit for `action` run under `sandbox` covers: `action` itself for
    /// an unsandboxed run (so earlier decisions keep their meaning), otherwise a digest over the
    /// action and the whole policy, so a permit for a sandboxed run never authorises an
    /// unsandboxed one, nor one under another policy.
    pub fn bind(action: [u8; 32], sandbox: Option<&SandboxPolicy>) -> [u8; 32] {
        let Some(policy) = sandbox.filter(|p| p.is_enforced()) else {
            return action;
        };
        let mut h = blake3::Hasher::new();
        h.update(SANDBOXED_ACTION);
        h.update(&action);
        h.update(policy.mode.as_str().as_bytes());
        h.update(&[0, u8::from(policy.network_allowed())]);
        for root in &policy.writable {
            let bytes = root.as_os_str().as_encoded_bytes();
            h.update(&(bytes.len() as u64).to_be_bytes());
            h.update(bytes);
        }
        *h.finalize().as_bytes()
    }

    /// Whether network sockets are allowed under this policy.
    pub fn network_allowed(&self) -> bool {
        match self.mode {
            SandboxMode::Off => true,
            SandboxMode::WorkspaceWrite => self.network,
            SandboxMode::ReadOnly => false,
        }
    }

    /// `Err` naming what is missing when this kernel cannot enforce the policy, or when a
    /// writable root is unusable.
    pub fn check(&self, support: &Support) -> Result<(), SandboxError> {
        if !self.is_enforced() {
            return Ok(());
        }
        let have = support.landlock_abi.ok_or(SandboxError::NoLandlock)?;
        if have < REQUIRED_LANDLOCK_ABI {
            let missing = ABI_FEATURES
                .iter()
                .filter(|(abi, _)| *abi > have)
                .map(|(abi, what)| format!("{what} (ABI {abi})"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(SandboxError::AbiTooOld {
                have,
                need: REQUIRED_LANDLOCK_ABI,
                missing,
            });
        }
        if !support.seccomp {
            return Err(SandboxError::NoSeccomp);
        }
        if !support.user_notif {
            return Err(SandboxError::NoUserNotif);
        }
        if self.mode == SandboxMode::WorkspaceWrite {
            for root in &self.writable {
                check_writable(root)?;
            }
        }
        Ok(())
    }

    /// `Err` when `workspace` cannot be sandboxed in this mode: `/` in workspace-write (every
    /// write would be allowed).
    pub fn check_workspace(&self, workspace: &Path) -> Result<(), SandboxError> {
        if self.mode == SandboxMode::WorkspaceWrite && workspace.parent().is_none() {
            return Err(SandboxError::WorkspaceIsRoot);
        }
        Ok(())
    }

    /// The directories a command may write under (workspace, $TMPDIR, /tmp, /dev/shm, the
    /// listed roots, without repeats); empty unless the mode is workspace-write.
    pub fn writable_roots(&self, workspace: &Path) -> Vec<PathBuf> {
        if self.mode != SandboxMode::WorkspaceWrite {
            return Vec::new();
        }
        let mut roots = vec![workspace.to_path_buf()];
        if let Some(tmpdir) = tmpdir() {
            roots.push(tmpdir);
        }
        // POSIX shared memory and semaphores (`shm_open`, `sem_open`: Python's multiprocessing,
        // test runners) live in /dev/shm, a scratch tmpfs like /tmp. A system without one of
        // them just has one root fewer.
        for scratch in SCRATCH_ROOTS {
            // A symlinked scratch dir (/dev/shm -> /run/shm) is left out: roots are opened
            // without following symlinks.
            if std::fs::symlink_metadata(scratch).is_ok_and(|m| m.is_dir()) {
                roots.push(PathBuf::from(scratch));
            }
        }
        roots.extend(self.writable.iter().cloned());
        let mut seen = std::collections::HashSet::new();
        roots.retain(|r| seen.insert(r.clone()));
        roots
    }

    /// What the command's process is confined to, for building its confinement: every root
    /// pinned to the directory it was when first seen (the workspace to `workspace_id`, the
    /// identity of the engine's open root descriptor), so a root swapped for a symlink or
    /// another directory refuses the command instead of widening the sandbox.
    pub(crate) fn restrictions(
        &self,
        workspace: &Path,
        workspace_id: DirId,
    ) -> Result<Restrictions, SandboxError> {
        self.check_workspace(workspace)?;
        let writable = self
            .writable_roots(workspace)
            .into_iter()
            .map(|root| {
                if root == workspace {
                    roots::pin_as(&root, workspace_id)
                } else {
                    roots::pin(&root)
                }
            })
            .collect::<Result<Vec<WritableRoot>, _>>()?;
        Ok(Restrictions {
            writable,
            network: self.network_allowed(),
        })
    }

    /// A stable one-line description for the environment message, approvals and /status.
    pub fn describe(&self, workspace: &Path) -> String {
        match self.mode {
            SandboxMode::Off => "off: no OS sandbox, commands run with your full rights".to_owned(),
            SandboxMode::WorkspaceWrite => {
                let roots = self
                    .writable_roots(workspace)
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "workspace-write: commands read everywhere but write only under {roots} (and /dev/null-like devices); network {}",
                    if self.network { "on" } else { "off" }
                )
            }
            SandboxMode::ReadOnly => {
                "read-only: commands read everywhere but write nothing (except /dev/null-like devices); network off".to_owned()
            }
        }
    }
}

/// The engine's `$TMPDIR` when it names an existing absolute directory other than `/`.
fn tmpdir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("TMPDIR")?);
    // Canonical, because roots are opened without following symlinks.
    let dir = std::fs::canonicalize(dir.is_absolute().then_some(dir)?).ok()?;
    (dir != Path::new("/") && dir.is_dir()).then_some(dir)
}

fn check_writable(root: &Path) -> Result<(), SandboxError> {
    if !root.is_absolute() {
        return Err(SandboxError::WritableNotAbsolute(root.to_path_buf()));
    }
    if root.parent().is_none() {
        return Err(SandboxError::WritableIsRoot(root.to_path_buf()));
    }
    // Opened as the command's rule will open it (no symlink in any component) and pinned:
    // the first check records the directory, later ones refuse another one in its place.
    roots::pin(root).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: Support = Support {
        landlock_abi: Some(7),
        seccomp: true,
        user_notif: true,
    };

    fn policy(mode: SandboxMode) -> SandboxPolicy {
        SandboxPolicy {
            mode,
            writable: Vec::new(),
            network: false,
        }
    }

    #[test]
    fn modes_round_trip_through_their_names() {
        for mode in SandboxMode::ALL {
            assert_eq!(mode.to_string().parse::<SandboxMode>(), Ok(mode));
        }
        let err = "workspace".parse::<SandboxMode>().expect_err("unknown");
        assert!(err.to_string().contains("workspace-write"), "{err}");
    }

    #[test]
    fn a_kernel_without_landlock_cannot_enforce_a_sandbox_but_off_always_runs() {
        let none = Support {
            landlock_abi: None,
            seccomp: true,
            user_notif: true,
        };
        for mode in [SandboxMode::WorkspaceWrite, SandboxMode::ReadOnly] {
            let err = policy(mode).check(&none).expect_err("no landlock");
            assert_eq!(err, SandboxError::NoLandlock);
            assert!(err.to_string().contains("`off`"), "{err}");
        }
        assert_eq!(policy(SandboxMode::Off).check(&none), Ok(()));
    }

    #[test]
    fn an_old_abi_names_what_is_missing() {
        let old = Support {
            landlock_abi: Some(3),
            seccomp: true,
            user_notif: true,
        };
        let err = policy(SandboxMode::WorkspaceWrite)
            .check(&old)
            .expect_err("too old");
        let text = err.to_string();
        assert!(text.contains("ABI 6, this kernel has ABI 3"), "{text}");
        assert!(text.contains("TCP bind/connect rules (ABI 4)"), "{text}");
        assert!(text.contains("scoping of signals"), "{text}");
        assert!(!text.contains("truncating"), "{text}");
    }

    #[test]
    fn no_seccomp_is_refused() {
        let no = Support {
            landlock_abi: Some(7),
            seccomp: false,
            user_notif: false,
        };
        assert_eq!(
            policy(SandboxMode::ReadOnly).check(&no),
            Err(SandboxError::NoSeccomp)
        );
        let no_notif = Support {
            seccomp: true,
            ..no
        };
        for mode in [SandboxMode::WorkspaceWrite, SandboxMode::ReadOnly] {
            let err = policy(mode)
                .check(&no_notif)
                .expect_err("no user notification");
            assert_eq!(err, SandboxError::NoUserNotif);
            assert!(err.to_string().contains("`off`"), "{err}");
        }
        assert_eq!(policy(SandboxMode::Off).check(&no_notif), Ok(()));
        assert_eq!(policy(SandboxMode::ReadOnly).check(&FULL), Ok(()));
    }

    #[test]
    fn unusable_writable_roots_are_refused() {
        let with = |root: &str| SandboxPolicy {
            writable: vec![PathBuf::from(root)],
            ..policy(SandboxMode::WorkspaceWrite)
        };
        assert!(matches!(
            with("/no/such/sandbox/root").check(&FULL),
            Err(SandboxError::WritableMissing { .. })
        ));
        assert!(matches!(
            with("relative/dir").check(&FULL),
            Err(SandboxError::WritableNotAbsolute(_))
        ));
        assert!(matches!(
            with("/").check(&FULL),
            Err(SandboxError::WritableIsRoot(_))
        ));
        assert!(matches!(
            with("/etc/hostname").check(&FULL),
            Err(SandboxError::WritableMissing { .. })
        ));
        assert_eq!(with("/usr").check(&FULL), Ok(()));
    }

    #[test]
    fn descriptions_name_roots_and_network() {
        let ws = Path::new("/home/u/project");
        let mut p = SandboxPolicy {
            writable: vec![PathBuf::from("/var/cache/x")],
            ..policy(SandboxMode::WorkspaceWrite)
        };
        let text = p.describe(ws);
        assert!(text.starts_with("workspace-write: "), "{text}");
        assert!(text.contains("/home/u/project"), "{text}");
        assert!(text.contains("/tmp"), "{text}");
        assert!(text.contains("/var/cache/x"), "{text}");
        assert!(text.ends_with("network off"), "{text}");
        p.network = true;
        assert!(p.describe(ws).ends_with("network on"));
        assert_eq!(p.describe(ws), p.describe(ws));
        assert!(
            policy(SandboxMode::ReadOnly)
                .describe(ws)
                .contains("write nothing")
        );
    }
}
