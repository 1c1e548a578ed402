//! Reclaiming the private directories a killed process left while it created `.ash`
//! (`.ash.new-<pid>-<nanos>`, see `lock::create_state_dir`).
//!
//! A directory is reclaimed only when all of these hold, so a creator at work is never
//! disturbed: its name is exactly the pattern; it is a real directory (not a symlink) owned by
//! this user; the PID in its name is not a live process (`kill(pid, 0)` says `ESRCH`; our own
//! PID is live); and its flock is free (a creator holds it from just after `mkdir` until the
//! rename). The PID check covers every creator in this PID namespace, the flock covers one
//! whose PID is not visible here (a container sharing the workspace) except in the
//! microseconds between its `mkdir` and its `flock`; a directory deleted in that window makes
//! that creator's mutation fail with a clear error, and nothing else is lost (no `.ash`, so no
//! journal, existed yet). A reused PID keeps the litter until that process ends.

use super::fsx;
use crate::files::workspace::Workspace;
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use std::fs::{File, TryLockError};

const PREFIX: &str = ".ash.new-";

/// The private name a creator builds `.ash` under.
pub(crate) fn temp_name(pid: u32, nanos: u32) -> String {
    format!("{PREFIX}{pid}-{nanos}")
}

/// The creator's PID when `name` is exactly [`temp_name`]'s pattern (decimal, no sign or
/// leading zero, nanoseconds below one second).
fn creator(name: &[u8]) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX.as_bytes())?;
    let dash = rest.iter().position(|&b| b == b'-')?;
    let (pid, nanos) = (&rest[..dash], &rest[dash + 1..]);
    let pid: i32 = decimal(pid)?.try_into().ok()?;
    (pid > 0 && decimal(nanos)? < 1_000_000_000).then_some(pid)
}

fn decimal(digits: &[u8]) -> Option<u64> {
    let canonical = !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && (digits.len() == 1 || digits[0] != b'0')
        && digits.len() <= 10;
    if !canonical {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Removes every reclaimable directory in the workspace root (see the module docs) and
/// returns their names. Best effort: anything that cannot be checked or removed stays.
pub(crate) fn reclaim(ws: &Workspace) -> Vec<String> {
    let Ok(fd) = ws.open_dir(".") else {
        return Vec::new();
    };
    let Ok(mut dir) = nix::dir::Dir::from_fd(fd) else {
        return Vec::new();
    };
    let candidates: Vec<(String, i32)> = dir
        .iter()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_bytes();
            let pid = creator(name)?;
            // The pattern is ASCII, so the name is UTF-8.
            Some((String::from_utf8(name.to_vec()).ok()?, pid))
        })
        .collect();
    drop(dir);
    candidates
        .into_iter()
        .filter(|(name, pid)| reclaim_one(ws, name, *pid))
        .map(|(name, _)| name)
        .collect()
}

fn reclaim_one(ws: &Workspace, name: &str, pid: i32) -> bool {
    if !dead(pid) {
        return false;
    }
    let Ok(at) = ws.locate(name) else {
        return false;
    };
    let owned = at.stat().is_ok_and(|s| {
        crate::files::workspace::type_of(&s) == nix::sys::stat::SFlag::S_IFDIR
            && s.st_uid == nix::unistd::geteuid().as_raw()
    });
    if !owned {
        return false;
    }
    // Held until the tree is gone, so no creator can be building in it meanwhile.
    let Ok(held) = at.open_dir().map(File::from) else {
        return false;
    };
    match held.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock | TryLockError::Error(_)) => return false,
    }
    // The name may have been replaced since the checks above; the tree removed must be the
    // one locked.
    let same = at
        .stat()
        .ok()
        .zip(held.metadata().ok())
        .is_some_and(|(s, m)| {
            use std::os::unix::fs::MetadataExt;
            s.st_ino == m.ino() && s.st_dev == m.dev()
        });
    same && fsx::remove_tree(ws, name).is_ok() && fsx::sync_dir(ws, ".").is_ok()
}

/// True when no process with this PID exists (one of another user exists: `EPERM`).
fn dead(pid: i32) -> bool {
    pid != std::process::id() as i32 && kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_pattern_names_a_creator() {
        assert_eq!(creator(temp_name(4242, 17).as_bytes()), Some(4242));
        assert_eq!(creator(b".ash.new-1-0"), Some(1));
        assert_eq!(creator(b".ash.new-1-999999999"), Some(1));
        for name in [
            ".ash.new-1-1000000000",
            ".ash.new-0-5",
            ".ash.new-01-5",
            ".ash.new-1-05",
            ".ash.new--5",
            ".ash.new-1-",
            ".ash.new-1",
            ".ash.new-+1-5",
            ".ash.new-1-5-6",
            ".ash.new-1-5x",
            ".ash.new-2147483648-5",
            ".ash.new-99999999999-5",
            "ash.new-1-5",
            ".ash",
            ".ash.new-",
        ] {
            assert_eq!(creator(name.as_bytes()), None, "{name}");
        }
    }

    #[test]
    fn our_own_and_live_pids_are_never_dead() {
        assert!(!dead(std::process::id() as i32));
        // PID 1 exists in every namespace.
        assert!(!dead(1));
    }
}
