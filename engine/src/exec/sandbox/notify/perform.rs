//! Making the change a call asked for, on the object the supervisor resolved (never by
//! letting the call continue, which would look the path up again after the check): the
//! arguments are copied out of the target first, then the change is made through the
//! object's `O_PATH` descriptor (`AT_EMPTY_PATH`, or `/proc/self/fd/N` for the xattr calls,
//! which have no such flag before Linux 6.13).
#![allow(
    unsafe_code,
    reason = "raw fchmodat2, fchownat, utimensat and xattr system calls on owned buffers"
)]

use super::call::{Change, Times};
use super::filter::SYS_FCHMODAT2;
use super::memory::{Memory, XATTR_NAME_MAX, XATTR_SIZE_MAX};
use super::resolve::Resolved;
use rustix::io::Errno;
use std::ffi::CString;
use std::os::fd::AsRawFd;

/// `XATTR_CREATE | XATTR_REPLACE`.
const XATTR_FLAGS: u32 = 0x3;
/// `sizeof(struct xattr_args)` version 0.
const XATTR_ARGS_SIZE: usize = 16;
/// The permission bits `chmod` keeps (`S_IALLUGO`).
const MODE_BITS: u32 = 0o7777;

/// A change with its arguments copied out of the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Prepared {
    Mode(u32),
    Owner {
        uid: u32,
        gid: u32,
    },
    /// `None`: both now.
    Times(Option<[libc::timespec; 2]>),
    SetXattr {
        name: CString,
        value: Vec<u8>,
        flags: u32,
    },
    RemoveXattr {
        name: CString,
    },
}

fn word(bytes: &[u8], at: usize) -> i64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    i64::from_ne_bytes(w)
}

fn name(mem: &Memory, addr: u64) -> Result<CString, Errno> {
    let bytes = mem.string(addr, XATTR_NAME_MAX, Errno::RANGE)?;
    if bytes.is_empty() {
        return Err(Errno::RANGE);
    }
    CString::new(bytes).map_err(|_| Errno::RANGE)
}

fn value(mem: &Memory, addr: u64, size: u64, flags: u32) -> Result<Vec<u8>, Errno> {
    if flags & !XATTR_FLAGS != 0 {
        return Err(Errno::INVAL);
    }
    let size = usize::try_from(size).map_err(|_| Errno::TOOBIG)?;
    if size > XATTR_SIZE_MAX {
        return Err(Errno::TOOBIG);
    }
    mem.bytes(addr, size)
}

/// Copies the change's arguments out of the target's memory.
pub(super) fn prepare(change: Change, mem: &Memory) -> Result<Prepared, Errno> {
    Ok(match change {
        Change::Mode(mode) => Prepared::Mode(mode & MODE_BITS),
        Change::Owner { uid, gid } => Prepared::Owner { uid, gid },
        Change::Times(times) => Prepared::Times(self::times(times, mem)?),
        Change::SetXattr {
            name: n,
            value: v,
            size,
            flags,
        } => Prepared::SetXattr {
            name: name(mem, n)?,
            value: value(mem, v, size, flags)?,
            flags,
        },
        Change::SetXattrArgs {
            name: n,
            args,
            args_size,
        } => {
            let args_size = usize::try_from(args_size).map_err(|_| Errno::TOOBIG)?;
            if args_size < XATTR_ARGS_SIZE {
                return Err(Errno::INVAL);
            }
            if args_size > 4096 {
                return Err(Errno::TOOBIG);
            }
            let raw = mem.bytes(args, args_size)?;
            // A larger struct from a newer libc is fine only if its unknown tail is zero.
            if raw[XATTR_ARGS_SIZE..].iter().any(|b| *b != 0) {
                return Err(Errno::TOOBIG);
            }
            let value_ptr = word(&raw, 0) as u64;
            let size = u32::from_ne_bytes([raw[8], raw[9], raw[10], raw[11]]);
            let flags = u32::from_ne_bytes([raw[12], raw[13], raw[14], raw[15]]);
            Prepared::SetXattr {
                name: name(mem, n)?,
                value: value(mem, value_ptr, u64::from(size), flags)?,
                flags,
            }
        }
        Change::RemoveXattr { name: n } => Prepared::RemoveXattr {
            name: name(mem, n)?,
        },
    })
}

fn times(times: Times, mem: &Memory) -> Result<Option<[libc::timespec; 2]>, Errno> {
    let ts = |sec: i64, nsec: i64| libc::timespec {
        tv_sec: sec,
        tv_nsec: nsec,
    };
    Ok(match times {
        Times::Now => None,
        Times::Utimbuf(addr) => {
            let b = mem.bytes(addr, 16)?;
            Some([ts(word(&b, 0), 0), ts(word(&b, 8), 0)])
        }
        Times::Timeval(addr) => {
            let b = mem.bytes(addr, 32)?;
            let (a_us, m_us) = (word(&b, 8), word(&b, 24));
            if !(0..1_000_000).contains(&a_us) || !(0..1_000_000).contains(&m_us) {
                return Err(Errno::INVAL);
            }
            Some([ts(word(&b, 0), a_us * 1000), ts(word(&b, 16), m_us * 1000)])
        }
        Times::Timespec(addr) => {
            let b = mem.bytes(addr, 32)?;
            Some([ts(word(&b, 0), word(&b, 8)), ts(word(&b, 16), word(&b, 24))])
        }
    })
}

fn check(rc: libc::c_long) -> Result<(), Errno> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::IO))
    }
}

/// Makes the change on the resolved object, with this thread's rights (see `server`).
pub(super) fn perform(resolved: &Resolved, change: &Prepared) -> Result<(), Errno> {
    let fd = resolved.object.as_raw_fd();
    let empty = c"".as_ptr();
    match change {
        Prepared::Mode(mode) => {
            // SAFETY: fchmodat2 on an owned descriptor and a static empty string.
            check(unsafe { libc::syscall(SYS_FCHMODAT2, fd, empty, *mode, libc::AT_EMPTY_PATH) })
        }
        Prepared::Owner { uid, gid } => {
            // SAFETY: fchownat on an owned descriptor and a static empty string.
            check(unsafe { libc::fchownat(fd, empty, *uid, *gid, libc::AT_EMPTY_PATH) }.into())
        }
        Prepared::Times(times) => {
            let ptr = times.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
            // SAFETY: utimensat reads two timespecs from a live array, or none for null.
            check(unsafe { libc::utimensat(fd, empty, ptr, libc::AT_EMPTY_PATH) }.into())
        }
        Prepared::SetXattr { name, value, flags } => {
            // No flag makes setxattr act on the descriptor itself before Linux 6.13, and a
            // symlink's own attributes are out of the command's reach anyway (user.* is not
            // allowed on symlinks, the rest needs capabilities it does not have).
            if resolved.is_symlink() {
                return Err(Errno::PERM);
            }
            let path = proc_self_fd(fd);
            // SAFETY: all pointers are to owned, live, NUL-terminated buffers of the lengths given.
            check(
                unsafe {
                    libc::setxattr(
                        path.as_ptr(),
                        name.as_ptr(),
                        value.as_ptr().cast(),
                        value.len(),
                        *flags as libc::c_int,
                    )
                }
                .into(),
            )
        }
        Prepared::RemoveXattr { name } => {
            if resolved.is_symlink() {
                return Err(Errno::PERM);
            }
            let path = proc_self_fd(fd);
            // SAFETY: both pointers are to owned, live, NUL-terminated strings.
            check(unsafe { libc::removexattr(path.as_ptr(), name.as_ptr()) }.into())
        }
    }
}

/// `/proc/self/fd/N`: following it reaches the object of descriptor N itself.
fn proc_self_fd(fd: i32) -> CString {
    // Digits only: no interior NUL.
    CString::new(format!("/proc/self/fd/{fd}")).unwrap_or_default()
}
