//! Ask mode: every MCP call waits for the user, whose preview shows the server, the tool and
//! all the arguments; a denied call never reaches the server; read-only tools run unasked only
//! where the user allowed it; a project config cannot add a server.

use serde_json::{Value, json};

use super::{call, everything, filesystem, finished, outcomes, session, user_config};
use crate::harness::{Jsonl, World, only_session_dir};

fn approve(s: &mut Jsonl, ev: &Value, decision: &str, reason: Option<&str>) {
    let mut payload =
        json!({"target": ev["request_id"], "call": ev["call_id"], "decision": decision});
    if let Some(r) = reason {
        payload["reason"] = json!(r);
    }
    s.send("approve", payload);
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn ask_mode_approves_and_denies_each_call_with_its_full_arguments_shown() {
    let w = World::new();
    let root = w.ws();
    user_config(&w, json!({"fs": filesystem(&root)}), json!({}));
    let approved = root.join("approved.txt");
    let denied = root.join("denied.txt");
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__fs__write_file", json!({"path": approved.display().to_string(), "content": "yes\nsecond line\n"}))]},
            {"tool_calls": [call("mcp__fs__write_file", json!({"path": denied.display().to_string(), "content": "no\n"}))]},
            {"text": "asked twice"}
        ]),
        &["--ask"],
    );
    let rid = s.submit("write two files");
    let ev = s.expect_type("approval_required", &[]);
    assert_eq!(ev["tool"], "mcp__fs__write_file", "{ev}");
    assert_eq!(
        ev["summary"], "call mcp fs write_file (the server says it may be destructive)",
        "{ev}"
    );
    let rows: Vec<&str> = ev["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let shown = rows.join("\n");
    assert!(shown.contains("MCP server fs, tool write_file"), "{shown}");
    assert!(shown.contains(&approved.display().to_string()), "{shown}");
    assert!(
        shown.contains(r#""content": "yes\nsecond line\n""#),
        "{shown}"
    );
    assert!(!approved.exists(), "nothing runs before the approval");
    approve(&mut s, &ev, "once", None);
    let done = finished(&mut s, "mcp__fs__write_file");
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(
        std::fs::read_to_string(&approved).unwrap(),
        "yes\nsecond line\n"
    );

    let ev = s.expect_type("approval_required", &[]);
    approve(&mut s, &ev, "deny", Some("not that one"));
    let refused = finished(&mut s, "mcp__fs__write_file");
    assert_eq!(refused["status"], "failed", "{refused}");
    assert_eq!(s.answer(rid), "asked twice");
    assert_eq!(s.finish().0, 0);
    assert!(!denied.exists(), "a denied call never reaches the server");
    let out = outcomes(&only_session_dir(&w));
    assert!(
        out[1]["output"].to_string().contains("not that one"),
        "the model reads the reason: {}",
        out[1]
    );
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn read_only_tools_run_unasked_only_where_the_user_allowed_it() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(
        &w,
        json!({"everything": everything(&marker)}),
        json!({"mcp_allow_read_only": true}),
    );
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__everything__echo", json!({"message": "unasked"}))]},
            {"text": "echoed"}
        ]),
        &["--ask"],
    );
    let rid = s.submit("echo");
    let echo = finished(&mut s, "mcp__everything__echo");
    assert_eq!(echo["status"], "finished", "{echo}");
    assert_eq!(s.answer(rid), "echoed");
    let (_, seen) = s.finish();
    assert!(
        !seen.iter().any(|e| e["type"] == "approval_required"),
        "echo declares readOnlyHint and read-only MCP tools are allowed"
    );

    // Without `mcp_allow_read_only` the same call asks.
    let w = World::new();
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__everything__echo", json!({"message": "asked"}))]},
            {"text": "echoed"}
        ]),
        &["--ask"],
    );
    s.submit("echo");
    let ev = s.expect_type("approval_required", &[]);
    assert_eq!(ev["summary"], "call mcp everything echo", "{ev}");
    s.kill();
}

#[test]
fn a_project_config_cannot_add_a_server() {
    let w = World::new();
    let proof = w.path("project-server-ran");
    w.project_config(json!({"mcp_servers": {"evil": {
        "command": "sh", "args": ["-c", format!("touch {}", proof.display())]}}}));
    let out = w.command(&["--offline", "hello"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("mcp_servers"),
        "the refusal names the field: {stderr}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!proof.exists(), "the project's server never ran");
}

#[test]
fn print_config_shows_the_servers_without_their_secrets() {
    let w = World::new();
    user_config(
        &w,
        json!({"tracker": {"command": "tracker-mcp", "args": ["--stdio"],
            "env": {"TRACKER_TOKEN": "s3cret-env-value"}, "tool_timeout_ms": 5000}}),
        json!({"mcp_allow_read_only": true}),
    );
    let out = w.command(&["--print-config"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Compared without whitespace: the output may be pretty-printed.
    let printed: String = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect();
    assert!(printed.contains("tracker-mcp"), "{printed}");
    assert!(printed.contains(r#""TRACKER_TOKEN":"<set>""#), "{printed}");
    assert!(!printed.contains("s3cret-env-value"), "{printed}");
    assert!(
        printed.contains(r#""mcp_allow_read_only":true"#),
        "{printed}"
    );
}
