//! Turning validated `x` arguments into a command: the executable rule, the working directory and
//! the environment (docs/contract/ash-protocol.md §3.4). No shell is ever involved.
#![allow(
    unsafe_code,
    reason = "pre-exec hooks (capabilities, process group) of a spawned command"
)]

use super::caps;
use super::error::ExecError;
use super::sandbox::{DirId, SandboxPolicy};
use super::supervisor::Supervision;
use crate::files::workspace::{FsError, Workspace};
use crate::protocol::{EnvChange, ExecArgs, Program};
use nix::unistd::{AccessFlags, access};
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Search path used when neither the child nor this process has `PATH` (glibc's default).
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Variables a sandboxed command does not inherit: they lead to a terminal multiplexer's
/// server (tmux, screen), which runs whatever it is sent outside the sandbox.
pub const SANDBOX_WITHHELD_ENV: [&str; 3] = ["TMUX", "TMUX_PANE", "STY"];

/// Opt-in restrictions applied in the child between fork and exec (or by the exec supervisor
/// before it starts the command); all off by default so `ash` behaves exactly as specified for
/// it, while the agent turns them on for model-run commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExecHardening {
    /// Set `PR_SET_NO_NEW_PRIVS`, so setuid binaries and file capabilities grant nothing.
    pub no_new_privs: bool,
    /// Clear the ambient capability set (ignored where the kernel has none).
    pub clear_ambient_caps: bool,
    /// Clear the inheritable capability set, so no capability survives an exec through it.
    pub clear_inheritable_caps: bool,
}

impl ExecHardening {
    /// Every restriction on.
    pub fn strict() -> Self {
        ExecHardening {
            no_new_privs: true,
            clear_ambient_caps: true,
            clear_inheritable_caps: true,
        }
    }

    fn is_off(self) -> bool {
        !self.no_new_privs && !self.clear_ambient_caps && !self.clear_inheritable_caps
    }

    /// Applies the restrictions to the calling process. Only raw syscalls on stack memory, so
    /// it is async-signal-safe and may run in a forked child.
    pub(crate) fn apply(self) -> std::io::Result<()> {
        if self.clear_ambient_caps {
            caps::clear_ambient()?;
        }
        if self.clear_inheritable_caps {
            caps::clear_inheritable()?;
        }
        if self.no_new_privs {
            nix::sys::prctl::set_no_new_privs().map_err(std::io::Error::from)?;
        }
        Ok(())
    }
}

/// A resolved, ready-to-spawn command.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The executable as requested (`x`); also the child's `argv[0]`.
    pub(crate) requested: String,
    /// The absolute executable path.
    pub(crate) program: PathBuf,
    argv: Vec<String>,
    cwd: PathBuf,
    // The working directory as resolved through directory descriptors; the child enters it
    // by this descriptor (see `enter_cwd`), so a directory swapped for a symlink after
    // resolution cannot move it.
    cwd_fd: Arc<OwnedFd>,
    clear_env: bool,
    env: Vec<EnvChange>,
    withheld_env: Arc<[String]>,
    hardening: ExecHardening,
    supervision: Option<Supervision>,
    // The canonical workspace root, the sandbox's first writable root.
    workspace_root: PathBuf,
    // The identity of the directory the engine opened as the workspace root, which the
    // sandbox's workspace root must still be.
    workspace_id: DirId,
    sandbox: Option<SandboxPolicy>,
}

impl Launch {
    /// Resolves the working directory, the executable and the environment plan of `args`.
    pub fn resolve(args: &ExecArgs, workspace: &Workspace) -> Result<Launch, ExecError> {
        let (cwd, cwd_fd) = resolve_cwd(&args.cwd, workspace)?;
        let root = workspace
            .locate(".")
            .and_then(|at| at.stat())
            .map_err(|e| ExecError::internal("the workspace root's identity", e))?;
        let program = match args.program_kind() {
            Program::Path(logical) => match workspace.resolve(logical) {
                Ok(resolved) => resolved.abs,
                Err(FsError::NotFound { .. }) => return Err(not_found(&args.program)),
                Err(e) => return Err(ExecError::Path(e)),
            },
            Program::Name(name) => search_path(name, &search_list(args), &cwd)?,
        };
        Ok(Launch {
            requested: args.program.clone(),
            program,
            argv: args.argv.clone(),
            cwd,
            cwd_fd: Arc::new(cwd_fd),
            clear_env: args.clear_env,
            env: args.env.clone(),
            withheld_env: Arc::from(Vec::new()),
            hardening: ExecHardening::default(),
            supervision: None,
            workspace_root: workspace.root().to_path_buf(),
            workspace_id: DirId {
                dev: root.st_dev,
                ino: root.st_ino,
            },
            sandbox: None,
        })
    }

    /// The same launch with `hardening` applied to the child.
    pub fn with_hardening(mut self, hardening: ExecHardening) -> Launch {
        self.hardening = hardening;
        self
    }

    /// The same launch run under the OS sandbox `policy` (`None` or mode `off`: unsandboxed).
    /// A policy this kernel cannot enforce makes the exec fail before anything runs.
    pub fn with_sandbox(mut self, policy: Option<SandboxPolicy>) -> Launch {
        self.sandbox = policy.filter(SandboxPolicy::is_enforced);
        self
    }

    /// The sandbox policy the command runs under, if any.
    pub fn sandbox(&self) -> Option<&SandboxPolicy> {
        self.sandbox.as_ref()
    }

    /// The canonical workspace root the command was resolved in.
    pub fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// The identity of the workspace root directory the engine holds open.
    pub fn workspace_id(&self) -> DirId {
        self.workspace_id
    }

    /// The same launch with `names` removed from the environment the command inherits.
    pub fn with_withheld_env(mut self, names: Arc<[String]>) -> Launch {
        self.withheld_env = names;
        self
    }

    /// Removes the withheld variables from what `cmd`'s child inherits (explicit sets of the
    /// request, applied after, still win).
    pub(crate) fn withhold_env(&self, cmd: &mut Command) {
        for name in self.withheld_env.iter() {
            cmd.env_remove(name);
        }
        if self.sandbox.is_some() {
            for name in SANDBOX_WITHHELD_ENV {
                cmd.env_remove(name);
            }
        }
    }

    /// The same launch run under an exec supervisor (`None`: spawned directly).
    pub fn with_supervision(mut self, supervision: Option<Supervision>) -> Launch {
        self.supervision = supervision;
        self
    }

    /// The supervisor this launch runs under, if any.
    pub fn supervision(&self) -> Option<&Supervision> {
        self.supervision.as_ref()
    }

    /// The restrictions applied to the command.
    pub(crate) fn hardening(&self) -> ExecHardening {
        self.hardening
    }

    /// The command's `argv[0]` and arguments.
    pub(crate) fn argv(&self) -> (&str, &[String]) {
        (&self.requested, &self.argv)
    }

    /// Whether the command starts with an empty environment, and the changes applied to it.
    pub(crate) fn env_plan(&self) -> (bool, &[EnvChange]) {
        (self.clear_env, &self.env)
    }

    /// The absolute path that will be executed.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The absolute working directory (as resolved; the child enters it by descriptor).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Makes `cmd`'s child change into the resolved working directory by descriptor. The
    /// caller keeps `self` alive until `cmd` is spawned.
    pub(crate) fn enter_cwd(&self, cmd: &mut Command) {
        let fd = self.cwd_fd.as_raw_fd();
        if proc_fd_available() {
            // The child resolves its own inherited descriptor (closed only at exec), which
            // names the directory object itself, never a path that could be swapped. Keeps
            // the spawn on posix_spawn, whose exec never retries a non-executable file with sh.
            cmd.current_dir(format!("/proc/self/fd/{fd}"));
            return;
        }
        // SAFETY: the hook only calls fchdir, which is async-signal-safe; it allocates nothing
        // and takes no locks. The descriptor is open in the parent while `self` lives and is
        // inherited by the forked child until exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::fchdir(fd) == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// The command, with its own process group; stdio is left to the caller.
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.arg0(&self.requested).args(&self.argv).process_group(0);
        self.enter_cwd(&mut cmd);
        if self.clear_env {
            cmd.env_clear();
        }
        self.withhold_env(&mut cmd);
        for change in &self.env {
            match change {
                EnvChange::Set { name, value } => cmd.env(name, value),
                EnvChange::Remove(name) => cmd.env_remove(name),
            };
        }
        let hardening = self.hardening;
        if !hardening.is_off() {
            // SAFETY: the hook only issues prctl syscalls; it allocates nothing and takes no
            // locks, as required between fork and exec.
            unsafe {
                cmd.pre_exec(move || hardening.apply());
            }
        }
        cmd
    }
}

/// Whether `/proc/self/fd` exists (procfs mounted), checked once.
fn proc_fd_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| std::fs::metadata("/proc/self/fd").is_ok_and(|m| m.is_dir()))
}

fn not_found(program: &str) -> ExecError {
    ExecError::ProgramNotFound {
        program: program.to_owned(),
    }
}

fn resolve_cwd(logical: &str, workspace: &Workspace) -> Result<(PathBuf, OwnedFd), ExecError> {
    let missing = || ExecError::CwdNotFound {
        cwd: logical.to_owned(),
    };
    let resolved = match workspace.resolve(logical) {
        Ok(resolved) => resolved,
        Err(FsError::NotFound { .. }) => return Err(missing()),
        Err(e) => return Err(ExecError::Path(e)),
    };
    let fd = resolved.at.open_dir().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => missing(),
        _ => ExecError::CwdNotADirectory {
            cwd: logical.to_owned(),
        },
    })?;
    Ok((resolved.abs, fd))
}

/// The `PATH` a bare name is searched in: the child's own if its environment has one, else
/// this process's, so that a cleared environment still finds ordinary tools.
fn search_list(args: &ExecArgs) -> OsString {
    let inherited = std::env::var_os("PATH");
    let mut child = if args.clear_env {
        None
    } else {
        inherited.clone()
    };
    for change in &args.env {
        match change {
            EnvChange::Set { name, value } if name == "PATH" => child = Some(value.into()),
            EnvChange::Remove(name) if name == "PATH" => child = None,
            _ => {}
        }
    }
    child.or(inherited).unwrap_or_else(|| FALLBACK_PATH.into())
}

/// `execvp`-style search: the first executable regular file wins; if only non-executable
/// candidates exist the failure is permission denied (400), otherwise not found (201).
fn search_path(name: &str, list: &OsString, cwd: &Path) -> Result<PathBuf, ExecError> {
    let mut denied = None;
    for dir in std::env::split_paths(list) {
        // An empty entry means the current directory, which for the child is its cwd.
        let dir = if dir.as_os_str().is_empty() {
            cwd.to_path_buf()
        } else {
            cwd.join(dir)
        };
        let candidate = dir.join(name);
        if !std::fs::metadata(&candidate).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if access(&candidate, AccessFlags::X_OK).is_ok() {
            return Ok(candidate);
        }
        denied.get_or_insert(candidate);
    }
    match denied {
        Some(path) => Err(ExecError::Spawn {
            program: name.to_owned(),
            kind: std::io::ErrorKind::PermissionDenied,
            message: format!("{} is not executable", path.display()),
        }),
        None => Err(not_found(name)),
    }
}
