//! Exec tests with real processes, pipes and signals.

mod capture;
mod process;
mod spool;

use super::{CaptureLimits, Captured, ExecContext, ExecError, Launch, ProcessOutcome, SpoolRoot};
use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::files::workspace::Workspace;
use crate::protocol::{EnvChange, ExecArgs, Stdin};
use crate::store::{Body, QuotaMeter};
use std::fs;
use std::path::Path;
use tempfile::TempDir;

/// A workspace, a private spool base and a quota account.
pub(super) struct Fixture {
    _dir: TempDir,
    pub(super) ws: Workspace,
    pub(super) spool_base: TempDir,
    pub(super) spool: SpoolRoot,
    pub(super) meter: QuotaMeter,
    pub(super) cancel: CancelToken,
    pub(super) limits: CaptureLimits,
}

impl Fixture {
    pub(super) fn new() -> Fixture {
        Fixture::with_quota(256 << 20)
    }

    pub(super) fn with_quota(bytes: u64) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = Workspace::new(dir.path()).expect("workspace");
        let spool_base = tempfile::tempdir().expect("spool base");
        let (spool, _) =
            SpoolRoot::create(spool_base.path(), super::spool::DEFAULT_IDLE).expect("spool root");
        Fixture {
            _dir: dir,
            ws,
            spool_base,
            spool,
            meter: QuotaMeter::new(bytes),
            cancel: CancelToken::new(),
            limits: CaptureLimits::default(),
        }
    }

    pub(super) fn root(&self) -> &Path {
        self.ws.root()
    }

    /// Writes a workspace file with the given mode.
    pub(super) fn file(&self, logical: &str, content: &[u8], mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.root().join(logical);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(&path, content).expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
    }

    pub(super) fn try_run(
        &self,
        args: &ExecArgs,
        stdin: Option<&Body>,
        deadline_ms: u64,
    ) -> Result<ProcessOutcome, ExecError> {
        let launch = Launch::resolve(args, &self.ws)?;
        let cx = ExecContext {
            deadline: Deadline::after_ms(deadline_ms),
            cancel: &self.cancel,
            meter: &self.meter,
            spool: &self.spool,
            limits: self.limits,
            live: None,
        };
        super::run(&launch, stdin, &cx)
    }

    pub(super) fn run(&self, args: &ExecArgs) -> ProcessOutcome {
        self.try_run(args, None, 60_000).expect("exec runs")
    }

    /// Spool files currently in this fixture's spool root.
    pub(super) fn spool_files(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.spool.dir())
            .expect("spool dir")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("spool-"))
            .collect();
        names.sort();
        names
    }
}

/// `x` arguments: program, argv, cwd `.`, inherited environment, null stdin.
pub(super) fn args(program: &str, argv: &[&str]) -> ExecArgs {
    ExecArgs {
        program: program.to_owned(),
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        cwd: ".".to_owned(),
        env: Vec::new(),
        stdin: Stdin::Null,
        clear_env: false,
    }
}

pub(super) fn sh(script: &str) -> ExecArgs {
    args("sh", &["-c", script])
}

pub(super) fn set(name: &str, value: &str) -> EnvChange {
    EnvChange::Set {
        name: name.to_owned(),
        value: value.to_owned(),
    }
}

/// The resident bytes of a capture as text.
pub(super) fn text(c: &Captured) -> String {
    String::from_utf8(c.bytes().expect("resident capture").to_vec()).expect("utf-8")
}

/// True when the process with this pid is dead: gone, a zombie, or finishing its exit within a
/// short grace (SIGKILL is queued by `killpg` at once, but the kernel completes the exit
/// asynchronously; a process that was not killed would still be running long after).
pub(super) fn process_gone(pid: i32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        if dead(pid) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

fn dead(pid: i32) -> bool {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    if kill(Pid::from_raw(pid), None).is_err() {
        return true;
    }
    // A killed orphan may linger as a zombie if the init process is slow to reap: it is dead.
    fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X')))
    })
}
