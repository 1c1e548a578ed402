//! Running one process to its end: spawn, pump its pipes on their own threads, wait for exit,
//! deadline or cancellation, kill the whole process group when needed, and reap.

use super::capture::{CaptureLimits, Captured, Sink};
use super::drain::{self, PumpEnd};
use super::error::ExecError;
use super::launch::Launch;
use super::monitor::Monitor;
use super::spool::SpoolRoot;
use super::supervisor::{self, Target};
use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::protocol::ExitKind;
use crate::store::{Body, QuotaMeter};
use nix::errno::Errno;
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;
use std::io::{PipeWriter, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::sync::Arc;
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// How long, after killing the group, pipes may stay open (held by a process that left the
/// group) before their pumps are abandoned.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// What one exec needs from its request and session.
#[derive(Debug, Clone, Copy)]
pub struct ExecContext<'a> {
    /// The request deadline (`u.ms`), fixed when the request was accepted.
    pub deadline: Deadline,
    /// The request's cancellation token.
    pub cancel: &'a CancelToken,
    /// The session store's byte account; captures are charged to it as they grow.
    pub meter: &'a QuotaMeter,
    /// Where captures beyond the memory threshold spool.
    pub spool: &'a SpoolRoot,
    /// Capture thresholds.
    pub limits: CaptureLimits,
    /// Where the embedder watches the output while the command runs (a copy; the capture is
    /// the same without it).
    pub live: Option<&'a super::LiveOutput>,
}

/// How a process ended and everything it wrote.
#[derive(Debug)]
pub struct ProcessOutcome {
    /// `k`: exited, signaled, timed out or cancelled.
    pub kind: ExitKind,
    /// `c`: the exit code, or the signal number; `None` on timeout and cancellation.
    pub code: Option<i64>,
    /// `ms`: milliseconds from spawn until the process was reaped and its pipes closed.
    pub elapsed_ms: u64,
    /// Standard output.
    pub stdout: Captured,
    /// Standard error.
    pub stderr: Captured,
    /// A pipe did not reach EOF: a process outside the child's group held it open past the
    /// kill grace period (or the pipe failed), so the capture ends early.
    pub incomplete: bool,
}

impl ProcessOutcome {
    /// Exited with code 0.
    pub fn success(&self) -> bool {
        self.kind == ExitKind::Exited && self.code == Some(0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Finished,
    TimedOut,
    Cancelled,
}

struct Pumped {
    stdout: Captured,
    stderr: Captured,
    incomplete: bool,
}

/// Runs `launch` with `stdin` (null when `None`) to completion, the deadline, or cancellation.
/// On deadline or cancellation the whole process group is killed, reaped, and both pipes drained
/// to EOF before this returns.
pub fn run(
    launch: &Launch,
    stdin: Option<&Body>,
    cx: &ExecContext<'_>,
) -> Result<ProcessOutcome, ExecError> {
    if cx.cancel.is_cancelled() {
        return Ok(unstarted(ExitKind::Cancelled, cx));
    }
    if cx.deadline.check().is_err() {
        return Ok(unstarted(ExitKind::TimedOut, cx));
    }
    let (stop_rx, stop_tx) = std::io::pipe().map_err(|e| ExecError::internal("stop pipe", e))?;
    let supervisor::Prepared {
        command: mut cmd,
        starting,
        confinement,
    } = supervisor::prepare(launch)?;
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let start = Instant::now();
    let spawned = cmd.spawn();
    // Also drops the sandbox hook's reference to the confinement.
    drop(cmd);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return Err(match &starting {
                Some(s) => s.spawn_error(&e),
                None => supervisor::direct_spawn_error(launch, confinement, &e),
            });
        }
    };
    // A directly spawned sandboxed command's metadata calls are decided here, by a thread
    // that outlives this call as long as the command or a daemon it forked uses the filter.
    if let Some(confinement) = &confinement
        && let Err(e) = confinement.serve_metadata()
    {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ExecError::Sandbox(e));
    }
    let Ok(raw_pid) = i32::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ExecError::Internal(format!(
            "process id {} out of range",
            child.id()
        )));
    };
    let pid = Pid::from_raw(raw_pid);
    let target = match starting {
        None => Target::Group(pid),
        Some(starting) => match starting.started() {
            Ok(command) => Target::Supervised {
                supervisor: pid,
                command,
            },
            Err(e) => {
                Target::Group(pid).kill();
                let _ = child.wait();
                return Err(e);
            }
        },
    };
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(abort(&mut child, target, "child pipes missing"));
    };
    let input = child.stdin.take();
    drain::widen(&out);
    drain::widen(&err);

    let monitor = Arc::new(Monitor::new(2));
    let watcher = Arc::clone(&monitor);
    let _watch = cx
        .cancel
        .on_cancel(move || watcher.update(|e| e.cancelled = true));

    let pumped = thread::scope(|s| {
        let pipes = Pipes {
            out,
            err,
            input: input.zip(stdin),
        };
        let pumps = match start_pumps(s, pipes, pid, &monitor, stop_rx.as_fd(), cx) {
            Ok(pumps) => pumps,
            Err(e) => {
                // Threads already started end once the group is dead or the stop pipe fires;
                // the scope joins them before the child is reaped below.
                target.kill();
                signal_stop(&stop_tx);
                return Err(e);
            }
        };
        let ending = supervise(&monitor, cx, target, &stop_tx);
        // Releases a feeder still waiting on a stdin that nobody reads.
        signal_stop(&stop_tx);
        pumps.join().map(|pumped| (ending, pumped))
    });
    let status = child.wait();
    let elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (ending, pumped) = pumped?;
    let status = status.map_err(|e| ExecError::internal("reaping the child", e))?;
    let (kind, code) = match ending {
        Ending::Finished => classify(status),
        Ending::TimedOut => (ExitKind::TimedOut, None),
        Ending::Cancelled => (ExitKind::Cancelled, None),
    };
    Ok(ProcessOutcome {
        kind,
        code,
        elapsed_ms,
        stdout: pumped.stdout,
        stderr: pumped.stderr,
        incomplete: pumped.incomplete,
    })
}

struct Pipes<'a> {
    out: ChildStdout,
    err: ChildStderr,
    input: Option<(ChildStdin, &'a Body)>,
}

type OutputPump<'scope> = ScopedJoinHandle<'scope, (Captured, PumpEnd)>;

struct Pumps<'scope> {
    reaper: ScopedJoinHandle<'scope, ()>,
    stdout: OutputPump<'scope>,
    stderr: OutputPump<'scope>,
    feeder: Option<ScopedJoinHandle<'scope, PumpEnd>>,
}

/// Starts the reaper (which only observes the exit), the two output pumps and the stdin feeder.
fn start_pumps<'scope, 'env>(
    s: &'scope Scope<'scope, 'env>,
    pipes: Pipes<'env>,
    pid: Pid,
    monitor: &'env Monitor,
    stop: BorrowedFd<'env>,
    cx: &'env ExecContext<'env>,
) -> Result<Pumps<'scope>, ExecError> {
    let reaper = spawn_in(s, "ash-exec-wait", move || {
        // WNOWAIT leaves the child a zombie, so its pid (= the group id) cannot be reused
        // before we have killed the group and reaped the child ourselves.
        while let Err(Errno::EINTR) =
            waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT)
        {}
        monitor.update(|e| e.exited = true);
    })?;
    let stdout = spawn_in(s, "ash-exec-stdout", move || {
        pump_output(pipes.out, stop, monitor, cx)
    })?;
    let stderr = spawn_in(s, "ash-exec-stderr", move || {
        pump_output(pipes.err, stop, monitor, cx)
    })?;
    let feeder = match pipes.input {
        Some((pipe, body)) => Some(spawn_in(s, "ash-exec-stdin", move || {
            drain::feed(pipe, stop, body)
        })?),
        None => None,
    };
    Ok(Pumps {
        reaper,
        stdout,
        stderr,
        feeder,
    })
}

fn pump_output(
    pipe: impl Read + AsFd,
    stop: BorrowedFd<'_>,
    monitor: &Monitor,
    cx: &ExecContext<'_>,
) -> (Captured, PumpEnd) {
    let mut sink = Sink::new(cx.meter, cx.spool, cx.limits).watched(cx.live.cloned());
    let end = drain::drain(pipe, stop, &mut sink);
    monitor.update(|e| e.open_pipes = e.open_pipes.saturating_sub(1));
    (sink.finish(), end)
}

impl Pumps<'_> {
    fn join(self) -> Result<Pumped, ExecError> {
        let (stdout, out_end) = join(self.stdout)?;
        let (stderr, err_end) = join(self.stderr)?;
        if let Some(feeder) = self.feeder {
            join(feeder)?;
        }
        join(self.reaper)?;
        let incomplete = !matches!(out_end, PumpEnd::Done) || !matches!(err_end, PumpEnd::Done);
        Ok(Pumped {
            stdout,
            stderr,
            incomplete,
        })
    }
}

/// Waits for the process to settle, the deadline, or cancellation; on the latter two kills the
/// group and waits until it is reaped-ready and both pipes are at EOF (or abandoned).
fn supervise(monitor: &Monitor, cx: &ExecContext<'_>, target: Target, stop: &PipeWriter) -> Ending {
    let ending = monitor
        .wait_until(Some(cx.deadline.instant()), |e| {
            if e.settled() {
                Some(Ending::Finished)
            } else if e.cancelled {
                Some(Ending::Cancelled)
            } else {
                None
            }
        })
        .unwrap_or(Ending::TimedOut);
    if ending == Ending::Finished {
        return ending;
    }
    target.stop(monitor);
    let grace = Instant::now() + KILL_GRACE;
    if monitor
        .wait_until(Some(grace), |e| e.settled().then_some(()))
        .is_none()
    {
        signal_stop(stop);
        monitor.wait_until(None, |e| e.settled().then_some(()));
    }
    ending
}

fn classify(status: ExitStatus) -> (ExitKind, Option<i64>) {
    if let Some(signal) = status.signal() {
        (ExitKind::Signaled, Some(i64::from(signal)))
    } else if let Some(code) = status.code() {
        (ExitKind::Exited, Some(i64::from(code)))
    } else {
        (ExitKind::Killed, None)
    }
}

fn signal_stop(mut stop: &PipeWriter) {
    // One byte keeps the stop pipe readable for every pump from now on.
    let _ = stop.write(b"x");
}

/// Kills and reaps a child whose setup failed.
fn abort(child: &mut Child, target: Target, what: &str) -> ExecError {
    target.kill();
    let _ = child.wait();
    ExecError::Internal(what.to_owned())
}

fn spawn_in<'scope, T: Send + 'scope>(
    s: &'scope Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Result<ScopedJoinHandle<'scope, T>, ExecError> {
    thread::Builder::new()
        .name(name.to_owned())
        .spawn_scoped(s, f)
        .map_err(|e| ExecError::internal("starting an exec thread", e))
}

fn join<T>(handle: ScopedJoinHandle<'_, T>) -> Result<T, ExecError> {
    handle
        .join()
        .map_err(|_| ExecError::Internal("an exec thread panicked".to_owned()))
}

/// The outcome of a process that was never started (cancelled or out of time before spawn).
fn unstarted(kind: ExitKind, cx: &ExecContext<'_>) -> ProcessOutcome {
    let empty = || Sink::new(cx.meter, cx.spool, cx.limits).finish();
    ProcessOutcome {
        kind,
        code: None,
        elapsed_ms: 0,
        stdout: empty(),
        stderr: empty(),
        incomplete: false,
    }
}
