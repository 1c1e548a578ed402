//! `echo` round trip through ansa's client against the server's own time, over stdio.
//! Run: `cargo bench -p ansa-mcp --bench echo` with `ANSA_MCP_MODULES` set (as `cargo xtask
//! test` exports it). Prints a table (p50/p90/min, ms).
//!
//! "Server's own time" is the same server-everything process answering the same `tools/call`
//! written straight to its stdin and read straight from its stdout, one line each way, with no
//! client machinery; "client" is `McpHub::call` (the blocking call, rmcp's service, the stdio
//! transport, result conversion). The difference of the p50s is the client's overhead.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ansa_mcp::{CancelFlag, ChildEnv, McpHub, ServerConfig, ServerName, ServerState, Transport};
use serde_json::{Map, Value, json};

const WARMUP: usize = 200;
const ROUNDS: usize = 2000;

fn modules() -> PathBuf {
    std::env::var_os("ANSA_MCP_MODULES")
        .filter(|m| !m.is_empty())
        .map(PathBuf::from)
        .expect(
            "ANSA_MCP_MODULES is not set: install the packages with `npm install --prefix DIR \
             node@22.23.3 @modelcontextprotocol/server-everything@2026.8.31` and set \
             ANSA_MCP_MODULES=DIR/node_modules (cargo xtask test does this in its cache)",
        )
}

fn stats(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(v[v.len() / 2]), ms(v[v.len() * 9 / 10]), ms(v[0]))
}

/// The server's own time: raw JSON-RPC lines on its pipes.
fn direct(node: &Path, script: &Path) -> Vec<Duration> {
    let mut child = Command::new(node)
        .arg(script)
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut send = |message: Value| {
        let mut bytes = serde_json::to_vec(&message).expect("json");
        bytes.push(b'\n');
        stdin.write_all(&bytes).expect("write");
        stdin.flush().expect("flush");
    };
    let mut answer = |id: u64| loop {
        line.clear();
        assert!(stdout.read_line(&mut line).expect("read") > 0, "EOF");
        let message: Value = serde_json::from_str(&line).expect("json line");
        if message["id"] == id {
            return message;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}),
    );
    answer(0);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut times = Vec::with_capacity(ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        let id = i as u64 + 1;
        let started = Instant::now();
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "hello"}}}));
        let reply = answer(id);
        let took = started.elapsed();
        assert_eq!(reply["result"]["content"][0]["text"], "Echo: hello");
        if i >= WARMUP {
            times.push(took);
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    times
}

/// Through ansa's client.
fn client(node: &Path, script: &Path) -> Vec<Duration> {
    let name = ServerName::new("bench").expect("name");
    let config = ServerConfig::new(
        name.clone(),
        Transport::Stdio {
            command: node.display().to_string(),
            args: vec![script.display().to_string(), "stdio".into()],
            env: BTreeMap::new(),
            cwd: None,
        },
    );
    let logs = tempfile::tempdir().expect("tempdir");
    let base: Vec<(OsString, OsString)> = ["PATH", "HOME"]
        .into_iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (k.into(), v)))
        .collect();
    let hub = McpHub::start(vec![config], logs.path(), ChildEnv { base });
    hub.settle(Instant::now() + Duration::from_secs(60));
    let status = &hub.statuses()[0];
    assert_eq!(status.state, ServerState::Ready, "{:?}", status.last_error);
    let cancel = CancelFlag::new();
    let mut arguments = Map::new();
    arguments.insert("message".into(), "hello".into());
    let mut times = Vec::with_capacity(ROUNDS);
    for i in 0..WARMUP + ROUNDS {
        let started = Instant::now();
        let result = hub
            .call(&name, "echo", arguments.clone(), &cancel)
            .expect("echo");
        let took = started.elapsed();
        assert!(!result.is_error);
        if i >= WARMUP {
            times.push(took);
        }
    }
    hub.shutdown();
    times
}

fn main() {
    let modules = modules();
    let node = modules.join("node/bin/node");
    let script = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(node.is_file(), "{} is missing", node.display());
    assert!(script.is_file(), "{} is missing", script.display());
    println!("| case | p50 ms | p90 ms | min ms |");
    println!("|---|---|---|---|");
    // Alternated twice, so a change of load on the machine shows as a spread between runs.
    for _ in 0..2 {
        let (d50, d90, dmin) = stats(direct(&node, &script));
        println!("| server's own time (raw stdio JSON-RPC) | {d50:.3} | {d90:.3} | {dmin:.3} |");
        let (c50, c90, cmin) = stats(client(&node, &script));
        println!("| through ansa's client (McpHub::call) | {c50:.3} | {c90:.3} | {cmin:.3} |");
        let over = c50 - d50;
        println!(
            "client overhead at p50: {over:.3} ms (target ≤ 1 ms {})",
            if over <= 1.0 { "✔" } else { "✘" }
        );
    }
}
