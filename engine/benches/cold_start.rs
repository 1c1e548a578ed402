//! `ash run` cold start against the reference implementation (issue 22: ≤ 0.5× its time): the
//! whole process answering a cancel of an unknown id, the cheapest request, so the time is what
//! starting costs. The two binaries run alternately, 300 times each, from one working
//! directory; the table is the ratio of the medians. The reference is the binary named by
//! `ASH_REFERENCE` (the one the differential tests use); without it our side is timed alone and
//! a notice says so.
//!
//! Run: `ASH_REFERENCE=/path/to/reference/ash cargo bench -p ash-engine --bench cold_start`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 300;
const CANCEL: &[u8] = b"t:1\ni:1\no:k\na{i}:\n9\nu{tok,rec,ms}:\n64,1,1000\n";

/// One whole-process run of `bin run` answering [`CANCEL`]; the answer must be a success.
fn cold_run(bin: &Path, dir: &Path) -> Duration {
    let t = Instant::now();
    let mut child = Command::new(bin)
        .arg("run")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(CANCEL).unwrap();
    let out = child.wait_with_output().unwrap();
    let elapsed = t.elapsed();
    assert!(out.status.success(), "{} run failed", bin.display());
    assert!(
        out.stdout.starts_with(b"t:3\ni:1\ns:0\n"),
        "{} answered {:?}",
        bin.display(),
        String::from_utf8_lossy(&out.stdout)
    );
    elapsed
}

fn median_ms(mut t: Vec<Duration>) -> f64 {
    t.sort();
    t[t.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_ash"));
    let reference = std::env::var_os("ASH_REFERENCE").map(PathBuf::from);
    if let Some(reference) = &reference {
        assert!(
            reference.is_file(),
            "ASH_REFERENCE {} is not a file",
            reference.display()
        );
    } else {
        println!("ASH_REFERENCE is not set: timing our ash alone (set it to the reference binary)");
    }
    let dir = tempfile::tempdir().unwrap();
    let bins: Vec<&Path> = std::iter::once(ours.as_path())
        .chain(reference.as_deref())
        .collect();
    // Warm both binaries' pages.
    for bin in &bins {
        for _ in 0..10 {
            cold_run(bin, dir.path());
        }
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(RUNS); bins.len()];
    for _ in 0..RUNS {
        for (bin, t) in bins.iter().zip(&mut times) {
            t.push(cold_run(bin, dir.path()));
        }
    }
    let mut medians = times.into_iter().map(median_ms);
    let ours_ms = medians.next().unwrap();
    println!(
        "| `ash run`, a cancel of an unknown id | ours p50 ms | reference p50 ms | ours / reference |"
    );
    println!("|---|---|---|---|");
    match medians.next() {
        Some(theirs) => println!(
            "| {RUNS} alternating runs each | {ours_ms:.2} | {theirs:.2} | {:.2}× |",
            ours_ms / theirs
        ),
        None => println!("| {RUNS} runs | {ours_ms:.2} | – | – |"),
    }
}
