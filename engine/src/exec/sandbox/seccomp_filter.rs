//! The seccomp filters of a sandboxed command, compiled to BPF in the parent:
//! - without network, `socket`/`socketpair` of any family but `AF_UNIX` fail with `EACCES`;
//! - `io_uring_*` fail with `EACCES` (io_uring could open sockets past the filter);
//! - `unshare`, `setns` and `clone` with a namespace flag fail with `EPERM`, and so do the
//!   terminal ioctls that inject input (`TIOCSTI`, `TIOCLINUX`);
//! - changing the limits, priority, CPU affinity, scheduling or I/O priority of any process
//!   but the caller (`prlimit64`, `setpriority`, `sched_set*`, `ioprio_set` naming another
//!   pid, group or user) fails with `EPERM`: a command could otherwise set ansa's file size
//!   limit to 0 (killing it with SIGXFSZ) or starve any process of the user's;
//! - `clone3`, whose flags sit in memory a filter cannot read, fails with `ENOSYS`, so libc
//!   falls back to `clone`;
//! - on x86_64, x32-ABI system calls (which would bypass the numbers above) fail with `EACCES`.

use super::error::SandboxError;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};
use std::collections::BTreeMap;

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<TargetArch> = Some(TargetArch::aarch64);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCH: Option<TargetArch> = None;

/// Namespace flags of `clone(2)` that would give the command a namespace of its own.
const NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// The BPF programs, in installation order.
pub(crate) fn programs(network: bool) -> Result<Vec<Vec<libc::sock_filter>>, SandboxError> {
    let arch = ARCH.ok_or_else(|| {
        SandboxError::Build(format!(
            "no seccomp filter for the {} architecture (x86_64 and aarch64 only)",
            std::env::consts::ARCH
        ))
    })?;
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    out.push(x32_guard());
    let mut eacces: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        eacces.insert(nr, Vec::new());
    }
    if !network {
        let not_unix = rule(vec![cond(
            SeccompCmpOp::Ne,
            u64::try_from(libc::AF_UNIX).unwrap_or_default(),
        )?])?;
        eacces.insert(libc::SYS_socket, vec![not_unix.clone()]);
        eacces.insert(libc::SYS_socketpair, vec![not_unix]);
    }
    out.push(compile(eacces, libc::EACCES, arch)?);
    let mut eperm: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    eperm.insert(libc::SYS_unshare, Vec::new());
    eperm.insert(libc::SYS_setns, Vec::new());
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|flag| {
            let flag = u64::from(flag.unsigned_abs());
            rule(vec![cond(SeccompCmpOp::MaskedEq(flag), flag)?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    eperm.insert(libc::SYS_clone, clone_rules);
    // Typing into a terminal (TIOCSTI) would run keystrokes in the user's shell once ansa
    // exits, outside the sandbox; TIOCLINUX can do the same on a virtual console.
    let tty_rules = [libc::TIOCSTI, libc::TIOCLINUX]
        .into_iter()
        .map(|request| {
            // The request type is c_ulong on glibc and c_int on musl; both constants are
            // small positive numbers, and the kernel reads the request as 32 bits.
            #[allow(clippy::unnecessary_cast, reason = "a no-op on glibc only")]
            let request = request as u64;
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)
                .map_err(build)
                .and_then(|c| rule(vec![c]))
        })
        .collect::<Result<Vec<_>, _>>()?;
    eperm.insert(libc::SYS_ioctl, tty_rules);
    for (nr, rules) in other_process_rules()? {
        eperm.insert(nr, rules);
    }
    out.push(compile(eperm, libc::EPERM, arch)?);
    let mut enosys: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    enosys.insert(libc::SYS_clone3, Vec::new());
    out.push(compile(enosys, libc::ENOSYS, arch)?);
    Ok(out)
}

/// `PRIO_PROCESS` of `setpriority(2)` and `IOPRIO_WHO_PROCESS` of `ioprio_set(2)`: the only
/// target kinds allowed, and only with who = 0 (the caller), since a group or user target
/// reaches processes outside the sandbox.
const PRIO_PROCESS: u64 = 0;
const IOPRIO_WHO_PROCESS: u64 = 1;

/// Rules matching calls that change another process's limits or scheduling. Every pid, who
/// and which argument is an `int`, so only its low 32 bits are compared, as the kernel reads it.
fn other_process_rules() -> Result<Vec<(i64, Vec<SeccompRule>)>, SandboxError> {
    let arg_ne = |index: u8, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, value)
            .map_err(build)
            .and_then(|c| rule(vec![c]))
    };
    let mut out = Vec::new();
    for nr in [
        libc::SYS_prlimit64,
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
    ] {
        out.push((nr, vec![arg_ne(0, 0)?]));
    }
    out.push((
        libc::SYS_setpriority,
        vec![arg_ne(0, PRIO_PROCESS)?, arg_ne(1, 0)?],
    ));
    out.push((
        libc::SYS_ioprio_set,
        vec![arg_ne(0, IOPRIO_WHO_PROCESS)?, arg_ne(1, 0)?],
    ));
    Ok(out)
}

fn build(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Build(format!("seccomp: {e}"))
}

fn cond(op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(0, SeccompCmpArgLen::Qword, op, value).map_err(build)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(build)
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
    arch: TargetArch,
) -> Result<Vec<libc::sock_filter>, SandboxError> {
    let errno = u32::try_from(errno).map_err(build)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        arch,
    )
    .map_err(build)?;
    let program: seccompiler::BpfProgram = filter.try_into().map_err(build)?;
    Ok(program
        .iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect())
}

/// Refuses every x32-ABI system call (numbers with bit 30 set): seccompiler's filters match
/// the x86_64 numbers only, and x32 calls report the same architecture.
#[cfg(target_arch = "x86_64")]
fn x32_guard() -> Vec<libc::sock_filter> {
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    vec![
        // seccomp_data.nr is the first u32.
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        jump(
            libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K,
            X32_SYSCALL_BIT,
            0,
            1,
        ),
        stmt(
            libc::BPF_RET | libc::BPF_K,
            SECCOMP_RET_ERRNO | libc::EACCES.unsigned_abs(),
        ),
        stmt(libc::BPF_RET | libc::BPF_K, SECCOMP_RET_ALLOW),
    ]
}
