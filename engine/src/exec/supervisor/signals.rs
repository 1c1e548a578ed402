//! The supervisor's signals: the ones it acts on are blocked and read from a signalfd (so the
//! wait loop has no handlers and no races), and its exit can re-raise the command's fatal
//! signal with the default action.
#![allow(
    unsafe_code,
    reason = "restoring a signal's default action before re-raising it"
)]

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigHandler, SigSet, SigmaskHow, Signal, raise, signal, sigprocmask};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

/// Sent by the engine to end the command early (cancel or deadline).
pub(crate) const STOP_SIGNAL: Signal = Signal::SIGTERM;
/// Delivered by the kernel when the engine dies (`PR_SET_PDEATHSIG`).
pub(super) const PARENT_DEATH_SIGNAL: Signal = Signal::SIGHUP;

/// Signals that end the supervised run besides the command's own exit.
const STOPPING: [Signal; 4] = [
    STOP_SIGNAL,
    PARENT_DEATH_SIGNAL,
    Signal::SIGINT,
    Signal::SIGQUIT,
];

/// The supervisor's blocked signal set and the descriptor it is read from.
pub(super) struct Signals {
    fd: SignalFd,
    original: SigSet,
}

/// What woke the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wake {
    /// A child changed state (or nothing arrived before the timeout): look at the children.
    Children,
    /// A stopping signal arrived.
    Stop(Signal),
}

impl Signals {
    /// Blocks `SIGCHLD` and the stopping signals in this (single-threaded) process and opens a
    /// signalfd for them. Children inherit the signal mask: start the command with
    /// [`Signals::original`] restored.
    pub(super) fn block() -> io::Result<Signals> {
        let mut mask = SigSet::empty();
        mask.add(Signal::SIGCHLD);
        for s in STOPPING {
            mask.add(s);
        }
        let mut original = SigSet::empty();
        sigprocmask(SigmaskHow::SIG_BLOCK, Some(&mask), Some(&mut original))?;
        let fd = SignalFd::with_flags(&mask, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK)?;
        Ok(Signals { fd, original })
    }

    /// The signal mask the supervisor started with (the engine's), which the command gets.
    pub(super) fn original(&self) -> SigSet {
        self.original
    }

    /// Sleeps until a signal arrives or `timeout` passes. Errors count as a timeout (after a
    /// short pause, so a broken descriptor cannot make a caller spin): callers re-check the
    /// children every time anyway.
    pub(super) fn wait(&self, timeout: Duration) -> Wake {
        let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(self.fd.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) => return Wake::Children,
            Ok(_) => {}
            Err(_) => {
                std::thread::sleep(timeout.min(Duration::from_millis(50)));
                return Wake::Children;
            }
        }
        let mut wake = Wake::Children;
        // Drain everything pending; a stop request wins over child events.
        while let Ok(Some(info)) = self.fd.read_signal() {
            let Ok(number) = i32::try_from(info.ssi_signo) else {
                continue;
            };
            if let Ok(sig) = Signal::try_from(number)
                && STOPPING.contains(&sig)
                && wake == Wake::Children
            {
                wake = Wake::Stop(sig);
            }
        }
        wake
    }
}

/// Ends this process with `sig` and its default action, without a core dump of the supervisor.
/// Returns only if the signal did not end the process (a signal whose default is to ignore).
pub(super) fn die_by(sig: Signal) {
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit reads the one struct passed; lowering the core limit is always allowed.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
    }
    // SAFETY: installing SIG_DFL runs no handler code; SIGKILL/SIGSTOP refuse it harmlessly.
    let _ = unsafe { signal(sig, SigHandler::SigDfl) };
    let mut only = SigSet::empty();
    only.add(sig);
    let _ = raise(sig);
    let _ = sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&only), None);
}
