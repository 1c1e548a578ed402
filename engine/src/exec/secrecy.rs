//! Keeping a process's own secrets from the commands it starts, which run as the same user:
//! by default any of them may read `/proc/<pid>/environ` and `/proc/<pid>/mem` of this process,
//! or attach a debugger to it.
//!
//! Taking a variable out of the environment (`unsetenv`) does not help: `/proc/<pid>/environ`
//! shows the block the kernel wrote at exec, whatever the C library's `environ` points to now.
#![allow(
    unsafe_code,
    reason = "prctl, close_range and fcntl, and re-pointing the C library's `environ` before the block it pointed to is cleared"
)]

use std::ffi::{CStr, c_char};
use std::io;

unsafe extern "C" {
    /// The C library's environment (POSIX): what `getenv`, `setenv` and `std::env` read.
    static mut environ: *mut *mut c_char;
}

/// Variables the dynamic loader may still point into after start-up (it keeps pointers to some
/// `LD_*` values); none of them is a secret, so they stay in the block.
const LOADER_PREFIXES: [&[u8]; 2] = [b"LD_", b"GLIBC_TUNABLES="];

/// Makes this process non-dumpable (`PR_SET_DUMPABLE` 0): processes of the same user without
/// `CAP_SYS_PTRACE` can no longer read its `/proc/<pid>/environ` or `mem`, or attach a
/// debugger, and it writes no core dump. Commands it execs are dumpable again (the kernel resets
/// the flag at exec of a readable, non-setuid program).
pub fn forbid_inspection() -> io::Result<()> {
    nix::sys::prctl::set_dumpable(false).map_err(io::Error::from)
}

/// Whether this process is dumpable (`PR_GET_DUMPABLE`).
pub fn is_dumpable() -> io::Result<bool> {
    nix::sys::prctl::get_dumpable().map_err(io::Error::from)
}

/// Moves every environment string into memory of its own and clears the originals in the block
/// the kernel placed at exec, so `/proc/<pid>/environ` of this process shows no value any more
/// (loader variables aside, see [`LOADER_PREFIXES`]). The environment itself, as `getenv`,
/// `std::env` and the commands started later see it, is unchanged. Returns how many strings were
/// cleared.
///
/// This matters where [`forbid_inspection`] does not: to readers with `CAP_SYS_PTRACE`, which
/// may read `environ` even where they may not attach (Yama's `ptrace_scope` 3).
///
/// # Safety
///
/// No other thread may be running or start while this runs: the C library's environment is
/// replaced without its lock. Call it first thing in `main`.
pub unsafe fn clear_environment_block() -> usize {
    // SAFETY: the caller guarantees no other thread touches `environ`; reading the pointer
    // itself is a plain load.
    let table = unsafe { environ };
    if table.is_null() {
        return 0;
    }
    let mut originals = Vec::new();
    for i in 0.. {
        // SAFETY: `environ` is a null-terminated array of pointers (POSIX); `i` stops at the
        // terminator.
        let entry = unsafe { *table.add(i) };
        if entry.is_null() {
            break;
        }
        originals.push(entry);
    }
    let mut copies: Vec<*mut c_char> = originals
        .iter()
        // SAFETY: each entry is a NUL-terminated string of the environment.
        .map(|&p| unsafe { CStr::from_ptr(p) }.to_owned().into_raw())
        .collect();
    copies.push(std::ptr::null_mut());
    // The new table and its strings live as long as the process, as the old ones did; setenv
    // and unsetenv may edit or replace the table later, as they may any `environ`.
    let new_table = Box::leak(copies.into_boxed_slice()).as_mut_ptr();
    // SAFETY: single-threaded (the caller's guarantee); the new table is a valid
    // null-terminated array of NUL-terminated strings that is never freed.
    unsafe {
        environ = new_table;
    }
    let mut cleared = 0;
    for p in originals {
        // SAFETY: `p` is still a valid NUL-terminated string; nothing refers to it any more
        // (the table now points at the copies), so its bytes may be overwritten in place: the
        // block is writable memory of this process (on the initial stack).
        let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
        if LOADER_PREFIXES
            .iter()
            .any(|prefix| bytes.starts_with(prefix))
        {
            continue;
        }
        let len = bytes.len();
        // SAFETY: as above; exactly the `len` bytes before the terminator are written.
        unsafe {
            std::ptr::write_bytes(p, 0, len);
        }
        cleared += 1;
    }
    cleared
}

/// Marks every descriptor this process inherited above stderr close-on-exec, so the commands
/// it starts do not get them: whatever the process that started it left open without
/// close-on-exec (a shell's redirection, a credential helper's socket, a parent `make`'s
/// jobserver pipe) stays in this process. Descriptors it opens later are its own business.
pub fn keep_inherited_descriptors() -> io::Result<()> {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets a flag on open descriptors.
    let marked = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if marked == 0 {
        return Ok(());
    }
    // Kernels before 5.11 lack the flag: mark each open descriptor.
    for entry in std::fs::read_dir("/proc/self/fd")? {
        let Some(fd) = entry?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
            .filter(|&fd| fd > 2)
        else {
            continue;
        };
        // SAFETY: F_GETFD/F_SETFD only read and set the descriptor's flags; a descriptor that
        // closed meanwhile (the directory's own) answers EBADF, which changes nothing.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
    Ok(())
}
