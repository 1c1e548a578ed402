//! Benchmark of ask mode (issue 18 targets, p50 ≤ 2 ms each), measured through the JSONL
//! driver of the real binary with a scripted model whose every round is one `exec`:
//! - harness time from the model's tool call to `approval_required`: from the previous
//!   call's `tool_status finished` to the next `approval_required` (the scripted generation in
//!   between takes microseconds; the rest is admission, preparing the call, the engine's
//!   challenge and the synced `approval_requested`);
//! - from writing `approve` to `tool_status started`: parsing, the synced decision, the
//!   permit, the synced intent.
//!
//! Run: `cargo bench -p ansa --bench approval`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Calls per task: within the default `tool_rounds` (32) of one turn.
const ROUNDS: usize = 30;
/// Tasks in the run.
const TASKS: usize = 8;

fn main() {
    let exe = std::env::var_os("ANSA_BENCH_EXE")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ansa")), PathBuf::from);
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let mut turns: Vec<Value> = Vec::new();
    for task in 0..TASKS {
        for n in 0..ROUNDS {
            // A distinct argv each time, so every call is asked about.
            turns.push(json!({"tool_calls": [{"name": "exec", "arguments": {"program": "true",
                "args": [format!("{task}-{n}")], "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]}));
        }
        turns.push(json!({"text": "done"}));
    }
    let script = root.path().join("script.json");
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    let mut child = Command::new(exe)
        .args(["--offline-jsonl", "--ask", "--script"])
        .arg(&script)
        .current_dir(&ws)
        .env("ANSA_HOME", root.path().join("home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut events = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value { serde_json::from_str(&events.next().unwrap().unwrap()).unwrap() };
    let first = next();
    let (session, incarnation) = (first["session"].clone(), first["incarnation"].clone());
    let mut command = |n: usize, body: Value| {
        let mut c = json!({"schema_version": 1, "session": session, "incarnation": incarnation,
            "turn": 0, "command_id": format!("b-{n}")});
        for (k, v) in body.as_object().unwrap() {
            c[k] = v.clone();
        }
        let line = format!("{c}\n");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    command(0, json!({"type": "submit", "text": "bench"}));
    let mut to_ask = Vec::new();
    let mut to_start = Vec::new();
    let mut finished: Option<Instant> = None;
    let mut approved: Option<Instant> = None;
    let mut n = 1;
    let mut tasks = 1;
    loop {
        let ev = next();
        let now = Instant::now();
        match ev["type"].as_str().unwrap() {
            "approval_required" => {
                if let Some(t) = finished.take() {
                    to_ask.push(now - t);
                }
                let t = Instant::now();
                command(
                    n,
                    json!({"type": "approve", "target": ev["request_id"], "call": ev["call_id"], "decision": "once"}),
                );
                approved = Some(t);
                n += 1;
            }
            "tool_status" if ev["status"] == "started" => {
                let Some(t) = approved.take() else {
                    panic!("started without an approval: {ev}")
                };
                to_start.push(now - t);
            }
            "tool_status" if ev["status"] == "finished" => finished = Some(now),
            "done" if tasks == TASKS => break,
            "done" => {
                // Between tasks nothing is measured across the boundary.
                finished = None;
                command(n, json!({"type": "submit", "text": "bench"}));
                n += 1;
                tasks += 1;
            }
            "error" | "turn_state" if ev["state"] != "running" => panic!("unexpected: {ev}"),
            _ => {}
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(to_start.len(), ROUNDS * TASKS);
    report("model's tool call → approval_required", to_ask);
    report("approve → command started", to_start);
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name}: n={} p50={:.3} ms p95={:.3} ms min={:.3} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
    );
}
