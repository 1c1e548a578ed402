//! The start report: one record the supervisor writes on an inherited pipe, then closes, so the
//! engine learns whether the command started (its pid, whose process group the engine can kill
//! as a last resort) or why not (the same `errno` a direct spawn would have failed with).
//!
//! Records: `P` + pid (u32 LE): started; `E` + errno (i32 LE): the command could not be
//! spawned; `F` + UTF-8 text: the supervisor itself could not be set up; `S` + an encoded
//! sandbox failure: the command's sandbox could not be built or applied.
#![allow(
    unsafe_code,
    reason = "reading the inherited start-report descriptor by number"
)]

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// What the supervisor reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Report {
    /// The command runs with this pid (and process group id).
    Started(u32),
    /// Spawning the command failed with this `errno`.
    SpawnFailed(i32),
    /// The supervisor could not be set up.
    SetupFailed(String),
    /// The sandbox could not be built or applied (an encoded sandbox failure); the command
    /// did not run.
    SandboxFailed(Vec<u8>),
    /// Nothing, or nothing intelligible, arrived before the pipe closed.
    Garbled,
}

impl Report {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Report::Started(pid) => {
                out.push(b'P');
                out.extend_from_slice(&pid.to_le_bytes());
            }
            Report::SpawnFailed(errno) => {
                out.push(b'E');
                out.extend_from_slice(&errno.to_le_bytes());
            }
            Report::SetupFailed(text) => {
                out.push(b'F');
                out.extend_from_slice(text.as_bytes());
            }
            Report::SandboxFailed(bytes) => {
                out.push(b'S');
                out.extend_from_slice(bytes);
            }
            Report::Garbled => {}
        }
        out
    }

    fn decode(bytes: &[u8]) -> Report {
        let word = |rest: &[u8]| <[u8; 4]>::try_from(rest).ok();
        match bytes.split_first() {
            Some((b'P', rest)) => {
                word(rest).map_or(Report::Garbled, |w| Report::Started(u32::from_le_bytes(w)))
            }
            Some((b'E', rest)) => word(rest).map_or(Report::Garbled, |w| {
                Report::SpawnFailed(i32::from_le_bytes(w))
            }),
            Some((b'F', rest)) => Report::SetupFailed(String::from_utf8_lossy(rest).into_owned()),
            Some((b'S', rest)) => Report::SandboxFailed(rest.to_vec()),
            _ => Report::Garbled,
        }
    }
}

/// The supervisor's end of the report pipe.
pub(super) struct ReportWriter(File);

impl ReportWriter {
    /// Takes over the inherited descriptor `fd` and marks it close-on-exec, so the command does
    /// not inherit it.
    pub(super) fn adopt(fd: RawFd) -> io::Result<ReportWriter> {
        if fd <= 2 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("report descriptor {fd} is a standard stream"),
            ));
        }
        // SAFETY: F_GETFD only inspects the descriptor table entry `fd`.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        fcntl(borrowed, FcntlArg::F_GETFD).map_err(io::Error::from)?;
        // SAFETY: `fd` is open (checked above), was inherited for this purpose only, and nothing
        // else in this process owns it.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        fcntl(owned.as_fd(), FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(io::Error::from)?;
        Ok(ReportWriter(File::from(owned)))
    }

    /// Sends `report` and closes the pipe. A vanished reader (the engine died) is not an error
    /// worth acting on here: parent-death handling takes over.
    pub(super) fn send(mut self, report: &Report) {
        let _ = self.0.write_all(&report.encode());
    }
}

/// Reads the report until the supervisor closes the pipe, or `timeout` passes (`None`).
pub(super) fn receive(reader: OwnedFd, timeout: Duration) -> io::Result<Option<Report>> {
    let until = Instant::now() + timeout;
    let mut file = File::from(reader);
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(e.into()),
        }
        match file.read(&mut chunk) {
            Ok(0) => return Ok(Some(Report::decode(&bytes))),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if bytes.len() > 64 * 1024 {
            return Ok(Some(Report::Garbled));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_junk_is_garbled() {
        for report in [
            Report::Started(4242),
            Report::SpawnFailed(libc::ENOENT),
            Report::SetupFailed("no evidence dir".into()),
            Report::SandboxFailed(b"Bno landlock".to_vec()),
        ] {
            assert_eq!(Report::decode(&report.encode()), report);
        }
        assert_eq!(Report::decode(b""), Report::Garbled);
        assert_eq!(Report::decode(b"P12"), Report::Garbled);
        assert_eq!(Report::decode(b"Zzzzz"), Report::Garbled);
    }
}
