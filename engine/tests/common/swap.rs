//! A hostile local process for the race tests: it exchanges two paths with
//! `renameat2(RENAME_EXCHANGE)` in a loop until it is killed.

#![allow(unsafe_code, reason = "fork, then raw renameat2 syscalls in the child")]

use std::ffi::CString;
use std::path::Path;

/// Forks a process that exchanges `a` and `b` until [`stop_swapper`]. The child issues only
/// raw syscalls on memory prepared before the fork.
pub fn start_swapper(a: &Path, b: &Path) -> nix::unistd::Pid {
    let a = CString::new(a.as_os_str().as_encoded_bytes()).expect("no NUL");
    let b = CString::new(b.as_os_str().as_encoded_bytes()).expect("no NUL");
    // SAFETY: the child calls only async-signal-safe syscalls (renameat2, sched_yield) and
    // never returns into Rust code that could allocate or take locks.
    match unsafe { nix::unistd::fork() }.expect("fork") {
        nix::unistd::ForkResult::Child => loop {
            // SAFETY: both pointers are valid NUL-terminated strings owned by this process.
            unsafe {
                libc::syscall(
                    libc::SYS_renameat2,
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    libc::RENAME_EXCHANGE,
                );
                libc::sched_yield();
            }
        },
        nix::unistd::ForkResult::Parent { child } => child,
    }
}

/// Kills and reaps the swapper.
pub fn stop_swapper(pid: nix::unistd::Pid) {
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
    let _ = nix::sys::wait::waitpid(pid, None);
}
