//! The first checkpoint of a session in the shadow of the first model request (issue 41):
//! on a generated tree of 10,000 files / 100 MB, one scripted turn whose first model request
//! takes 2 s and whose first call is an `exec`. The wall time from the end of that request to
//! the `exec` starting is what the `before` checkpoint costs the user (target ≤ 0.2 s: the
//! background capture ran during the request); the same turn with an instant model shows the
//! full cost of a first checkpoint, and a turn whose first call is a `read` (no checkpoint)
//! is the baseline of the rest of the path.
//!
//! Run: `cargo bench -p ansa --bench rewind`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const FILES: usize = 10_000;
const BYTES: usize = 100 << 20;
const RUNS: usize = 5;
const LATENCY_MS: u64 = 2_000;

fn main() {
    let exe = std::env::var_os("ANSA_BENCH_EXE")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ansa")), PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    generate(&ws);
    // A user's tree is on disk: 100 MB still being written back would be flushed by the
    // store's first fsyncs and measured as the checkpoint's cost.
    assert!(Command::new("sync").status().unwrap().success());
    std::thread::sleep(Duration::from_secs(2));
    let exec = json!({"name": "exec", "arguments": {"program": "true", "args": [], "cwd": ".",
                      "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}});
    let read = json!({"name": "read", "arguments": {"paths": ["d000/f00000.txt"], "mode": "lines",
                      "offset": 1, "length": 1}});
    for (name, call, delay) in [
        ("read first, 2 s model (no checkpoint)", &read, LATENCY_MS),
        (
            "exec first, 2 s model (background first capture)",
            &exec,
            LATENCY_MS,
        ),
        (
            "exec first, instant model (first capture in the foreground)",
            &exec,
            0,
        ),
    ] {
        let mut added = Vec::new();
        for run in 0..RUNS {
            let home = dir.path().join(format!("home-{name:.4}-{run}"));
            std::fs::create_dir_all(&home).unwrap();
            let script = dir.path().join("script.json");
            let turns = json!({"turns": [
                {"delay_ms": delay, "tool_calls": [call]},
                {"text": "done"},
            ]});
            std::fs::write(&script, turns.to_string()).unwrap();
            let wall = first_call_after(&exe, &ws, &home, &script);
            added.push(wall.saturating_sub(Duration::from_millis(delay)));
        }
        added.sort();
        println!(
            "{name}: after the model answered, the call started in p50={:.0} ms (min {:.0}, max {:.0}; n={RUNS})",
            added[RUNS / 2].as_secs_f64() * 1e3,
            added[0].as_secs_f64() * 1e3,
            added[RUNS - 1].as_secs_f64() * 1e3,
        );
    }
}

/// 10,000 files in 100 directories, 100 MB of incompressible-ish text in all.
fn generate(ws: &Path) {
    let per = BYTES / FILES;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for n in 0..FILES {
        let d = ws.join(format!("d{:03}", n / 100));
        if n % 100 == 0 {
            std::fs::create_dir_all(&d).unwrap();
        }
        let mut body = Vec::with_capacity(per);
        while body.len() < per {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            body.extend_from_slice(format!("{seed:016x}\n").as_bytes());
        }
        body.truncate(per);
        std::fs::write(d.join(format!("f{n:05}.txt")), body).unwrap();
    }
}

/// Time from the submit's acceptance to the first tool call starting.
fn first_call_after(exe: &Path, ws: &Path, home: &Path, script: &Path) -> Duration {
    let mut child = Command::new(exe)
        .args(["--offline-jsonl", "--script"])
        .arg(script)
        .current_dir(ws)
        .env("ANSA_HOME", home.join("ansa"))
        .env("HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let snapshot: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let submit = json!({"schema_version": 1, "session": snapshot["session"],
        "incarnation": snapshot["incarnation"], "turn": 0, "command_id": "bench-1",
        "type": "submit", "text": "go"});
    writeln!(stdin, "{submit}").unwrap();
    let mut accepted = None;
    let mut started = None;
    for line in lines {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        match event["type"].as_str() {
            Some("command_accepted") => accepted = Some(Instant::now()),
            Some("tool_status") if event["status"] == "started" && started.is_none() => {
                started = Some(Instant::now());
            }
            Some("done") => break,
            _ => {}
        }
    }
    drop(stdin);
    child.wait().unwrap();
    started.unwrap() - accepted.unwrap()
}
