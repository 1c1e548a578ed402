//! Reading a notified call's pointer arguments from the target's memory through
//! `/proc/PID/mem`. What is read is a copy: the target may change its memory afterwards, which
//! is harmless because the supervisor acts on what it read and resolved, never lets the
//! original call continue.

use rustix::io::Errno;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// `PATH_MAX`, counting the terminating NUL.
pub(super) const PATH_MAX: usize = 4096;
/// `XATTR_NAME_MAX`.
pub(super) const XATTR_NAME_MAX: usize = 255;
/// `XATTR_SIZE_MAX`.
pub(super) const XATTR_SIZE_MAX: usize = 65536;
/// Reads never cross a page boundary in one go, so a string ending just before an unmapped
/// page reads like the kernel's `strncpy_from_user`.
const PAGE: u64 = 4096;

/// The memory of one target process.
pub(super) struct Memory {
    file: File,
}

impl Memory {
    /// Opens `/proc/PID/mem`; the caller checks afterwards that the notification is still
    /// valid, so the pid was not reused by another process in between.
    pub(super) fn open(pid: u32) -> Result<Memory, Errno> {
        let file = File::open(format!("/proc/{pid}/mem")).map_err(errno)?;
        Ok(Memory { file })
    }

    /// `len` bytes at `addr` (`EFAULT` when not all of them are mapped).
    pub(super) fn bytes(&self, addr: u64, len: usize) -> Result<Vec<u8>, Errno> {
        if addr == 0 && len > 0 {
            return Err(Errno::FAULT);
        }
        let mut out = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let at = addr.checked_add(done as u64).ok_or(Errno::FAULT)?;
            let n = self
                .file
                .read_at(&mut out[done..], at)
                .map_err(|_| Errno::FAULT)?;
            if n == 0 {
                return Err(Errno::FAULT);
            }
            done += n;
        }
        Ok(out)
    }

    /// The NUL-terminated string at `addr`, without its NUL: `too_long` when it has `max` or
    /// more bytes (`ENAMETOOLONG` for paths, `ERANGE` for attribute names, as the kernel says).
    pub(super) fn string(&self, addr: u64, max: usize, too_long: Errno) -> Result<Vec<u8>, Errno> {
        if addr == 0 {
            return Err(Errno::FAULT);
        }
        let mut out = Vec::new();
        let mut at = addr;
        loop {
            let room = usize::try_from(PAGE - at % PAGE).unwrap_or(PAGE as usize);
            let mut chunk = vec![0u8; room.min(max + 1 - out.len())];
            let n = self
                .file
                .read_at(&mut chunk, at)
                .map_err(|_| Errno::FAULT)?;
            if n == 0 {
                return Err(Errno::FAULT);
            }
            if let Some(end) = chunk[..n].iter().position(|b| *b == 0) {
                out.extend_from_slice(&chunk[..end]);
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
            if out.len() > max {
                return Err(too_long);
            }
            at = at.checked_add(n as u64).ok_or(Errno::FAULT)?;
        }
    }
}

/// The errno of an I/O error (`EIO` when it has none).
pub(super) fn errno(e: std::io::Error) -> Errno {
    Errno::from_raw_os_error(e.raw_os_error().unwrap_or(libc::EIO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_bytes_are_read_from_a_process() {
        let text = b"hello\0world";
        let long = vec![b'x'; 300];
        let me = Memory::open(std::process::id()).expect("own memory");
        let addr = text.as_ptr() as u64;
        assert_eq!(
            me.string(addr, PATH_MAX, Errno::NAMETOOLONG),
            Ok(b"hello".to_vec())
        );
        assert_eq!(me.bytes(addr + 6, 5), Ok(b"world".to_vec()));
        let mut terminated = long.clone();
        terminated.push(0);
        assert_eq!(
            me.string(terminated.as_ptr() as u64, XATTR_NAME_MAX, Errno::RANGE),
            Err(Errno::RANGE)
        );
        assert_eq!(
            me.string(0, PATH_MAX, Errno::NAMETOOLONG),
            Err(Errno::FAULT)
        );
        assert_eq!(me.bytes(8, 4), Err(Errno::FAULT));
    }
}
