//! The engine's side of starting a supervised command: the supervisor's command line, the start
//! report pipe it inherits, and turning its report into the same outcome a direct spawn has.
#![allow(
    unsafe_code,
    reason = "adopting the start-report pipe's descriptor and arranging its inheritance"
)]

use super::args::{EnvEdit, Plan};
use super::report::{self, Report};
use super::{SUPERVISE_ARG, Supervision};
use crate::exec::error::ExecError;
use crate::exec::launch::Launch;
use crate::exec::sandbox::{Confinement, SandboxError, decode_failure};
use crate::protocol::EnvChange;
use nix::fcntl::{FcntlArg, fcntl};
use nix::unistd::Pid;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// How long the supervisor may take to report the start of the command. Starting is a fork and
/// an exec; this bound only matters if the supervisor program is not a supervisor at all.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// The command to spawn for `launch`: the command itself, or its supervisor together with the
/// report pipe the caller must [`Starting::started`] right after spawning.
pub(crate) fn prepare(launch: &Launch) -> Result<Prepared, ExecError> {
    let Some(supervision) = launch.supervision() else {
        return direct(launch);
    };
    let (reader, writer) =
        std::io::pipe().map_err(|e| ExecError::internal("supervisor report pipe", e))?;
    // At 3 or above, so the child's stdio setup cannot overwrite it before exec.
    let raw = fcntl(&writer, FcntlArg::F_DUPFD_CLOEXEC(3))
        .map_err(|e| ExecError::internal("supervisor report pipe", e))?;
    // The original write end closes when this function returns.
    drop(writer);
    // SAFETY: `raw` is a descriptor fcntl just created for us and nothing else owns.
    let writer = unsafe { OwnedFd::from_raw_fd(raw) };
    let plan = plan(launch, supervision, writer.as_raw_fd())?;
    let mut cmd = Command::new(&supervision.program);
    cmd.arg(SUPERVISE_ARG).args(plan.encode()).process_group(0);
    // The supervisor starts in the command's working directory, entered by descriptor, and the
    // command inherits it (the plan names no cwd to reopen by path).
    launch.enter_cwd(&mut cmd);
    // Neither the supervisor nor, through it, the command inherits the withheld variables.
    launch.withhold_env(&mut cmd);
    let fd = writer.as_raw_fd();
    // SAFETY: the hook only clears FD_CLOEXEC on one descriptor with fcntl, which is
    // async-signal-safe; it allocates nothing and takes no locks.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(Prepared {
        command: cmd,
        starting: Some(Starting {
            reader: reader.into(),
            writer,
            requested: launch.requested.clone(),
            program: supervision.program.display().to_string(),
        }),
        confinement: None,
    })
}

/// A command ready to spawn, and what to consult when it has been.
pub(crate) struct Prepared {
    /// The command, or its supervisor.
    pub command: Command,
    /// The supervisor's start report, when supervised.
    pub starting: Option<Starting>,
    /// The sandbox applied in the directly spawned child, when sandboxed and unsupervised.
    pub confinement: Option<Arc<Confinement>>,
}

/// The command spawned directly; a sandbox is built now and applied in the child.
fn direct(launch: &Launch) -> Result<Prepared, ExecError> {
    let mut command = launch.command();
    let Some(policy) = launch.sandbox() else {
        return Ok(Prepared {
            command,
            starting: None,
            confinement: None,
        });
    };
    let restrictions = policy
        .restrictions(launch.workspace_root(), launch.workspace_id())
        .map_err(ExecError::Sandbox)?;
    let confinement = Arc::new(Confinement::build(&restrictions).map_err(ExecError::Sandbox)?);
    let inner = Arc::clone(&confinement);
    // SAFETY: the hook only issues system calls on memory prepared before the fork (see
    // `Confinement::apply_in_child`); it allocates nothing and takes no locks.
    unsafe {
        command.pre_exec(move || inner.apply_in_child());
    }
    Ok(Prepared {
        command,
        starting: None,
        confinement: Some(confinement),
    })
}

/// The error for a direct spawn that failed: the sandbox's, if the child reported one.
pub(crate) fn direct_spawn_error(
    launch: &Launch,
    confinement: Option<Arc<Confinement>>,
    err: &io::Error,
) -> ExecError {
    // The spawned command (and with it the hook's reference) is dropped before this.
    let failure = confinement
        .and_then(|c| Arc::try_unwrap(c).ok())
        .and_then(Confinement::failure);
    match failure {
        Some(e) => ExecError::Sandbox(e),
        None => ExecError::from_spawn(&launch.requested, err),
    }
}

fn plan(launch: &Launch, supervision: &Supervision, report_fd: i32) -> Result<Plan, ExecError> {
    let evidence = std::path::absolute(&supervision.evidence)
        .map_err(|e| ExecError::internal("evidence path", e))?;
    let (argv0, args) = launch.argv();
    let (clear_env, changes) = launch.env_plan();
    let env = changes
        .iter()
        .map(|change| match change {
            EnvChange::Set { name, value } => EnvEdit::Set(name.into(), value.into()),
            EnvChange::Remove(name) => EnvEdit::Unset(name.into()),
        })
        .collect();
    Ok(Plan {
        evidence,
        parent: i32::try_from(std::process::id())
            .map_err(|e| ExecError::internal("own process id", e))?,
        report_fd: Some(report_fd),
        hardening: launch.hardening(),
        sandbox: launch
            .sandbox()
            .map(|p| p.restrictions(launch.workspace_root(), launch.workspace_id()))
            .transpose()
            .map_err(ExecError::Sandbox)?,
        cwd: None,
        clear_env,
        env,
        program: launch.program().to_owned(),
        argv0: argv0.into(),
        args: args.iter().map(Into::into).collect(),
    })
}

/// A spawned supervisor whose start report is still to be read.
pub(crate) struct Starting {
    reader: OwnedFd,
    writer: OwnedFd,
    requested: String,
    program: String,
}

impl Starting {
    /// The error for a supervisor that could not be spawned at all: an argument list too long
    /// is the command's problem (as it would be without supervisor), anything else the engine's.
    pub(crate) fn spawn_error(&self, err: &io::Error) -> ExecError {
        if err.kind() == io::ErrorKind::ArgumentListTooLong {
            return ExecError::from_spawn(&self.requested, err);
        }
        ExecError::Internal(format!(
            "cannot start the exec supervisor {}: {err}",
            self.program
        ))
    }

    /// Reads the report: the command's pid once it runs, or the error a direct spawn of it
    /// would have given. Call right after spawning the supervisor; on error the caller kills
    /// and reaps the supervisor.
    pub(crate) fn started(self) -> Result<Pid, ExecError> {
        let Starting {
            reader,
            writer,
            requested,
            ..
        } = self;
        // Only the supervisor may hold the write end now, so its exit means EOF.
        drop(writer);
        let report = report::receive(reader, START_TIMEOUT)
            .map_err(|e| ExecError::internal("reading the supervisor's report", e))?;
        match report {
            Some(Report::Started(pid)) => i32::try_from(pid)
                .map(Pid::from_raw)
                .map_err(|e| ExecError::internal("supervised process id", e)),
            Some(Report::SpawnFailed(errno)) => Err(ExecError::from_spawn(
                &requested,
                &io::Error::from_raw_os_error(errno),
            )),
            Some(Report::SetupFailed(text)) => Err(ExecError::Internal(text)),
            Some(Report::SandboxFailed(bytes)) => Err(ExecError::Sandbox(
                decode_failure(&bytes).unwrap_or_else(|| {
                    SandboxError::Build(
                        "the exec supervisor reported an unreadable sandbox failure".to_owned(),
                    )
                }),
            )),
            Some(Report::Garbled) => Err(ExecError::Internal(
                "the exec supervisor ended without reporting a start".to_owned(),
            )),
            None => Err(ExecError::Internal(
                "the exec supervisor did not report a start in time".to_owned(),
            )),
        }
    }
}
