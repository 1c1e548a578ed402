//! Pipe pumps run on their own threads: draining a child's output into a sink, and feeding its
//! stdin. Both also watch a stop pipe so the supervisor can end them when a process outside the
//! child's group keeps a pipe open.

use super::capture::Sink;
use crate::store::Body;
use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};

/// Bytes asked for per read; large reads keep the per-byte overhead at hashing and copying.
const READ_CHUNK: usize = 256 * 1024;
/// Bytes of stdin handed to one write.
const WRITE_CHUNK: u64 = 1 << 20;
/// Kernel buffer requested for each pipe: fewer wake-ups for fast writers (best effort).
const PIPE_BYTES: i32 = 1 << 20;

/// How a pump ended.
#[derive(Debug)]
pub(crate) enum PumpEnd {
    /// The pipe reached EOF (output) or all input was written or refused (stdin).
    Done,
    /// The supervisor asked the pump to stop.
    Stopped,
    /// The pipe (or, for stdin, the input body) failed; nothing more can be moved.
    Failed,
}

/// Asks the kernel for a larger pipe buffer; a refusal only costs throughput.
pub(crate) fn widen(pipe: impl AsFd) {
    let _ = fcntl(pipe.as_fd(), FcntlArg::F_SETPIPE_SZ(PIPE_BYTES));
}

enum Ready {
    Pipe,
    Stop,
}

/// Sleeps until `pipe` has `events` (or hung up) or the stop pipe becomes readable.
fn wait(pipe: BorrowedFd<'_>, events: PollFlags, stop: BorrowedFd<'_>) -> io::Result<Ready> {
    loop {
        let mut fds = [
            PollFd::new(pipe, events),
            PollFd::new(stop, PollFlags::POLLIN),
        ];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
        if fds[1].any().unwrap_or(false) {
            return Ok(Ready::Stop);
        }
        if fds[0].any().unwrap_or(false) {
            return Ok(Ready::Pipe);
        }
    }
}

/// Reads `pipe` to EOF into `sink`, never leaving the writer blocked while it runs.
pub(crate) fn drain<P: Read + AsFd>(mut pipe: P, stop: BorrowedFd<'_>, sink: &mut Sink) -> PumpEnd {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match wait(pipe.as_fd(), PollFlags::POLLIN, stop) {
            Ok(Ready::Pipe) => {}
            Ok(Ready::Stop) => return PumpEnd::Stopped,
            Err(_) => return PumpEnd::Failed,
        }
        match pipe.read(&mut buf) {
            Ok(0) => return PumpEnd::Done,
            Ok(n) => sink.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return PumpEnd::Failed,
        }
    }
}

/// Writes all of `input` to the child's stdin, then closes it. A child that stops reading
/// (EPIPE) simply ends the feed.
pub(crate) fn feed<P: Write + AsFd>(mut pipe: P, stop: BorrowedFd<'_>, input: &Body) -> PumpEnd {
    // Non-blocking, so a full pipe sends us back to poll where the stop pipe is also watched.
    if fcntl(pipe.as_fd(), FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).is_err() {
        return PumpEnd::Failed;
    }
    let mut offset = 0;
    while offset < input.len() {
        let chunk = match input.read_range(offset, WRITE_CHUNK) {
            Ok(c) if !c.is_empty() => c,
            Ok(_) => break,
            Err(_) => return PumpEnd::Failed,
        };
        offset += chunk.len() as u64;
        let mut rest = chunk.as_slice();
        while !rest.is_empty() {
            match pipe.write(rest) {
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return PumpEnd::Done,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    match wait(pipe.as_fd(), PollFlags::POLLOUT, stop) {
                        Ok(Ready::Pipe) => {}
                        Ok(Ready::Stop) => return PumpEnd::Stopped,
                        Err(_) => return PumpEnd::Failed,
                    }
                }
                Err(_) => return PumpEnd::Failed,
            }
        }
    }
    PumpEnd::Done
}
