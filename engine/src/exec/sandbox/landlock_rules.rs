//! The Landlock ruleset of a sandboxed command: read and execute everywhere, write (with
//! refer, truncate and device ioctls) only beneath the writable roots and on a few devices,
//! no TCP bind/connect without network, and signals and abstract Unix sockets scoped to the
//! sandbox. Built in the parent; only its descriptor crosses the fork.

use super::error::SandboxError;
use super::policy::WRITABLE_DEVICES;
use super::roots::WritableRoot;
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};
use std::os::fd::OwnedFd;
use std::path::Path;

/// The file-system rights handled: everything the ABI knows except resolving Unix socket
/// paths (ABI 9), since Unix sockets stay reachable in every mode (docs/security.md).
fn handled_fs(abi: ABI) -> BitFlags<AccessFs> {
    let mut all = AccessFs::from_all(abi);
    all.remove(AccessFs::ResolveUnix);
    all
}

/// The rights granted beneath a writable root: everything handled but creating device nodes,
/// which as root (in a container) would give raw access to disks and loop devices.
fn root_rights(abi: ABI) -> BitFlags<AccessFs> {
    let mut rights = handled_fs(abi);
    rights.remove(AccessFs::MakeChar | AccessFs::MakeBlock);
    rights
}

/// Builds the ruleset for kernel ABI `abi`: writable beneath `roots` (each opened without
/// following symlinks and checked to be the directory it was pinned to), TCP denied unless
/// `network`. Every right and scope is a hard requirement, so nothing is silently dropped.
pub(crate) fn ruleset(
    abi: u8,
    roots: &[WritableRoot],
    network: bool,
) -> Result<OwnedFd, SandboxError> {
    let abi = ABI::from(i32::from(abi));
    let build = |e: landlock::RulesetError| SandboxError::Build(format!("Landlock: {e}"));
    let fs = handled_fs(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(fs)
        .map_err(build)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(build)?;
    if !network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(build)?;
    }
    let mut created = ruleset
        .create()
        .map_err(build)?
        .add_rule(PathBeneath::new(
            open(Path::new("/"))?,
            AccessFs::from_read(abi) & fs,
        ))
        .map_err(build)?;
    let writable = root_rights(abi);
    for root in roots {
        created = created
            .add_rule(PathBeneath::new(root.open_checked()?, writable))
            .map_err(build)?;
    }
    let file_rights = AccessFs::from_file(abi) & fs;
    for device in WRITABLE_DEVICES {
        // A device missing here cannot be created by the command either (no make rights).
        let Ok(fd) = PathFd::new(device) else {
            continue;
        };
        created = created
            .add_rule(PathBeneath::new(fd, file_rights))
            .map_err(build)?;
    }
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| SandboxError::Build("Landlock created no ruleset descriptor".to_owned()))
}

fn open(path: &Path) -> Result<PathFd, SandboxError> {
    PathFd::new(path).map_err(|e| SandboxError::WritableMissing {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}
