//! Servers that fail: one killed mid-call (the call fails, the model is told its tools are
//! withdrawn, the next call restarts it), one that hangs at startup and one that prints
//! garbage (the session stays usable and `mcp_status` says why), and server-everything over
//! streamable HTTP.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{call, everything, everything_script, finished, node, session, user_config};
use crate::harness::{Jsonl, World, eventually, journal_text, only_session_dir};
use crate::processes::alive_with;

fn mcp_status(s: &mut Jsonl) -> Value {
    s.send("mcp_status", json!({}));
    s.expect_type("mcp_servers", &[])
}

/// `mcp_status` asked until server `name` is neither starting nor restarting (states are
/// also published unasked as they change: an `mcp_servers` event read may be one of those,
/// sent before the last change).
fn settled_status(s: &mut Jsonl, name: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let servers = mcp_status(s);
        let state = &row(&servers, name)["state"];
        if (state != "starting" && state != "restarting") || Instant::now() > deadline {
            return servers;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn row<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row for {name}: {servers}"))
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_server_killed_mid_call_fails_the_call_and_the_next_call_restarts_it() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__everything__trigger-long-running-operation", json!({"duration": 60, "steps": 60}))]},
            {"tool_calls": [call("mcp__everything__echo", json!({"message": "after the restart"}))]},
            {"text": "recovered"}
        ]),
        &[],
    );
    let rid = s.submit("run long");
    s.expect_type(
        "tool_status",
        &[
            (
                "tool",
                json!("mcp__everything__trigger-long-running-operation"),
            ),
            ("status", json!("started")),
        ],
    );
    std::thread::sleep(Duration::from_millis(500));
    let victims = alive_with(&marker);
    assert_eq!(victims.len(), 1, "{victims:?}");
    unsafe { libc::kill(victims[0].pid, libc::SIGKILL) };
    let long = finished(&mut s, "mcp__everything__trigger-long-running-operation");
    assert_eq!(long["status"], "failed", "{long}");
    let echo = finished(&mut s, "mcp__everything__echo");
    assert_eq!(
        echo["status"], "finished",
        "the next call restarted the server: {echo}"
    );
    assert_eq!(s.answer(rid), "recovered");
    let restarted = alive_with(&marker);
    assert_eq!(restarted.len(), 1);
    assert_ne!(restarted[0].pid, victims[0].pid);
    assert_eq!(s.finish().0, 0);
    eventually("no server left", || alive_with(&marker).is_empty());
    let journal = journal_text(&only_session_dir(&w));
    assert!(
        journal.contains("MCP server `everything` is not available")
            && journal.contains("withdrawn"),
        "the model is told the tools are withdrawn: {journal}"
    );
}

#[test]
fn a_server_that_hangs_at_startup_leaves_the_session_usable_and_reports_the_timeout() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(
        &w,
        json!({"hang": {"command": "sh", "args": ["-c", format!("sleep 600; : {marker}")],
            "startup_timeout_ms": 1500}}),
        json!({}),
    );
    let mut s = session(&w, json!([{"text": "still usable"}]), &[]);
    let started = Instant::now();
    let rid = s.submit("hello");
    assert_eq!(s.answer(rid), "still usable");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the first request waited at most about the startup timeout: {:?}",
        started.elapsed()
    );
    // The hub's own startup timeout and the first request's wait for it both end about 1.5 s
    // in: a status asked at that moment may still say `starting`, so ask until it changes.
    let servers = settled_status(&mut s, "hang");
    let hang = row(&servers, "hang");
    assert_eq!(hang["state"], "failed", "{servers}");
    let error = hang["last_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("1500 ms") && error.contains("startup_timeout"),
        "{error}"
    );
    assert_eq!(s.finish().0, 0);
    eventually("the hung server to be stopped", || {
        alive_with(&marker).is_empty()
    });
}

#[test]
fn a_server_printing_garbage_fails_with_a_clear_error_and_no_panic() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(
        &w,
        json!({"noisy": {"command": "sh", "args": ["-c",
            format!("echo 'Server starting on port 8080!'; sleep 600; : {marker}")],
            "startup_timeout_ms": 120000}}),
        json!({}),
    );
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__noisy__anything", json!({}))]},
            {"text": "noted"}
        ]),
        &[],
    );
    let rid = s.submit("hello");
    let refused = finished(&mut s, "mcp__noisy__anything");
    assert_eq!(refused["status"], "failed", "{refused}");
    assert_eq!(s.answer(rid), "noted");
    let servers = settled_status(&mut s, "noisy");
    let noisy = row(&servers, "noisy");
    assert_eq!(noisy["state"], "failed", "{servers}");
    let error = noisy["last_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("not JSON-RPC") && error.contains("Server starting on port 8080!"),
        "{error}"
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    eventually("the noisy server to be stopped", || {
        alive_with(&marker).is_empty()
    });
}

/// server-everything's streamable HTTP transport on a free loopback port.
struct HttpEverything {
    child: Child,
    port: u16,
}

impl HttpEverything {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(node())
            .arg(everything_script())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < until,
                "server-everything did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpEverything { child, port }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn server_everything_over_streamable_http() {
    let server = HttpEverything::start();
    let w = World::new();
    user_config(
        &w,
        json!({"web": {"url": format!("http://127.0.0.1:{}/mcp", server.port)}}),
        json!({}),
    );
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [
                call("mcp__web__echo", json!({"message": "over http"})),
                call("mcp__web__trigger-long-running-operation", json!({"duration": 1, "steps": 2}))
            ]},
            {"text": "http done"}
        ]),
        &[],
    );
    let rid = s.submit("use http");
    let echo = finished(&mut s, "mcp__web__echo");
    assert_eq!(echo["status"], "finished", "{echo}");
    assert_eq!(echo["server"], "web");
    let long = finished(&mut s, "mcp__web__trigger-long-running-operation");
    assert_eq!(long["status"], "finished", "{long}");
    assert_eq!(s.answer(rid), "http done");
    assert_eq!(s.finish().0, 0);
    let out = super::outcomes(&only_session_dir(&w));
    assert!(
        out[0]["output"].to_string().contains("Echo: over http"),
        "{}",
        out[0]
    );
    assert!(
        out[1]["output"].to_string().contains("completed"),
        "{}",
        out[1]
    );
}

#[test]
fn a_server_failing_at_start_is_published_unasked_and_stopping_is_not() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(
        &w,
        json!({"quits": {"command": "sh", "args": ["-c", format!("exit 3; : {marker}")]}}),
        json!({}),
    );
    let mut s = session(&w, json!([{"text": "unused"}]), &[]);
    // Nothing asked, nothing submitted: the change of state is news to a frontend.
    let servers = s.expect("the failure, unasked", |v| {
        v["type"] == "mcp_servers" && v["servers"][0]["state"] == "failed"
    });
    let quits = row(&servers, "quits");
    assert_eq!(quits["tools"], 0, "{servers}");
    assert!(
        quits["last_error"].as_str().is_some_and(|e| !e.is_empty()),
        "{servers}"
    );
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    // Stopping the servers with the session is not reported as their exit.
    assert!(
        !events
            .iter()
            .any(|v| v["type"] == "mcp_servers"
                && v.to_string().contains("stopped with the session")),
        "{events:?}"
    );
}
