//! Helpers for tests that need root (mounting a filesystem, file attributes): they are
//! `#[ignore]`d with the reason (`needs root: …`), and `cargo xtask test` runs them when it
//! runs as root; run with `--ignored` without root they fail saying so instead of passing.

use std::process::Command;

/// Whether this process runs with effective uid 0 (from `/proc/self/status`).
pub fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .expect("a Uid line");
    uid.split_whitespace().nth(1) == Some("0")
}

/// Fails the test unless it runs as root.
pub fn require_root(why: &str) {
    assert!(is_root(), "this test needs root: {why}");
}

/// Runs a real command and fails the test, with its stderr, if it does not succeed.
pub fn run(cmd: &mut Command) {
    let out = cmd.output().expect("spawn");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
