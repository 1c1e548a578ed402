//! The OS sandbox through [`Session::execute_sandboxed`] with real processes: every engine-level
//! attack of issue 42 (writes outside by sh and python3, a symlink out, `..`,
//! `/proc/self/root`, hard links, renames, mkdir, truncate, removal, mount, unshare, ptrace and
//! signals to the engine, TCP, UDP, raw and abstract Unix sockets) is refused in
//! workspace-write and read-only mode, directly spawned and under the exec supervisor, with the
//! tree outside hashed before and after; writes that the mode allows still work.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::cancel::CancelToken;
use ash_engine::exec::sandbox::{SandboxMode, SandboxOutcome, SandboxPolicy, probe};
use ash_engine::exec::supervisor::Supervision;
use ash_engine::protocol::{Data, ExecResult, Response};
use ash_engine::session::{Attachments, Reported, Session, SessionConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

#[path = "../common/mod.rs"]
mod common;
mod fs_attacks;
mod metadata;
mod network;
mod process_attacks;
mod review_holes;
mod setup;

/// The modes every attack is tried in.
const MODES: [SandboxMode; 2] = [SandboxMode::WorkspaceWrite, SandboxMode::ReadOnly];

/// How a command is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spawn {
    Direct,
    Supervised,
}

const PATHS: [Spawn; 2] = [Spawn::Direct, Spawn::Supervised];

/// A workspace and a directory beside it (neither under /tmp or $TMPDIR, which are writable
/// roots), and a session on the workspace.
struct Sandboxed {
    base: TempDir,
    ws: PathBuf,
    outside: PathBuf,
    session: Session,
    policy: SandboxPolicy,
    path: Spawn,
}

impl Sandboxed {
    fn new(mode: SandboxMode, network: bool, path: Spawn) -> Sandboxed {
        require_kernel();
        let base = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("base dir");
        let base_path = base.path().canonicalize().expect("canonical base");
        for root in [Path::new("/tmp").to_path_buf(), std::env::temp_dir()] {
            assert!(
                !base_path.starts_with(&root),
                "CARGO_TARGET_TMPDIR {} lies under the writable root {}: run the tests with a target directory outside /tmp and $TMPDIR",
                base_path.display(),
                root.display()
            );
        }
        let ws = base_path.join("ws");
        let outside = base_path.join("outside");
        std::fs::create_dir(&ws).expect("ws");
        std::fs::create_dir_all(outside.join("sub")).expect("outside");
        std::fs::write(outside.join("victim"), b"original\n").expect("victim");
        std::fs::write(outside.join("sub/deep"), b"deep\n").expect("deep");
        std::os::unix::fs::symlink("victim", outside.join("link")).expect("link");
        let session = session_on(&ws);
        Sandboxed {
            base,
            ws,
            outside,
            session,
            policy: SandboxPolicy {
                mode,
                writable: Vec::new(),
                network,
            },
            path,
        }
    }

    /// Runs `sh -c script` in the workspace under the policy.
    fn sh(&mut self, script: &str) -> Reported {
        let request = common::request(&sh_request(script));
        let evidence = self.base.path().join("evidence");
        let attached = Attachments {
            supervision: (self.path == Spawn::Supervised).then(|| Supervision {
                program: PathBuf::from(env!("CARGO_BIN_EXE_ash")),
                evidence: evidence.clone(),
            }),
            tag: None,
            live: None,
        };
        let reported = self.session.execute_sandboxed(
            &request,
            CancelToken::new(),
            &attached,
            Some(&self.policy),
        );
        reported
            .response
            .validate()
            .expect("answers keep the invariants");
        if self.path == Spawn::Supervised && matches!(reported.sandbox, SandboxOutcome::Ran { .. })
        {
            // The supervisor stays outside the sandbox: its evidence (outside the workspace)
            // is written.
            assert!(
                evidence.exists(),
                "supervisor evidence missing: {reported:?}"
            );
            std::fs::remove_file(&evidence).expect("evidence removed");
        }
        reported
    }

    /// Runs an attack: it must fail, leave the tree outside as it was, and (if `denied`) be
    /// reported as a sandbox denial.
    fn refused(&mut self, what: &str, script: &str) -> Reported {
        let before = tree(&self.outside);
        let r = self.sh(script);
        let d = exec_data(&r.response, what);
        assert_ne!(
            d.code,
            Some(0),
            "{what} succeeded ({:?}): {d:?}",
            self.policy.mode
        );
        assert_eq!(
            tree(&self.outside),
            before,
            "{what} changed the tree outside ({:?}): {d:?}",
            self.policy.mode
        );
        r
    }

    fn o(&self, rel: &str) -> String {
        self.outside.join(rel).display().to_string()
    }
}

fn session_on(ws: &Path) -> Session {
    let config = SessionConfig {
        output_ceiling: u64::MAX,
        ..SessionConfig::run()
    };
    common::open_session(ws, config, 2)
}

/// The kernel must offer what the sandbox needs, or every test here fails saying so.
fn require_kernel() {
    let policy = SandboxPolicy {
        mode: SandboxMode::WorkspaceWrite,
        writable: Vec::new(),
        network: false,
    };
    if let Err(e) = policy.check(&probe()) {
        panic!("this kernel cannot run the sandbox tests: {e}");
    }
}

/// python3 must be installed: the attacks use it for sockets, ptrace and plain writes.
fn require_python3() {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "python3 is missing: install it with `apt-get install -y python3`"
    );
}

fn sh_request(script: &str) -> String {
    format!(
        "t:1\ni:1\no:x\na{{x,v,c,e,in,f}}:\nsh,[-c,{}],.,[],~,0\nu{{tok,rec,ms}}:\n100000,64,30000\n",
        common::cell(script)
    )
}

/// The exec record of an answer (a sandbox refusal has none).
fn exec_data<'a>(response: &'a Response, what: &str) -> &'a ExecResult {
    match &response.data {
        Some(Data::Exec(d)) => d,
        other => panic!("{what}: expected exec data, got {other:?} ({response:?})"),
    }
}

fn stderr(r: &Reported) -> String {
    exec_data(&r.response, "stderr")
        .stderr
        .clone()
        .unwrap_or_default()
}

/// Every entry under `dir`: its kind and content (files by BLAKE3, symlinks by target).
fn tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("read dir") {
            let path = entry.expect("entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let rel = path.strip_prefix(dir).expect("under dir").to_path_buf();
            let value = if meta.is_symlink() {
                format!(
                    "link {}",
                    std::fs::read_link(&path).expect("link").display()
                )
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else {
                let bytes = std::fs::read(&path).expect("read");
                format!("file {}", blake3::hash(&bytes))
            };
            out.insert(rel, value);
        }
    }
    out
}

/// A command the sandbox did not restrict: the control for attacks whose refusal could also
/// come from elsewhere (missing rights of the test user, a container's policy).
fn unsandboxed(script: &str) -> std::process::Output {
    Command::new("sh")
        .args(["-c", script])
        .output()
        .expect("sh runs")
}
