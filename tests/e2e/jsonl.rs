//! The JSONL driver against the real runtime, journal, engine and tools.

use serde_json::{Value, json};

use crate::harness::{World, alive, eventually, read_pid};

fn offline_answer_for(text: &str) -> String {
    let key = ansa::provider::offline_key(text);
    format!(
        "The test value for {key} is {}.",
        ansa::tools::test_value(&key)
    )
}

#[test]
fn submit_accept_done_then_replay_and_conflict() {
    let w = World::new();
    let mut s = w.jsonl(&[]);
    assert_eq!(s.session, "offline");
    let id = s.send("submit", json!({"text": "what is the value?"}));
    let accepted = s.expect_type("command_accepted", &[("command_id", json!(id))]);
    let rid = accepted["request_id"].as_u64().unwrap();
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("running"))],
    );
    s.expect_type(
        "tool_status",
        &[
            ("tool", json!("get_test_value")),
            ("status", json!("started")),
        ],
    );
    s.expect_type(
        "tool_status",
        &[
            ("tool", json!("get_test_value")),
            ("status", json!("finished")),
        ],
    );
    assert_eq!(s.answer(rid), offline_answer_for("what is the value?"));

    // The same command again is a replay, with the same request.
    s.send_as(&id, "submit", json!({"text": "what is the value?"}));
    let replay = s.expect_type("command_replayed", &[("command_id", json!(id))]);
    assert_eq!(replay["request_id"], json!(rid));
    // The same ID with another text is a conflict.
    s.send_as(&id, "submit", json!({"text": "something else"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "command_conflict");
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    let seqs: Vec<u64> = events
        .iter()
        .map(|e| e["stream_sequence"].as_u64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "gap in {seqs:?}");

    // After a restart the command is still known (deduplicated across processes).
    let dir = crate::harness::only_session_dir(&w);
    let mut again = w.jsonl(&["--session", dir.to_str().unwrap()]);
    again.send_as(&id, "submit", json!({"text": "what is the value?"}));
    let replay = again.expect_type("command_replayed", &[("command_id", json!(id))]);
    assert_eq!(replay["request_id"], json!(rid));
    again.finish();
}

#[test]
fn parse_errors_go_to_stderr_and_as_error_events() {
    let w = World::new();
    let mut s = w.jsonl(&[]);
    s.send_line("{not json");
    let err = s.expect_type("error", &[("code", json!("parse_error"))]);
    assert!(err["message"].as_str().unwrap().contains("line 1"), "{err}");
    s.send_line(&json!({"schema_version":1,"session":"offline","incarnation":"stale","turn":0,"command_id":"x","type":"snapshot","after_sequence":0}).to_string());
    let err = s.expect_type("error", &[("code", json!("parse_error"))]);
    assert!(
        err["message"].as_str().unwrap().contains("incarnation"),
        "{err}"
    );
    let stderr_has = |s: &crate::harness::Jsonl| s.stderr().contains("incarnation");
    eventually("stderr line", || stderr_has(&s));
    s.finish();
}

#[test]
fn cancel_of_a_running_exec_kills_the_process_tree() {
    let w = World::new();
    let pidfile = w.path("grandchild.pid");
    let script = w.script(
        "cancel.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {
                "program": "sh",
                "args": ["-c", format!("sleep 300 & echo $! > {}; wait", pidfile.display())],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "unreachable"}
        ]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("run something long");
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("started"))],
    );
    let grandchild = read_pid(&pidfile);
    assert!(alive(grandchild));
    s.send("cancel", json!({"target": rid}));
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );
    eventually("the grandchild to be gone", || !alive(grandchild));
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[("request_id", json!(rid))]);
    assert_eq!(snap["state"], "cancelled");
    assert_eq!(snap["resume_available"], false);
    s.finish();
}

#[test]
fn a_limit_pauses_and_resume_continues() {
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "tool_rounds": 1}));
    std::fs::write(w.ws().join("a.txt"), "alpha\n").unwrap();
    let read = json!({"name": "read", "arguments": {"paths": ["a.txt"], "mode": "lines", "offset": 1, "length": 5}});
    let script = w.script(
        "limit.json",
        json!([{"tool_calls": [read]}, {"tool_calls": [read]}, {"text": "saw {{tool_output:1}}"}]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("read twice");
    s.expect_type(
        "tool_status",
        &[
            ("tool", json!("read")),
            ("status", json!("started")),
            ("target", json!("a.txt")),
        ],
    );
    let paused = s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("paused"))],
    );
    assert!(
        paused["reason"].as_str().unwrap().contains("tool_rounds"),
        "{paused}"
    );
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[("request_id", json!(rid))]);
    assert_eq!(snap["resume_available"], true);
    // A resume of a turn that is not paused is refused.
    s.send("resume", json!({"target": 99}));
    s.expect_type("error", &[("code", json!("unknown_target"))]);
    s.send("resume", json!({"target": rid}));
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("paused"))],
    );
    s.send("resume", json!({"target": rid}));
    let answer = s.answer(rid);
    assert!(
        answer.starts_with("saw ") && answer.contains("alpha"),
        "{answer}"
    );
    s.finish();
}

#[test]
fn a_response_over_the_call_limit_runs_what_fits_and_each_resume_makes_progress() {
    // 10 calls in one response against tool_calls 4: 4 run, then 4 after a resume, then the
    // last 2 and the answer. Every call runs exactly once.
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "tool_calls": 4}));
    let calls: Vec<Value> = (0..10)
        .map(|n| json!({"name": "get_test_value", "arguments": {"key": format!("k{n}")}}))
        .collect();
    let script = w.script(
        "over.json",
        json!([{"tool_calls": calls}, {"text": "all ten ran"}]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("ten at once");
    for (round, ran, waiting) in [(0, 4, 6), (1, 4, 2)] {
        let paused = s.expect_type(
            "turn_state",
            &[("request_id", json!(rid)), ("state", json!("paused"))],
        );
        let reason = paused["reason"].as_str().unwrap();
        assert!(
            reason.contains(&format!(
                "{ran} calls of the response ran and {waiting} wait"
            )),
            "round {round}: {reason}"
        );
        s.send("resume", json!({"target": rid}));
    }
    assert_eq!(s.answer(rid), "all ten ran");
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    let finished: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_status" && e["status"] == "started")
        .map(|e| e["target"].as_str().unwrap_or(""))
        .collect();
    let expected: Vec<String> = (0..10).map(|n| format!("k{n}")).collect();
    assert_eq!(finished, expected, "each call runs once, in order");
}

#[test]
fn plan_mode_refuses_mutation_tools() {
    let w = World::new();
    let script = w.script(
        "plan.json",
        json!([
            {"tool_calls": [{"name": "files", "arguments": {"actions": [{"kind": "create", "path": "new.txt", "to": null, "content": "x"}]}}]},
            {"text": "tool said: {{tool_output:0}}"}
        ]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let id = s.send("submit", json!({"text": "plan it", "mode": "plan"}));
    let rid = s.expect_type("command_accepted", &[("command_id", json!(id))])["request_id"]
        .as_u64()
        .unwrap();
    s.expect_type(
        "tool_status",
        &[("tool", json!("files")), ("status", json!("failed"))],
    );
    let answer = s.answer(rid);
    assert!(answer.contains("not available in plan mode"), "{answer}");
    assert!(!w.ws().join("new.txt").exists());
    s.finish();
}

#[test]
fn a_second_process_on_one_session_is_busy() {
    let w = World::new();
    let dir = w.path("shared-session");
    let s = w.jsonl(&["--session", dir.to_str().unwrap()]);
    let out = w
        .command(&["--offline-jsonl", "--session", dir.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("busy"), "{stderr}");
    assert!(out.stdout.is_empty());
    s.finish();
}

#[test]
fn transcript_pages_backwards_and_forwards() {
    let w = World::new();
    let mut s = w.jsonl(&[]);
    for n in 0..3 {
        let rid = s.submit(&format!("task {n}"));
        s.answer(rid);
    }
    s.send("transcript", json!({"before": 0, "limit": 2}));
    let page = s.expect_type("transcript", &[]);
    assert_eq!(
        (
            page["begin"].as_u64(),
            page["end"].as_u64(),
            page["total"].as_u64()
        ),
        (Some(5), Some(7), Some(6))
    );
    assert_eq!(page["entries"][0]["text"], "task 2");
    assert_eq!(page["entries"][1]["role"], "assistant");
    s.send("transcript", json!({"before": 5, "limit": 64}));
    let page = s.expect_type("transcript", &[]);
    assert_eq!(page["entries"].as_array().unwrap().len(), 4);
    s.send(
        "transcript",
        json!({"before": 0, "limit": 1, "forward": true}),
    );
    let page = s.expect_type("transcript", &[]);
    assert_eq!(page["entries"][0]["text"], "task 0");
    s.finish();
}

#[test]
fn a_sequence_gap_is_repaired_by_a_snapshot() {
    // A client that stops reading: events overflow the runtime's queue, the stream gets a gap
    // and a resync_required, and a snapshot gives the consistent state and cursor.
    let w = World::new();
    let calls: Vec<Value> = (0..200)
        .map(|n| json!({"name": "get_test_value", "arguments": {"key": format!("k{n}")}}))
        .collect();
    let turns: Vec<Value> = (0..8)
        .flat_map(|_| [json!({"tool_calls": calls.clone()}), json!({"text": "ok"})])
        .collect();
    w.project_config(json!({"schema_version": 1, "tool_calls": 256}));
    let script = w.script("flood.json", json!(turns));
    let (mut s, reading) = w.jsonl_stalled(&["--script", script.to_str().unwrap()]);
    for n in 0..6 {
        s.send("submit", json!({"text": format!("flood {n}")}));
    }
    // Do not read until all six turns are durable in the journal.
    let dir = crate::harness::only_session_dir(&w);
    eventually("six done records", || {
        let n = crate::harness::journal_text(&dir)
            .matches("\"kind\":\"done\"")
            .count();
        n == 6
    });
    reading.send(()).unwrap();
    let mut last = 1u64;
    let mut gap = false;
    loop {
        let ev = s.next().expect("stream ended early");
        let seq = ev["stream_sequence"].as_u64().unwrap();
        gap |= seq != last + 1;
        last = seq;
        if ev["type"] == "resync_required" {
            break;
        }
    }
    assert!(gap, "the overflow left no gap");
    s.send("snapshot", json!({"after_sequence": last}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["state"], "done");
    assert_eq!(snap["transcript_size"], 12);
    assert!(snap["through_sequence"].as_u64().unwrap() > last);
    s.finish();
}

#[test]
fn resume_right_after_done_sees_the_finished_turn() {
    let w = World::new();
    let mut s = w.jsonl(&[]);
    for n in 0..300 {
        let rid = s.submit(&format!("task {n}"));
        s.expect_type("done", &[("request_id", json!(rid))]);
        let cid = s.send("resume", json!({"target": rid}));
        let err = s.expect_type("error", &[("command_id", json!(cid))]);
        let message = err["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("is done, not paused"),
            "round {n}: {message}"
        );
    }
    s.finish();
}

#[test]
fn a_damaged_session_says_why_when_it_opens_and_never_claims_running() {
    let w = World::new();
    // One byte of the tool intent (line 8, after the environment message) changed: its checksum no longer matches.
    let dir = crate::harness::damaged_session(
        &w,
        "\"tool\":\"get_test_value\"",
        "\"tool\":\"get_test_valuE\"",
    );
    let mut s = w.jsonl(&["--session", dir.to_str().unwrap()]);
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["read_only"], true, "{snap}");
    let reason = snap["read_only_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("journal part 000001 line 8") && reason.contains("checksum mismatch"),
        "{reason}"
    );
    assert_ne!(snap["state"], "running", "{snap}");
    assert_eq!(snap["resume_available"], false, "{snap}");
    s.finish();
}

#[test]
fn tool_rows_report_how_each_call_went_and_tool_output_pages_the_stored_output() {
    let w = World::new();
    std::fs::write(w.ws().join("app.py"), "x = 1\ny = 2\n").unwrap();
    let exec = |script: &str| {
        json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
            "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
    };
    let edit = |old: &str, new: &str| json!({"name": "edit", "arguments": {"files": [{"path": "app.py", "edits": [{"old": old, "new": new}]}]}});
    let read = json!({"name": "read", "arguments": {"paths": ["app.py"], "mode": "lines", "offset": 1, "length": 10}});
    let script = w.script(
        "report.json",
        json!([
            {"tool_calls": [exec("seq 1 5; echo boom >&2; exit 2")]},
            {"tool_calls": [read]},
            {"tool_calls": [edit("y = 2\n", "y = 3\nz = 4\n")]},
            {"tool_calls": [edit("not in the file", "w")]},
            {"text": "done"}
        ]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("report everything");
    let ended = |s: &mut crate::harness::Jsonl, tool: &str| {
        s.expect("a finished or failed tool_status", |e| {
            e["type"] == "tool_status" && e["tool"] == tool && e["status"] != "started"
        })
    };
    let exec_done = ended(&mut s, "exec");
    let report = &exec_done["report"];
    assert_eq!(report["tone"], "warn", "{exec_done}");
    assert_eq!(report["summary"], "exit 2");
    assert_eq!(
        report["tail"],
        json!(["boom"]),
        "stderr first when it failed"
    );
    let read_done = ended(&mut s, "read");
    assert_eq!(read_done["report"]["summary"], "2 lines", "{read_done}");
    let edit_done = ended(&mut s, "edit");
    let report = &edit_done["report"];
    assert_eq!(report["summary"], "+2 −1", "{edit_done}");
    assert_eq!(
        report["diffs"][0]["lines"],
        json!([
            {"sign": "removed", "text": "y = 2"},
            {"sign": "added", "text": "y = 3"},
            {"sign": "added", "text": "z = 4"}
        ])
    );
    let refused = ended(&mut s, "edit");
    assert_eq!(refused["status"], "failed", "{refused}");
    assert_eq!(refused["report"]["tone"], "error");
    assert!(
        refused["report"]["summary"]
            .as_str()
            .unwrap()
            .contains("not found"),
        "the reason, not just `failed`: {refused}"
    );
    let exec_call = exec_done["call_id"].clone();
    assert_eq!(s.answer(rid), "done");
    // After the turn, a snapshot says how large the context is against its budget.
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[("request_id", json!(rid))]);
    let (bytes, budget) = (
        snap["context"]["bytes"].as_u64().unwrap(),
        snap["context"]["budget"].as_u64().unwrap(),
    );
    assert!(bytes > 0 && budget > bytes, "{snap}");

    // The latest output, then the exec's by call id, paged by lines.
    s.send("tool_output", json!({"offset": 0, "limit": 256}));
    let latest = s.expect_type("tool_output", &[]);
    assert_eq!(latest["call_id"], refused["call_id"]);
    assert_eq!(latest["tool"], "edit");
    s.send(
        "tool_output",
        json!({"call_id": exec_call, "offset": 1, "limit": 2}),
    );
    let page = s.expect_type("tool_output", &[("call_id", exec_call.clone())]);
    assert_eq!(page["tool"], "exec");
    assert_eq!(page["offset"], 1);
    assert_eq!(page["lines"].as_array().unwrap().len(), 2, "{page}");
    assert!(page["total"].as_u64().unwrap() >= 3, "{page}");
    s.send(
        "tool_output",
        json!({"call_id": "no-such-call", "offset": 0, "limit": 5}),
    );
    let error = s.expect_type("error", &[("code", json!("unknown_target"))]);
    assert!(error["message"].as_str().unwrap().contains("no-such-call"));
    s.finish();

    // A new process finds the output in the journal.
    let mut s = w.jsonl(&["--continue"]);
    s.send(
        "tool_output",
        json!({"call_id": exec_call, "offset": 0, "limit": 256}),
    );
    let again = s.expect_type("tool_output", &[("call_id", exec_call)]);
    assert_eq!(again["total"], page["total"]);
    s.finish();
}
