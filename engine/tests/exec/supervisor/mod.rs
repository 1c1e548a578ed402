//! Exec under the supervisor (`Session::execute_supervised`), with the real `ash` binary as the
//! supervisor: answers identical to direct spawns, descendants ended on deadline, cancel and
//! engine death, evidence written and read back.

use super::*;
use ash_engine::exec::supervisor::{Evidence, Supervision, Termination, read_evidence};
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use std::path::{Path, PathBuf};

mod evidence;
mod identity;
mod tree;

/// The `ash` binary, which dispatches the supervisor argument.
fn ash() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ash"))
}

/// Evidence files live outside the workspace.
struct Evidences {
    dir: TempDir,
}

impl Evidences {
    fn new() -> Evidences {
        Evidences {
            dir: tempfile::tempdir().expect("evidence dir"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn supervision(&self, name: &str) -> Supervision {
        Supervision {
            program: ash(),
            evidence: self.path(name),
        }
    }

    fn read(&self, name: &str) -> Evidence {
        read_evidence(&self.path(name))
            .expect("readable evidence")
            .expect("evidence written")
    }
}

/// Answers `request` under the supervisor, writing evidence `name`.
fn ask_supervised(
    h: &mut Harness,
    ev: &Evidences,
    name: &str,
    request: &str,
    cancel: CancelToken,
) -> (Response, String) {
    let request = common::request(request);
    let (response, text) =
        h.session
            .execute_supervised(&request, cancel, Some(ev.supervision(name)));
    response.validate().expect("answers keep the invariants");
    (response, text)
}

/// The answer's encoding with the elapsed time zeroed (the only field that varies by run).
fn without_ms(response: &Response) -> String {
    let mut r = response.clone();
    if let Some(Data::Exec(d)) = &mut r.data {
        d.ms = 0;
    }
    r.encode()
}

/// Whether no process `pid` exists any more (not even as a zombie).
fn gone(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH)
}

/// Reads a pid a script wrote, waiting up to 5 s for it to appear.
fn pid_file(path: &Path) -> i32 {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}
