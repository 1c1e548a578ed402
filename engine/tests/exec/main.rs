//! `x` exec through [`Session`] with real processes: statuses and codes, signals, deadlines that
//! kill grandchildren, cancellation from another thread, environment and stdin rules, spawn
//! failures, non-UTF-8 output, large captures that spill to disk and are read back by range with
//! `/`, and the spool lifecycle (release and session drop delete the files).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::cancel::CancelToken;
use ash_engine::protocol::{Data, ExecResult, ExitKind, Response};
use ash_engine::session::{Session, SessionConfig};
use ash_engine::store::Body;
/// The canonical ASON form of a text cell.
pub use common::cell as quote;
use common::open_session;
use std::time::{Duration, Instant};
use tempfile::TempDir;

#[path = "../common/mod.rs"]
mod common;
mod hardening;
mod lifecycle;
mod status;
mod streams;
mod supervisor;

/// A session on a fresh temp workspace.
pub struct Harness {
    /// The workspace (kept alive for the session).
    pub dir: TempDir,
    /// The session.
    pub session: Session,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// A session with the `ash run` profile and an unlimited output ceiling.
    pub fn new() -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = SessionConfig {
            output_ceiling: u64::MAX,
            ..SessionConfig::run()
        };
        let session = open_session(dir.path(), config, 2);
        Harness { dir, session }
    }

    /// Sends one canonical request and returns the typed answer and its bytes.
    pub fn ask(&mut self, request: &str) -> (Response, String) {
        self.ask_with(request, CancelToken::new())
    }

    /// Like [`Harness::ask`] with a cancellation token.
    pub fn ask_with(&mut self, request: &str, cancel: CancelToken) -> (Response, String) {
        let request = common::request(request);
        let (response, text) = self.session.execute_cancellable(&request, cancel);
        response.validate().expect("answers keep the invariants");
        (response, text)
    }

    /// The bytes behind a reference.
    pub fn retained(&self, alias: u64) -> Vec<u8> {
        common::retained(&self.session, alias)
    }

    /// The store body behind a reference.
    pub fn body(&self, alias: u64) -> Body {
        self.session.store().get(alias).expect("retained")
    }
}

/// An exec request: `x` and a canonical argv vector body like `[-c,"exit 3"]`.
#[allow(clippy::too_many_arguments)] // one parameter per request field keeps call sites readable
pub fn exec(
    id: u64,
    program: &str,
    argv: &str,
    env: &str,
    stdin: &str,
    flags: u8,
    tok: u64,
    ms: u64,
) -> String {
    format!(
        "t:1\ni:{id}\no:x\na{{x,v,c,e,in,f}}:\n{program},{argv},.,{env},{stdin},{flags}\nu{{tok,rec,ms}}:\n{tok},64,{ms}\n"
    )
}

/// `sh -c SCRIPT` with defaults (no env, no stdin, tok 4096, 30 s).
pub fn sh(id: u64, script: &str) -> String {
    exec(
        id,
        "sh",
        &format!("[-c,{}]", quote(script)),
        "[]",
        "~",
        0,
        4096,
        30_000,
    )
}

/// The exec record of an answer.
pub fn data(response: &Response) -> &ExecResult {
    match &response.data {
        Some(Data::Exec(d)) => d,
        other => panic!("expected exec data, got {other:?}"),
    }
}

/// Asserts an exec answer's status, error code, kind and exit code.
pub fn assert_ended(
    response: &Response,
    status: u8,
    code: Option<u16>,
    kind: ExitKind,
    exit: Option<i64>,
) {
    assert_eq!(response.status.as_u8(), status, "{response:?}");
    assert_eq!(
        response.error.as_ref().map(|e| e.code.as_u16()),
        code,
        "{response:?}"
    );
    let d = data(response);
    assert_eq!(d.kind, kind, "{response:?}");
    assert_eq!(d.code, exit, "{response:?}");
}

/// Runs `f` and returns how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}
