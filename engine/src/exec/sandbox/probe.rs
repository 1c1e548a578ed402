//! What this kernel can enforce: the Landlock ABI version and seccomp filter support, asked of
//! the kernel once per process.
#![allow(unsafe_code, reason = "raw Landlock and seccomp query syscalls")]

use std::sync::OnceLock;

/// `LANDLOCK_CREATE_RULESET_VERSION`: `landlock_create_ruleset` returns the ABI version.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
/// `SECCOMP_GET_ACTION_AVAIL` operation of `seccomp(2)`.
const SECCOMP_GET_ACTION_AVAIL: libc::c_uint = 2;
/// `SECCOMP_RET_ERRNO`, the action the filter uses.
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
/// `SECCOMP_RET_USER_NOTIF`, the action of the file-metadata filter (Linux 5.0).
const SECCOMP_RET_USER_NOTIF: u32 = 0x7fc0_0000;

/// What this kernel can enforce, probed once per process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Support {
    /// The Landlock ABI version, `None` without Landlock.
    pub landlock_abi: Option<u8>,
    /// Whether seccomp filters returning an errno can be installed.
    pub seccomp: bool,
    /// Whether seccomp filters can hand calls to a supervising process (user notification),
    /// which deciding on file-metadata changes needs.
    pub user_notif: bool,
}

/// Asks the kernel (the first call) what it can enforce; later calls return the same answer.
pub fn probe() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| Support {
        landlock_abi: landlock_abi(),
        seccomp: action_available(SECCOMP_RET_ERRNO),
        user_notif: action_available(SECCOMP_RET_USER_NOTIF),
    })
}

fn landlock_abi() -> Option<u8> {
    // SAFETY: with a null attribute pointer and size 0 the call only reports the ABI version.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    // ENOSYS (not built) and EOPNOTSUPP (disabled at boot) both mean none.
    u8::try_from(version).ok().filter(|v| *v > 0)
}

fn action_available(action: u32) -> bool {
    // SAFETY: the kernel reads one u32 from a valid stack address.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_GET_ACTION_AVAIL,
            0u32,
            std::ptr::from_ref(&action),
        )
    };
    ret == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probing_twice_gives_the_same_answer() {
        assert_eq!(probe(), probe());
    }
}
