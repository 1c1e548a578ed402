//! A running MCP call's progress: ansa asks server-everything's long-running operation for
//! `notifications/progress` (a progress token in the request), and its reports are the call's
//! output so far, which a frontend pages while it runs (Ctrl+O; JSONL `tool_output`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{call, everything, finished, session, user_config};
use crate::harness::World;

const LONG: &str = "mcp__everything__trigger-long-running-operation";

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_running_calls_progress_is_its_output_so_far() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call(LONG, json!({"duration": 4, "steps": 4}))]},
            {"text": "done"}
        ]),
        &[],
    );
    let rid = s.submit("run long");
    s.expect_type(
        "tool_status",
        &[("tool", json!(LONG)), ("status", json!("started"))],
    );
    // The operation reports a step a second; ask until the second one is shown.
    let deadline = Instant::now() + Duration::from_secs(20);
    let page = loop {
        s.send(
            "tool_output",
            json!({"offset": 0, "limit": 50, "view": "readable"}),
        );
        let page = s.expect_type("tool_output", &[]);
        let lines: Vec<&str> = page["lines"]
            .as_array()
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if lines.iter().any(|l| l.starts_with("progress 2/4")) {
            break page;
        }
        assert!(
            Instant::now() < deadline,
            "no second progress report while the call ran: {page}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(page["running"], json!(true), "{page}");
    let lines: Vec<&str> = page["lines"]
        .as_array()
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(
        lines.iter().any(|l| l.starts_with("progress 1/4")),
        "{lines:?}"
    );
    let long = finished(&mut s, LONG);
    assert_eq!(long["status"], "finished", "{long}");
    assert_eq!(s.answer(rid), "done");
}
