//! Cancel and `tool_timeout_ms` during a call of a real server: server-everything's
//! long-running operation ends at once as cancelled (JSONL `cancel`, how Ctrl+C reaches the
//! runtime) or as timed out, the model reads why, and the same server process takes the next
//! call. server-everything's tool ignores cancellation and says nothing about it, so whether
//! `notifications/cancelled` reaches the server is seen with `probe.mjs`, which logs it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{call, everything, finished, outcomes, probe, session, user_config};
use crate::harness::{Jsonl, World, journal_text, only_session_dir};
use crate::processes::alive_with;

const LONG: &str = "mcp__everything__trigger-long-running-operation";

/// Waits for the call of `tool` to be reported started.
fn started(s: &mut Jsonl, tool: &str) {
    s.expect_type(
        "tool_status",
        &[("tool", json!(tool)), ("status", json!("started"))],
    );
}

fn cancel_turn(s: &mut Jsonl, rid: u64) {
    s.send("cancel", json!({"target": rid}));
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_cancelled_call_ends_at_once_and_the_server_takes_the_next_task() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call(LONG, json!({"duration": 30, "steps": 30}))]},
            {"tool_calls": [call("mcp__everything__echo", json!({"message": "after the cancel"}))]},
            {"text": "the model read: {{tool_output:0}} then {{tool_output:1}}"}
        ]),
        &[],
    );
    let rid = s.submit("run long");
    started(&mut s, LONG);
    let pids = |marker: &str| -> Vec<i32> { alive_with(marker).iter().map(|p| p.pid).collect() };
    let server = pids(&marker);
    assert_eq!(server.len(), 1, "{server:?}");
    std::thread::sleep(Duration::from_millis(500));
    let asked = Instant::now();
    cancel_turn(&mut s, rid);
    let long = finished(&mut s, LONG);
    let took = asked.elapsed();
    assert_eq!(long["status"], "failed", "{long}");
    // The operation has 29 s to go: the call must not wait for it.
    assert!(took < Duration::from_secs(5), "the cancel took {took:?}");
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );

    // The same process (not a restarted one) answers the next task.
    let next = s.submit("echo now");
    let echo = finished(&mut s, "mcp__everything__echo");
    assert_eq!(echo["status"], "finished", "{echo}");
    // The next task's request carries the cancelled call's outcome, then the echo.
    let answer = s.answer(next);
    assert!(
        answer.contains("was cancelled by the user") && answer.contains("Echo: after the cancel"),
        "{answer}"
    );
    assert_eq!(pids(&marker), server, "the server was not restarted");
    assert_eq!(s.finish().0, 0);

    let dir = only_session_dir(&w);
    let out = outcomes(&dir);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["status"], "cancelled", "{}", out[0]);
    let told = out[0]["output"].as_str().unwrap_or_default();
    assert!(
        told.contains("was cancelled by the user")
            && told.contains("effect on the server's side is unknown"),
        "{told}"
    );
    assert_eq!(out[1]["status"], "ok", "{}", out[1]);
    let journal = journal_text(&dir);
    assert_eq!(
        journal.matches(r#""kind":"tool_intent""#).count(),
        2,
        "{journal}"
    );
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_call_past_tool_timeout_ms_times_out_and_the_model_reads_why() {
    let w = World::new();
    let marker = super::marker(&w);
    let mut server = everything(&marker);
    server["tool_timeout_ms"] = json!(1000);
    user_config(&w, json!({"everything": server}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call(LONG, json!({"duration": 30, "steps": 30}))]},
            {"tool_calls": [call("mcp__everything__echo", json!({"message": "after the timeout"}))]},
            {"text": "the model read: {{tool_output:0}} then {{tool_output:1}}"}
        ]),
        &[],
    );
    let rid = s.submit("run long");
    started(&mut s, LONG);
    let from = Instant::now();
    let long = finished(&mut s, LONG);
    let took = from.elapsed();
    assert_eq!(long["status"], "failed", "{long}");
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_secs(6),
        "the call ended {took:?} after it started, the timeout is 1 s"
    );
    let echo = finished(&mut s, "mcp__everything__echo");
    assert_eq!(echo["status"], "finished", "{echo}");
    // What the last request gave the model (`{{tool_output:K}}` counts from 0): why the call
    // ended, then the next call's result.
    let answer = s.answer(rid);
    assert!(
        answer.contains(
            "MCP tool `trigger-long-running-operation` of server `everything` timed out \
             (tool_timeout_ms) and was cancelled"
        ),
        "{answer}"
    );
    assert!(answer.contains("Echo: after the timeout"), "{answer}");
    assert_eq!(s.finish().0, 0);
    let out = outcomes(&only_session_dir(&w));
    assert_eq!(out[0]["status"], "timed_out", "{}", out[0]);
}

/// The probe's log lines saying it saw a request cancelled.
fn cancellations(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(" cancelled: ")).collect()
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn the_server_is_sent_notifications_cancelled_on_cancel_and_on_timeout() {
    let w = World::new();
    let marker = super::marker(&w);
    let mut server = probe(&marker);
    server["tool_timeout_ms"] = json!(1500);
    user_config(&w, json!({"probe": server}), json!({}));
    let wait = call("mcp__probe__wait", json!({"seconds": 60}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [wait.clone()]},
            {"tool_calls": [wait]},
            {"text": "waited"}
        ]),
        &[],
    );
    let rid = s.submit("wait");
    started(&mut s, "mcp__probe__wait");
    std::thread::sleep(Duration::from_millis(300));
    cancel_turn(&mut s, rid);
    let first = finished(&mut s, "mcp__probe__wait");
    assert_eq!(first["status"], "failed", "{first}");
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );
    let log = only_session_dir(&w).join("mcp/probe.log");
    let read = || std::fs::read_to_string(&log).unwrap_or_default();
    crate::harness::eventually("the probe to log the user's cancel", || {
        cancellations(&read()).len() == 1
    });
    assert!(
        cancellations(&read())[0].ends_with("cancelled: cancelled by the user"),
        "{}",
        read()
    );

    let next = s.submit("wait again");
    let second = finished(&mut s, "mcp__probe__wait");
    assert_eq!(second["status"], "failed", "{second}");
    assert_eq!(s.answer(next), "waited");
    crate::harness::eventually("the probe to log the timeout's cancel", || {
        cancellations(&read()).len() == 2
    });
    assert!(
        cancellations(&read())[1].ends_with("cancelled: tool_timeout passed"),
        "{}",
        read()
    );
    assert_eq!(s.finish().0, 0);
    let out: Vec<Value> = outcomes(&only_session_dir(&w));
    assert_eq!(out[0]["status"], "cancelled", "{}", out[0]);
    assert_eq!(out[1]["status"], "timed_out", "{}", out[1]);
}
