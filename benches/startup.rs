//! Size and start time of the three installed binaries (issue 21: the release profile is
//! measured): the file size of `ansa`, `ash` and `ash-broker`, and the whole-process time of
//! `--version` and of work each does on every start (`ansa --offline-demo` is a full round
//! trip; `ash run` answers a cancel of an unknown id, its cheapest request), median of 40
//! runs each, alternating.
//!
//! Run: `cargo build --release --workspace --bins && cargo bench -p ansa --bench startup`
//! (the bench profile is the release profile, so all three are beside the bench's `ansa`).
//! `ANSA_BENCH_BIN_DIR` measures the binaries of another directory instead (for example an
//! install root's `bin/`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 40;

fn bin_dir() -> PathBuf {
    match std::env::var_os("ANSA_BENCH_BIN_DIR") {
        Some(dir) => std::fs::canonicalize(&dir).unwrap_or_else(|e| {
            panic!("ANSA_BENCH_BIN_DIR {}: {e}", PathBuf::from(&dir).display())
        }),
        None => Path::new(env!("CARGO_BIN_EXE_ansa"))
            .parent()
            .unwrap()
            .to_path_buf(),
    }
}

/// One whole-process run: `bin args` with `stdin`, in `cwd`; must exit 0.
fn time(bin: &Path, args: &[&str], stdin: &[u8], cwd: &Path, home: &Path) -> Duration {
    let t = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("ANSA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let status = child.wait().unwrap();
    let elapsed = t.elapsed();
    assert!(status.success(), "{} {args:?}", bin.display());
    elapsed
}

fn main() {
    let dir = bin_dir();
    let scratch = tempfile::tempdir().unwrap();
    let (ws, home) = (scratch.path().join("ws"), scratch.path().join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    println!("binaries in {}", dir.display());
    for name in ["ansa", "ash", "ash-broker"] {
        let size = std::fs::metadata(dir.join(name))
            .unwrap_or_else(|e| {
                panic!(
                    "{name} in {}: {e}; build all three first: cargo build --release --workspace --bins",
                    dir.display()
                )
            })
            .len();
        println!("{name:>10}: {:.2} MiB", size as f64 / (1 << 20) as f64);
    }
    let cancel = b"t:1\ni:1\no:k\na{i}:\n9\nu{tok,rec,ms}:\n64,1,1000\n";
    let cases: [(&str, &str, &[&str], &[u8]); 5] = [
        ("ansa --version", "ansa", &["--version"], b""),
        ("ansa --offline-demo", "ansa", &["--offline-demo"], b""),
        ("ash --version", "ash", &["--version"], b""),
        ("ash run (cancel of an unknown id)", "ash", &["run"], cancel),
        ("ash-broker --version", "ash-broker", &["--version"], b""),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..RUNS {
        for (case, runs) in cases.iter().zip(&mut times) {
            runs.push(time(&dir.join(case.1), case.2, case.3, &ws, &home));
        }
    }
    for (case, runs) in cases.iter().zip(&mut times) {
        runs.sort();
        println!(
            "{:>36}: p50 {:.2} ms, min {:.2} ms ({RUNS} runs)",
            case.0,
            runs[RUNS / 2].as_secs_f64() * 1e3,
            runs[0].as_secs_f64() * 1e3
        );
    }
}
