//! The engine's side of ending a process early: a direct child's process group is killed at
//! once; a supervisor is asked first (so it can end adopted descendants and save evidence), and
//! killed together with the command's group if it does not exit within a short grace.

use super::signals::STOP_SIGNAL;
use crate::exec::monitor::Monitor;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

/// How long a supervisor gets to end the tree and save evidence before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// What the engine kills to end a running exec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A directly spawned child: its process group.
    Group(Pid),
    /// A supervisor (in its own group) and the command's process group.
    Supervised {
        /// The supervisor's pid and process group id.
        supervisor: Pid,
        /// The command's pid and process group id.
        command: Pid,
    },
}

impl Target {
    /// Ends the process: a direct child's group is SIGKILLed; a supervisor gets the stop
    /// signal and up to [`STOP_GRACE`] to exit (as `monitor` observes) before the hard kill.
    pub(crate) fn stop(self, monitor: &Monitor) {
        match self {
            Target::Group(_) => self.kill(),
            Target::Supervised { supervisor, .. } => {
                // The supervisor is unreaped until the engine waits for it, so its pid is ours.
                let _ = kill(supervisor, STOP_SIGNAL);
                let grace = Instant::now() + STOP_GRACE;
                if monitor
                    .wait_until(Some(grace), |e| e.exited.then_some(()))
                    .is_none()
                {
                    self.kill();
                }
            }
        }
    }

    /// SIGKILLs everything this target names (ESRCH, nothing left, is the outcome wanted).
    pub(crate) fn kill(self) {
        match self {
            Target::Group(pid) => {
                let _ = killpg(pid, Signal::SIGKILL);
            }
            Target::Supervised {
                supervisor,
                command,
            } => {
                let _ = killpg(command, Signal::SIGKILL);
                let _ = killpg(supervisor, Signal::SIGKILL);
            }
        }
    }
}
