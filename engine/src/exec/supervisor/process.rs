//! The supervisor process: set up, start the command, wait for its end or a stop request, end
//! the whole tree, save the evidence, and exit the way the command did.
#![allow(
    unsafe_code,
    reason = "pre-exec process setup of the supervised command"
)]

use super::args::{EnvEdit, Plan, UsageError};
use super::evidence::{EVIDENCE_VERSION, Evidence, PendingEvidence, Termination};
use super::reap::{Left, Tree};
use super::report::{Report, ReportWriter};
use super::signals::{self, Signals, Wake};
use crate::exec::sandbox::{Confinement, encode_failure};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::wait::WaitStatus;
use nix::unistd::{Pid, getppid};
use std::ffi::OsString;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// Exit code for an unusable command line (as for other usage errors).
const USAGE_EXIT: i32 = 2;
/// Exit code when the supervisor could not be set up or the command could not be started
/// (the engine learns the real reason from the start report).
const SETUP_EXIT: i32 = 125;
/// How often the wait loop re-checks its parent even without a signal.
const PARENT_CHECK: Duration = Duration::from_secs(1);

/// Why the supervisor could not start the command.
#[derive(Debug, Error)]
enum SetupError {
    #[error("exec supervisor usage: {0}")]
    Usage(#[from] UsageError),
    #[error("exec supervisor: {what}: {source}")]
    Os {
        what: &'static str,
        source: io::Error,
    },
}

fn os(what: &'static str) -> impl FnOnce(io::Error) -> SetupError {
    move |source| SetupError::Os { what, source }
}

/// How the supervised run ends.
enum Exit {
    Code(i32),
    Signal(Signal),
}

/// The supervisor's main: `args` are the arguments after [`super::SUPERVISE_ARG`]. Returns the
/// process exit code; when the command died by a signal this raises the same signal and does
/// not return. Call it from a binary's `main` before any other thread exists.
pub fn supervise_main(args: &[OsString]) -> i32 {
    let plan = match Plan::parse(args) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("{}", SetupError::from(e));
            return USAGE_EXIT;
        }
    };
    let mut report = None;
    if let Some(fd) = plan.report_fd {
        match ReportWriter::adopt(fd) {
            Ok(writer) => report = Some(writer),
            Err(e) => {
                eprintln!("{}", os("adopting the report descriptor")(e));
                return SETUP_EXIT;
            }
        }
    }
    match supervise(&plan, &mut report) {
        Ok(Exit::Code(code)) => code,
        Ok(Exit::Signal(sig)) => {
            signals::die_by(sig);
            128 + sig as i32
        }
        Err(e) => {
            match report.take() {
                Some(writer) => writer.send(&Report::SetupFailed(e.to_string())),
                None => eprintln!("{e}"),
            }
            SETUP_EXIT
        }
    }
}

/// Why the wait for the command ended.
enum Stop {
    /// The command exited by itself.
    Exited,
    /// A stop signal arrived while the parent is still there.
    Requested(Signal),
    /// The parent is gone.
    RuntimeGone(Signal),
}

fn supervise(plan: &Plan, report: &mut Option<ReportWriter>) -> Result<Exit, SetupError> {
    let signals = Signals::block().map_err(os("blocking signals"))?;
    nix::sys::prctl::set_child_subreaper(true)
        .map_err(|e| os("becoming a child subreaper")(e.into()))?;
    nix::sys::prctl::set_pdeathsig(signals::PARENT_DEATH_SIGNAL)
        .map_err(|e| os("asking for a parent-death signal")(e.into()))?;
    let parent = Pid::from_raw(plan.parent);
    let pending = PendingEvidence::create(&plan.evidence).map_err(os("preparing evidence"))?;
    if getppid() != parent {
        // The engine died before the parent-death signal was armed: run nothing.
        let evidence = evidence(plan, Termination::KilledRuntimeGone, None, 0, 0);
        let _ = pending.commit(&evidence);
        return Ok(Exit::Signal(signals::PARENT_DEATH_SIGNAL));
    }
    plan.hardening.apply().map_err(os("hardening"))?;
    let confinement = match plan.sandbox.as_ref().map(Confinement::build).transpose() {
        Ok(confinement) => confinement.map(Arc::new),
        Err(e) => {
            if let Some(writer) = report.take() {
                writer.send(&Report::SandboxFailed(encode_failure(&e)));
            }
            return Ok(Exit::Code(SETUP_EXIT));
        }
    };
    let start = Instant::now();
    let spawned = command(plan, signals.original(), confinement.clone()).spawn();
    let child = match spawned {
        Ok(child) => child,
        Err(e) => {
            // The command (and the hook's reference) is gone: the report pipe is at EOF.
            let failure = confinement
                .and_then(|c| Arc::try_unwrap(c).ok())
                .and_then(Confinement::failure);
            if let Some(writer) = report.take() {
                match failure {
                    Some(failure) => {
                        writer.send(&Report::SandboxFailed(encode_failure(&failure)));
                    }
                    None => {
                        let errno = e.raw_os_error().unwrap_or(libc::EIO);
                        writer.send(&Report::SpawnFailed(errno));
                    }
                }
            }
            return Ok(Exit::Code(SETUP_EXIT));
        }
    };
    // The command's metadata calls (and its descendants') are decided by a thread of this
    // process, which lives until the supervisor exits.
    if let Some(confinement) = &confinement
        && let Err(e) = confinement.serve_metadata()
    {
        let mut child = child;
        let _ = child.kill();
        let _ = child.wait();
        if let Some(writer) = report.take() {
            writer.send(&Report::SandboxFailed(encode_failure(&e)));
        }
        return Ok(Exit::Code(SETUP_EXIT));
    }
    let pid = child.id();
    // The child is reaped with waitpid below, together with adopted descendants.
    drop(child);
    if let Some(writer) = report.take() {
        writer.send(&Report::Started(pid));
    }
    release_stdin();
    let Ok(raw) = i32::try_from(pid) else {
        return Ok(Exit::Code(SETUP_EXIT));
    };
    let mut tree = Tree::new(Pid::from_raw(raw));
    let stop = wait(&signals, &mut tree, parent);
    tree.end(&signals);
    let elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (termination, exit) = match (stop, tree.status) {
        (Stop::Exited, Some(WaitStatus::Signaled(_, sig, _))) => (
            Termination::Signaled { signal: sig as i32 },
            Exit::Signal(sig),
        ),
        (Stop::Exited, Some(WaitStatus::Exited(_, code))) => {
            (Termination::Exited { code }, Exit::Code(code))
        }
        (Stop::Requested(sig), _) => (Termination::KilledOnRequest, Exit::Signal(sig)),
        (Stop::RuntimeGone(sig), _) => (Termination::KilledRuntimeGone, Exit::Signal(sig)),
        // Not reachable: the command is only "exited" once waitpid returned its end.
        (Stop::Exited, _) => (
            Termination::Signaled {
                signal: Signal::SIGKILL as i32,
            },
            Exit::Signal(Signal::SIGKILL),
        ),
    };
    let evidence = evidence(plan, termination, Some(pid), elapsed_ms, tree.others);
    // Nowhere to report a failure: stderr is the command's captured stream. A missing evidence
    // file already means "unknown".
    let _ = pending.commit(&evidence);
    Ok(exit)
}

/// The command: the plan's program, `argv[0]`, arguments, cwd and environment, in a process
/// group of its own, with the supervisor's stdio and the signal mask it had from the engine
/// (a child inherits the mask, and the supervisor's blocks what it reads from its signalfd).
fn command(plan: &Plan, mask: SigSet, confinement: Option<Arc<Confinement>>) -> Command {
    let mut cmd = Command::new(&plan.program);
    cmd.arg0(&plan.argv0).args(&plan.args).process_group(0);
    // SAFETY: the hook only calls pthread_sigmask, which is async-signal-safe; it allocates
    // nothing and takes no locks.
    unsafe {
        cmd.pre_exec(move || mask.thread_set_mask().map_err(io::Error::from));
    }
    if let Some(confinement) = confinement {
        // SAFETY: the hook only issues system calls on memory prepared before the fork (see
        // `Confinement::apply_in_child`); it allocates nothing and takes no locks.
        unsafe {
            cmd.pre_exec(move || confinement.apply_in_child());
        }
    }
    if let Some(cwd) = &plan.cwd {
        cmd.current_dir(cwd);
    }
    if plan.clear_env {
        cmd.env_clear();
    }
    for edit in &plan.env {
        match edit {
            EnvEdit::Set(name, value) => cmd.env(name, value),
            EnvEdit::Unset(name) => cmd.env_remove(name),
        };
    }
    cmd
}

/// Points the supervisor's stdin at `/dev/null`, so that, as with a direct child, the command
/// is the only reader of the engine's stdin pipe (a command that stops reading makes the
/// engine's writer fail at once instead of blocking until the supervisor exits).
fn release_stdin() {
    let Ok(null) = std::fs::File::open("/dev/null") else {
        return;
    };
    // SAFETY: dup2 onto fd 0 only swaps which file fd 0 refers to; both descriptors are open
    // and nothing in this process holds fd 0 as an owned handle.
    unsafe {
        libc::dup2(null.as_raw_fd(), 0);
    }
}

/// Waits until the command exits or a stop signal arrives; a command that has already exited
/// when a stop arrives counts as exited (that is what really happened).
fn wait(signals: &Signals, tree: &mut Tree, parent: Pid) -> Stop {
    loop {
        let left = tree.reap();
        if tree.status.is_some() {
            return Stop::Exited;
        }
        if left == Left::None || getppid() != parent {
            // No child at all cannot happen while the command is unreaped; treat it, and a
            // parent that changed without a signal, as the runtime being gone.
            return Stop::RuntimeGone(signals::PARENT_DEATH_SIGNAL);
        }
        if let Wake::Stop(sig) = signals.wait(PARENT_CHECK) {
            tree.reap();
            if tree.status.is_some() {
                return Stop::Exited;
            }
            return if getppid() == parent {
                Stop::Requested(sig)
            } else {
                Stop::RuntimeGone(sig)
            };
        }
    }
}

fn evidence(
    plan: &Plan,
    termination: Termination,
    pid: Option<u32>,
    elapsed_ms: u64,
    descendants_reaped: u32,
) -> Evidence {
    let mut argv = vec![plan.argv0.to_string_lossy().into_owned()];
    argv.extend(plan.args.iter().map(|a| a.to_string_lossy().into_owned()));
    let finished_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    Evidence {
        version: EVIDENCE_VERSION,
        termination,
        elapsed_ms,
        program: plan.program.to_string_lossy().into_owned(),
        argv,
        pid,
        supervisor_pid: std::process::id(),
        descendants_reaped,
        finished_unix_ms,
    }
}
