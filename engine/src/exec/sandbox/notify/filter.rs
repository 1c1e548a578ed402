//! The seccomp program that hands every file-metadata change to the supervising process:
//! chmod, chown, utime(s) and xattr changes return `SECCOMP_RET_USER_NOTIF`, everything else
//! is allowed (the other filters of the sandbox still apply; the kernel takes the most
//! restrictive answer of all). Written as raw BPF because seccompiler has no user-notification
//! action.

/// `fchmodat2(2)` (Linux 6.6), the same number on x86_64 and aarch64.
pub(super) const SYS_FCHMODAT2: i64 = 452;
/// `setxattrat(2)` (Linux 6.13), the same number on x86_64 and aarch64.
pub(super) const SYS_SETXATTRAT: i64 = 463;
/// `removexattrat(2)` (Linux 6.13), the same number on x86_64 and aarch64.
pub(super) const SYS_REMOVEXATTRAT: i64 = 466;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const AUDIT_ARCH: u32 = 0;

/// The system calls that change a file's mode, owner, times or extended attributes. A kernel
/// older than a call simply never sees it (ENOSYS before the filter matters).
#[cfg(target_arch = "x86_64")]
pub(super) const METADATA_SYSCALLS: [i64; 20] = [
    libc::SYS_chmod,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    SYS_FCHMODAT2,
    libc::SYS_chown,
    libc::SYS_fchown,
    libc::SYS_lchown,
    libc::SYS_fchownat,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_futimesat,
    libc::SYS_utimensat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_SETXATTRAT,
    SYS_REMOVEXATTRAT,
];

/// aarch64 has only the `*at` and fd forms of chmod, chown and the times.
#[cfg(target_arch = "aarch64")]
pub(super) const METADATA_SYSCALLS: [i64; 14] = [
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    SYS_FCHMODAT2,
    libc::SYS_fchown,
    libc::SYS_fchownat,
    libc::SYS_utimensat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_SETXATTRAT,
    SYS_REMOVEXATTRAT,
];

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) const METADATA_SYSCALLS: [i64; 0] = [];

const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_USER_NOTIF: u32 = 0x7fc0_0000;
/// Offsets in `struct seccomp_data`.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;

/// The program: a foreign architecture (a 32-bit call on x86_64) kills the process, as the
/// sandbox's other filters do; a metadata call notifies; the rest is allowed.
pub(crate) fn program() -> Vec<libc::sock_filter> {
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jeq = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let calls = METADATA_SYSCALLS;
    let n = calls.len();
    let mut out = vec![
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, ARCH_OFFSET),
        jeq(AUDIT_ARCH, 1, 0),
        stmt(libc::BPF_RET | libc::BPF_K, SECCOMP_RET_KILL_PROCESS),
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, NR_OFFSET),
    ];
    for (i, nr) in calls.iter().enumerate() {
        // Each match jumps over the remaining tests and the allow to the notify return; the
        // list has at most 20 entries, so the offset fits a byte.
        let over = u8::try_from(n - i).unwrap_or(u8::MAX);
        out.push(jeq(u32::try_from(*nr).unwrap_or(u32::MAX), over, 0));
    }
    out.push(stmt(libc::BPF_RET | libc::BPF_K, SECCOMP_RET_ALLOW));
    out.push(stmt(libc::BPF_RET | libc::BPF_K, SECCOMP_RET_USER_NOTIF));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program on one `seccomp_data` the way the kernel's classic-BPF interpreter
    /// would for the instructions it uses.
    fn run(program: &[libc::sock_filter], arch: u32, nr: u32) -> u32 {
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let ins = program[pc];
            let code = u32::from(ins.code);
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                acc = if ins.k == ARCH_OFFSET { arch } else { nr };
                pc += 1;
            } else if code == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K {
                pc += 1 + usize::from(if acc == ins.k { ins.jt } else { ins.jf });
            } else {
                return ins.k;
            }
        }
    }

    #[test]
    fn metadata_calls_notify_others_pass_and_foreign_arches_die() {
        let p = program();
        for nr in METADATA_SYSCALLS {
            assert_eq!(
                run(&p, AUDIT_ARCH, nr as u32),
                SECCOMP_RET_USER_NOTIF,
                "{nr}"
            );
        }
        for nr in [libc::SYS_openat, libc::SYS_write, libc::SYS_read] {
            assert_eq!(run(&p, AUDIT_ARCH, nr as u32), SECCOMP_RET_ALLOW, "{nr}");
        }
        assert_eq!(
            run(&p, 0x4000_0003, libc::SYS_fchmodat as u32),
            SECCOMP_RET_KILL_PROCESS
        );
    }
}
