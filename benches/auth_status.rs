//! `ansa --auth-status` (issue 15 target: ≤ 3 ms p50, no network): the whole process, signed
//! in with a store of real shape, measured over 50 runs.
//!
//! Run: `cargo bench -p ansa --bench auth_status`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "support/signed_in.rs"]
mod signed_in;

use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("ansa");
    signed_in::signed_in_home(&home);
    let mut times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_ansa"))
                .arg("--auth-status")
                .env("ANSA_HOME", &home)
                .output()
                .unwrap();
            assert!(out.status.success() && out.stdout.starts_with(b"{\"account_hash\""));
            t.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "ansa --auth-status, whole process: p50 {:.2} ms, p95 {:.2} ms, min {:.2} ms (50 runs)",
        ms(times[25]),
        ms(times[47]),
        ms(times[0])
    );
}
