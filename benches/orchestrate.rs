//! Orchestrate mode's parallelism (issue 48: three children of ten tool calls each, against a
//! model with 200 ms latency, finish in ≤ 1.2× the slowest child's time alone). The release
//! binary runs over JSONL with a scripted model whose every generation takes 200 ms
//! (`delay_ms`); each child makes ten `read` calls, one per generation, then answers. The
//! time is the parent's `delegate` call, from its `started` to its `finished` status: one
//! child alone (the slowest: all three do the same), then all three at once
//! (`max_children` 3, the default). The first run of each is a warm-up.
//!
//! Run: `cargo bench -p ansa --bench orchestrate`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CALLS: usize = 10;
const LATENCY_MS: u64 = 200;
const RUNS: usize = 5;

fn main() {
    let exe_path =
        std::env::var("ANSA_BENCH_EXE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ansa").into());
    let mut alone = Vec::new();
    let mut three = Vec::new();
    for run in 0..=RUNS {
        let one = delegate_time(&exe_path, 1);
        let all = delegate_time(&exe_path, 3);
        // The first pair warms the page cache and the binary.
        if run > 0 {
            alone.push(one);
            three.push(all);
        }
    }
    alone.sort();
    three.sort();
    let median = |v: &[Duration]| v[v.len() / 2];
    let ratio = median(&three).as_secs_f64() / median(&alone).as_secs_f64();
    let s = |d: Duration| d.as_secs_f64();
    println!(
        "delegate, {CALLS} tool calls per child, {LATENCY_MS} ms per generation ({RUNS} runs each): \
         one child alone median {:.3} s (min {:.3}, max {:.3}); three children median {:.3} s \
         (min {:.3}, max {:.3}); ratio {ratio:.3} (target ≤ 1.2)",
        s(median(&alone)),
        s(alone[0]),
        s(alone[alone.len() - 1]),
        s(median(&three)),
        s(three[0]),
        s(three[three.len() - 1]),
    );
}

/// The script: the parent delegates `children` tasks, then answers; each child reads a file
/// ten times, one call per 200 ms generation, then answers after another 200 ms.
fn script(children: usize) -> Value {
    let read = json!({"name": "read", "arguments": {"paths": ["notes.txt"], "mode": "lines",
        "offset": 1, "length": 20}});
    let tasks: Vec<Value> = (1..=children)
        .map(|n| json!({"instruction": format!("task {n}"), "profile": "read_only", "scope": []}))
        .collect();
    let mut turns: Vec<Value> = (0..CALLS)
        .map(|_| json!({"delay_ms": LATENCY_MS, "tool_calls": [read]}))
        .collect();
    turns.push(json!({"delay_ms": LATENCY_MS, "text": "read it ten times"}));
    let entries: Vec<Value> = (1..=children)
        .map(|n| json!({"index": n, "turns": turns}))
        .collect();
    json!({
        "turns": [
            {"tool_calls": [{"name": "delegate", "arguments": {"tasks": tasks}}]},
            {"text": "all done"}
        ],
        "children": entries
    })
}

/// The parent's `delegate` call's time with `children` children, in a new session.
fn delegate_time(exe: &str, children: usize) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let (cwd, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script(children).to_string()).unwrap();
    let mut ansa = Command::new(exe)
        .arg("--offline-jsonl")
        .arg("--session")
        .arg(dir.path().join("session"))
        .arg("--script")
        .arg(&script_path)
        .current_dir(&cwd)
        .env("ANSA_HOME", &home)
        .env("HOME", &home)
        .env("NO_COLOR", "1")
        .env_remove("AI_PROVIDER")
        .env_remove("AI_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(ansa.stdout.take().unwrap());
    let snapshot = next(&mut out);
    let incarnation = snapshot["incarnation"].as_str().unwrap().to_owned();
    let mut stdin = ansa.stdin.take().unwrap();
    let submit = json!({"schema_version": 1, "session": "offline", "incarnation": incarnation,
        "turn": 0, "command_id": "bench-1", "type": "submit", "text": "delegate",
        "mode": "orchestrate"});
    writeln!(stdin, "{submit}").unwrap();
    let mut started = None;
    let took = loop {
        let event = next(&mut out);
        let delegate = event["type"] == "tool_status" && event["tool"] == "delegate";
        match event["status"].as_str() {
            Some("started") if delegate => started = Some(Instant::now()),
            Some("finished") if delegate => break started.expect("started first").elapsed(),
            Some("failed") if delegate => panic!("the delegate call failed: {event}"),
            _ => {}
        }
        assert!(
            event["type"] != "done",
            "the turn ended without the call: {event}"
        );
    };
    drop(stdin);
    std::io::copy(&mut out, &mut std::io::sink()).unwrap();
    assert!(ansa.wait().unwrap().success());
    took
}

fn next(out: &mut impl BufRead) -> Value {
    let mut line = String::new();
    assert!(out.read_line(&mut line).unwrap() > 0, "the stream ended");
    serde_json::from_str(&line).unwrap()
}
