//! SIGKILL of ansa during an MCP call, then resume: a tool that declared neither
//! `readOnlyHint` nor `idempotentHint` is `effect_unknown` and never re-run; a read-only one
//! gets a failed outcome the model may retry, and the turn resumes.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{call, everything, filesystem, session, user_config};
use crate::harness::{Jsonl, World, eventually, journal_text};
use crate::processes::alive_with;

fn snapshot(s: &mut Jsonl) -> Value {
    s.send("snapshot", json!({"after_sequence": 0}));
    s.expect_type("snapshot", &[])
}

fn restart(w: &World, dir: &Path, script: &Path) -> Jsonl {
    w.jsonl(&[
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ])
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_call_cut_by_a_crash_is_effect_unknown_and_never_re_run() {
    let w = World::new();
    let root = w.ws();
    std::fs::write(root.join("counter.txt"), "runs: x\n").unwrap();
    user_config(&w, json!({"fs": filesystem(&root)}), json!({}));
    // edit_file declares neither readOnlyHint nor idempotentHint; run twice it would add two x.
    let script = w.script(
        "crash.json",
        json!([
            {"tool_calls": [call("mcp__fs__edit_file", json!({
                "path": root.join("counter.txt").display().to_string(),
                "edits": [{"oldText": "runs: x", "newText": "runs: xx"}],
                "dryRun": false}))]},
            {"text": "edited"}
        ]),
    );
    let dir = w.path("session");
    let mut s = w.jsonl_with(
        &[
            "--session",
            dir.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
        // After the server answered, before the outcome is saved.
        &[("ANSA_CRASH_AT", "outcome:before")],
    );
    s.send("submit", json!({"text": "edit"}));
    let status = s.wait_dead();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "the crash point was not reached");
    assert_eq!(
        std::fs::read_to_string(root.join("counter.txt")).unwrap(),
        "runs: xx\n",
        "the edit ran once before the crash"
    );

    let mut s = restart(&w, &dir, &script);
    let unknown = s.expect_type(
        "tool_status",
        &[
            ("tool", json!("mcp__fs__edit_file")),
            ("status", json!("effect_unknown")),
        ],
    );
    assert_eq!(unknown["server"], "fs", "{unknown}");
    let snap = snapshot(&mut s);
    assert_eq!(snap["state"], "paused", "{snap}");
    assert_eq!(snap["resume_available"], false, "{snap}");
    s.send("resume", json!({"target": 1}));
    s.expect_type("error", &[("code", json!("effect_unknown"))]);
    assert_eq!(s.finish().0, 0);
    assert_eq!(
        std::fs::read_to_string(root.join("counter.txt")).unwrap(),
        "runs: xx\n",
        "never re-run"
    );
    let journal = journal_text(&dir);
    assert_eq!(
        journal.matches(r#""kind":"tool_intent""#).count(),
        1,
        "{journal}"
    );
    assert!(journal.contains("whether it did anything on the server's side is unknown"));
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn sigkill_during_a_read_only_call_fails_it_and_the_turn_resumes_without_re_running_it() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__everything__trigger-long-running-operation", json!({"duration": 60, "steps": 60}))]},
            {"text": "resumed"}
        ]),
        &["--session", w.path("session").to_str().unwrap()],
    );
    s.submit("run long");
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
    std::thread::sleep(Duration::from_millis(300));
    s.kill();
    // The server's stdin closed with ansa: it does not outlive it for long.
    eventually("the orphaned server to exit", || {
        alive_with(&marker).is_empty()
    });

    let dir = w.path("session");
    let script = w.path("mcp.json");
    let mut s = restart(&w, &dir, &script);
    let failed = s.expect_type(
        "tool_status",
        &[(
            "tool",
            json!("mcp__everything__trigger-long-running-operation"),
        )],
    );
    assert_eq!(
        failed["status"], "failed",
        "read-only: an ordinary failure: {failed}"
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["resume_available"], true, "{snap}");
    s.send("resume", json!({"target": 1}));
    s.expect_type(
        "done",
        &[("request_id", json!(1)), ("durable", json!(true))],
    );
    assert_eq!(s.finish().0, 0);
    let journal = journal_text(&dir);
    assert_eq!(
        journal.matches(r#""kind":"tool_intent""#).count(),
        1,
        "not re-run: {journal}"
    );
    assert!(journal.contains("declared readOnlyHint"), "{journal}");
}
