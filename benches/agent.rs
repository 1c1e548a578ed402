//! Benchmarks of the `ansa` binary (issue 7 targets):
//! - `ansa --version` start-up (target ≤ 3 ms);
//! - one scripted offline turn of 20 tool calls (reads, searches, lists, a snapshot, an edit,
//!   two execs) end to end, process start to exit, fresh session each run (target ≤ 150 ms
//!   wall excluding the commands' own run time) and its peak RSS (target ≤ 30 MB).
//!
//! Run: `cargo bench -p ansa --bench agent`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]
#![allow(unsafe_code, reason = "getrusage of the children: their peak RSS")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const VERSION_RUNS: usize = 300;
const TURN_RUNS: usize = 40;

fn main() {
    // `ANSA_BENCH_EXE` measures another build (an A/B against an older commit).
    let exe = std::env::var_os("ANSA_BENCH_EXE")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ansa")), PathBuf::from);
    version(&exe);
    turn(&exe);
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{name}: n={} p50={:.2} ms p95={:.2} ms min={:.2} ms",
        times.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.95)),
        ms(times[0]),
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn version(exe: &Path) {
    let mut times = Vec::new();
    for _ in 0..VERSION_RUNS {
        let t = Instant::now();
        let out = Command::new(exe).arg("--version").output().unwrap();
        times.push(t.elapsed());
        assert!(out.status.success());
    }
    report("ansa --version", times);
}

fn read(path: &str) -> Value {
    json!({"name": "read", "arguments": {"paths": [path], "mode": "lines", "offset": 1, "length": 200}})
}

fn search(q: &str) -> Value {
    json!({"name": "search", "arguments": {"query": q, "paths": ["src"], "regex": false, "case_insensitive": false, "include_hidden": false}})
}

fn exec() -> Value {
    json!({"name": "exec", "arguments": {"program": "true", "args": [], "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

/// 20 calls in four rounds, then the answer.
fn script() -> Value {
    let round1: Vec<Value> = (0..6).map(|n| read(&format!("src/mod_{n}.rs"))).collect();
    let mut round2: Vec<Value> = ["fn helper", "struct Item", "TODO", "impl", "let x"]
        .iter()
        .map(|q| search(q))
        .collect();
    round2.push(json!({"name": "list", "arguments": {"paths": ["."], "depth": 3, "include_hidden": false, "kind": "all"}}));
    round2.push(json!({"name": "list", "arguments": {"paths": ["src"], "depth": 1, "include_hidden": false, "kind": "files"}}));
    let round3 = vec![
        json!({"name": "snapshot", "arguments": {"paths": ["."], "depth": 4, "include_hidden": false, "baseline": null}}),
        read("src/lib.rs"),
        read("README.md"),
        json!({"name": "get_test_value", "arguments": {"key": "bench"}}),
    ];
    let round4 = vec![
        json!({"name": "edit", "arguments": {"files": [{"path": "src/lib.rs", "edits": [{"old": "pub fn answer() -> u32 { 41 }", "new": "pub fn answer() -> u32 { 42 }"}]}]}}),
        exec(),
        exec(),
    ];
    let total = round1.len() + round2.len() + round3.len() + round4.len();
    assert_eq!(total, 20);
    json!({"turns": [
        {"tool_calls": round1}, {"tool_calls": round2}, {"tool_calls": round3}, {"tool_calls": round4},
        {"text": "done: {{tool_output:19}}"}
    ]})
}

fn workspace(dir: &Path) {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for n in 0..40 {
        let body: String = (0..120)
            .map(|l| format!("fn helper_{n}_{l}() {{ let x = {l}; /* TODO */ }}\nstruct Item{l};\nimpl Item{l} {{}}\n"))
            .collect();
        std::fs::write(src.join(format!("mod_{n}.rs")), body).unwrap();
    }
    std::fs::write(src.join("lib.rs"), "pub fn answer() -> u32 { 41 }\n").unwrap();
    std::fs::write(dir.join("README.md"), "# bench workspace\n").unwrap();
}

fn turn(exe: &Path) {
    let root = tempfile::tempdir().unwrap();
    let script_path = root.path().join("script.json");
    std::fs::write(&script_path, script().to_string()).unwrap();
    let mut times = Vec::new();
    for run in 0..TURN_RUNS {
        let ws = root.path().join(format!("ws{run}"));
        let home = root.path().join(format!("home{run}"));
        workspace(&ws);
        let t = Instant::now();
        let out = Command::new(exe)
            .args(["--offline", "--script"])
            .arg(&script_path)
            .arg("bench task")
            .current_dir(&ws)
            .env("ANSA_HOME", &home)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        times.push(t.elapsed());
        assert!(
            out.status.success(),
            "run {run} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let answer = String::from_utf8_lossy(&out.stdout);
        assert!(answer.starts_with("done:"), "{answer}");
        let lib = std::fs::read_to_string(ws.join("src/lib.rs")).unwrap();
        assert!(lib.contains("42"), "the edit did not apply");
    }
    report(
        "scripted 20-tool-call offline turn (process start to exit)",
        times,
    );
    println!(
        "peak RSS of the largest child (ansa): {:.1} MB",
        max_rss_children_mb()
    );
    let mut execs = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        Command::new("true").status().unwrap();
        execs.push(t.elapsed());
    }
    report("the turn's own commands: one `true` (2 per turn)", execs);
}

/// Peak resident set of the largest waited-for child, from getrusage(RUSAGE_CHILDREN).
fn max_rss_children_mb() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a full rusage into the pointer we own.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: initialised by the successful call above.
    let usage = unsafe { usage.assume_init() };
    usage.ru_maxrss as f64 / 1024.0
}
