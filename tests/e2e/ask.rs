//! Ask mode end to end: every command and change waits for an `approve` from the frontend,
//! the runtime signs a one-time permit for exactly the approved action, and a denied or
//! unanswered call never runs (its proof file never appears).

use serde_json::{Value, json};

use crate::harness::{Jsonl, World, journal_text, only_session_dir};

fn exec(script: &str) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
        "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

fn ask_session(w: &World, turns: Value) -> Jsonl {
    let script = w.script("ask.json", turns);
    w.jsonl(&["--ask", "--script", script.to_str().unwrap()])
}

/// An ask-mode session whose model touches `proof` (a file beside the workspace), then
/// answers `answer`.
fn touch_session(w: &World, proof: &str, answer: &str) -> (Jsonl, std::path::PathBuf) {
    let path = w.path(proof);
    let s = ask_session(
        w,
        json!([
            {"tool_calls": [exec(&format!("touch {}", path.display()))]},
            {"text": answer}
        ]),
    );
    (s, path)
}

fn approval(s: &mut Jsonl) -> Value {
    s.expect_type("approval_required", &[])
}

fn approve(s: &mut Jsonl, ev: &Value, decision: &str, reason: Option<&str>) -> String {
    let mut payload =
        json!({"target": ev["request_id"], "call": ev["call_id"], "decision": decision});
    if let Some(r) = reason {
        payload["reason"] = json!(r);
    }
    s.send("approve", payload)
}

#[test]
fn an_approved_command_runs_once_and_reads_never_ask() {
    let w = World::new();
    std::fs::write(w.ws().join("notes.txt"), "hello\n").unwrap();
    let proof = w.path("approved.proof");
    let mut s = ask_session(
        &w,
        json!([
            {"tool_calls": [{"name": "read", "arguments": {"paths": ["notes.txt"], "mode": "lines", "offset": 1, "length": 5}}]},
            {"tool_calls": [exec(&format!("echo ran >> {}", proof.display()))]},
            {"text": "done"}
        ]),
    );
    let rid = s.submit("touch the proof");
    s.expect_type(
        "tool_status",
        &[("tool", json!("read")), ("status", json!("finished"))],
    );
    let ev = approval(&mut s);
    assert_eq!(ev["tool"], "exec", "{ev}");
    assert_eq!(ev["request_id"], json!(rid));
    assert_eq!(ev["argv"][0], "sh", "{ev}");
    assert!(
        ev["summary"].as_str().unwrap().starts_with("run sh -c"),
        "{ev}"
    );
    assert_eq!(ev["digest"].as_str().unwrap().len(), 64);
    assert!(ev["action"].as_str().unwrap().contains("o:x"), "{ev}");
    assert!(!proof.exists(), "nothing runs before the approval");
    // A snapshot taken while waiting shows the same approval.
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["approval"]["call_id"], ev["call_id"], "{snap}");
    assert_eq!(snap["state"], "running");
    let id = approve(&mut s, &ev, "once", None);
    s.expect_type("command_accepted", &[("command_id", json!(id))]);
    s.expect_type(
        "approval_decided",
        &[
            ("call_id", ev["call_id"].clone()),
            ("decision", json!("once")),
        ],
    );
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("finished"))],
    );
    assert_eq!(s.answer(rid), "done");
    assert_eq!(std::fs::read_to_string(&proof).unwrap(), "ran\n");
    // Sending the same approve again is a replay; another decision is refused.
    s.send_as(
        &id,
        "approve",
        json!({"target": rid, "call": ev["call_id"], "decision": "once"}),
    );
    s.expect_type("command_replayed", &[("command_id", json!(id))]);
    let again = approve(&mut s, &ev, "deny", None);
    let err = s.expect_type("error", &[("command_id", json!(again))]);
    assert_eq!(err["code"], "unknown_target");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("already decided (once)"),
        "{err}"
    );
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    let asked = events
        .iter()
        .filter(|e| e["type"] == "approval_required")
        .count();
    assert_eq!(asked, 1, "only the exec asked");
    let journal = journal_text(&only_session_dir(&w));
    assert!(journal.contains(r#""kind":"approval_requested""#));
    assert!(journal.contains(r#""kind":"approval_decided""#));
    let binding = journal
        .lines()
        .find(|l| l.contains(r#""kind":"binding""#))
        .unwrap();
    assert!(binding.contains(r#""access_mode":"ask""#), "{binding}");
}

#[test]
fn a_denied_command_never_runs_and_the_model_is_told_why() {
    let w = World::new();
    let (mut s, proof) = touch_session(&w, "denied.proof", "understood");
    let rid = s.submit("touch the proof");
    let ev = approval(&mut s);
    approve(&mut s, &ev, "deny", Some("not on this machine"));
    s.expect_type(
        "approval_decided",
        &[
            ("decision", json!("deny")),
            ("reason", json!("not on this machine")),
        ],
    );
    let failed = s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("failed"))],
    );
    assert_eq!(failed["report"]["summary"], "declined: not on this machine");
    assert_eq!(s.answer(rid), "understood");
    s.finish();
    assert!(!proof.exists(), "the denied command never ran");
    let journal = journal_text(&only_session_dir(&w));
    let outcome = journal
        .lines()
        .find(|l| l.contains(r#""kind":"tool_outcome""#))
        .unwrap();
    assert!(
        outcome.contains("the user declined this exec call. Their reason: not on this machine"),
        "{outcome}"
    );
    assert!(
        !journal.contains(r#""kind":"tool_intent""#),
        "a denied call has no intent"
    );
}

#[test]
fn a_session_approval_covers_the_same_action_only() {
    let w = World::new();
    let log = w.path("session.log");
    let same = exec(&format!("echo a >> {}", log.display()));
    let other = exec(&format!("echo b >> {}", log.display()));
    let mut s = ask_session(
        &w,
        json!([
            {"tool_calls": [same.clone()]},
            {"tool_calls": [same]},
            {"tool_calls": [other]},
            {"text": "done"}
        ]),
    );
    let rid = s.submit("log twice");
    let first = approval(&mut s);
    approve(&mut s, &first, "session", None);
    let second = approval(&mut s);
    assert!(
        second["argv"][2].as_str().unwrap().starts_with("echo b"),
        "the repeated action ran without asking; another argv asks: {second}"
    );
    assert_ne!(first["digest"], second["digest"]);
    approve(&mut s, &second, "once", None);
    assert_eq!(s.answer(rid), "done");
    s.finish();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "a\na\nb\n");
}

#[test]
fn wrong_and_stale_approves_get_precise_errors_and_leave_the_turn_waiting() {
    let w = World::new();
    let (mut s, proof) = touch_session(&w, "late.proof", "done");
    let rid = s.submit("touch it");
    let ev = approval(&mut s);
    let id = s.send(
        "approve",
        json!({"target": rid, "call": "no-such-call", "decision": "once"}),
    );
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "unknown_target");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("no call no-such-call")
            && message.contains(ev["call_id"].as_str().unwrap()),
        "{err}"
    );
    let id = s.send(
        "approve",
        json!({"target": 7, "call": ev["call_id"], "decision": "once"}),
    );
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"].as_str().unwrap().contains("no turn 7"),
        "{err}"
    );
    s.send(
        "approve",
        json!({"target": rid, "call": ev["call_id"], "decision": "maybe"}),
    );
    let err = s.expect_type("error", &[("code", json!("parse_error"))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("unknown decision `maybe`"),
        "{err}"
    );
    s.send(
        "approve",
        json!({"target": rid, "call": ev["call_id"], "decision": "once", "reason": "x"}),
    );
    let err = s.expect_type("error", &[("code", json!("parse_error"))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("only a `deny` carries a reason"),
        "{err}"
    );
    let other = json!({"schema_version":1,"session":"live","incarnation":s.incarnation,"turn":0,
        "command_id":"x1","type":"approve","target":rid,"call":ev["call_id"],"decision":"once"});
    s.send_line(&other.to_string());
    let err = s.expect_type("error", &[("code", json!("parse_error"))]);
    assert!(err["message"].as_str().unwrap().contains("`live`"), "{err}");
    assert!(!proof.exists());
    // The turn still waits for the right answer.
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["approval"]["call_id"], ev["call_id"], "{snap}");
    approve(&mut s, &ev, "once", None);
    assert_eq!(s.answer(rid), "done");
    s.finish();
    assert!(proof.exists());
}

#[test]
fn cancel_while_waiting_ends_the_turn_without_running_the_command() {
    let w = World::new();
    let proof = w.path("cancel.proof");
    let mut s = ask_session(
        &w,
        json!([
            {"tool_calls": [exec(&format!("touch {}", proof.display())), {"name": "get_test_value", "arguments": {"key": "k"}}]},
            {"text": "done"}
        ]),
    );
    let rid = s.submit("touch it");
    let ev = approval(&mut s);
    s.send("cancel", json!({"target": rid}));
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );
    let id = approve(&mut s, &ev, "once", None);
    s.expect_type("error", &[("command_id", json!(id))]);
    s.finish();
    assert!(!proof.exists());
    let journal = journal_text(&only_session_dir(&w));
    let outcomes = journal
        .lines()
        .filter(|l| l.contains(r#""kind":"tool_outcome""#))
        .count();
    assert_eq!(
        outcomes, 2,
        "every call of the batch has an outcome: {journal}"
    );
    assert!(journal.contains("cancelled while this call waited for the user's approval"));
}

#[test]
fn sigkill_while_waiting_then_resume_asks_again() {
    let w = World::new();
    let proof = w.path("resumed.proof");
    let script = w.script(
        "ask.json",
        json!([
            {"tool_calls": [exec(&format!("echo ran >> {}", proof.display()))]},
            {"text": "done"}
        ]),
    );
    let dir = w.path("session");
    let args = [
        "--ask",
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    let mut s = w.jsonl(&args);
    let rid = s.submit("touch it");
    let first = approval(&mut s);
    s.kill();

    let mut s = w.jsonl(&args);
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["state"], "paused", "{snap}");
    assert_eq!(snap["resume_available"], true, "{snap}");
    assert!(snap.get("approval").is_none(), "{snap}");
    // The old process's question cannot be answered any more.
    let id = approve(&mut s, &first, "once", None);
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("resume turn 1 to be asked again"),
        "{err}"
    );
    assert!(!proof.exists());
    s.send("resume", json!({"target": rid}));
    let again = approval(&mut s);
    assert_eq!(again["call_id"], first["call_id"]);
    assert_eq!(again["digest"], first["digest"], "the same action");
    approve(&mut s, &again, "once", None);
    assert_eq!(s.answer(rid), "done");
    s.finish();
    assert_eq!(std::fs::read_to_string(&proof).unwrap(), "ran\n");
}

#[test]
fn input_ending_while_waiting_pauses_the_turn() {
    let w = World::new();
    let (mut s, proof) = touch_session(&w, "eof.proof", "done");
    let rid = s.submit("touch it");
    approval(&mut s);
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    let paused = events
        .iter()
        .find(|e| {
            e["type"] == "turn_state" && e["state"] == "paused" && e["request_id"] == json!(rid)
        })
        .unwrap_or_else(|| panic!("no pause in {events:?}"));
    assert!(
        paused["reason"]
            .as_str()
            .unwrap()
            .contains("waited for approval"),
        "{paused}"
    );
    assert!(!proof.exists());
}

#[test]
fn sudo_is_refused_without_asking_and_edits_show_their_diff() {
    let w = World::new();
    std::fs::write(w.ws().join("app.py"), "x = 1\n").unwrap();
    let mut s = ask_session(
        &w,
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sudo", "args": ["true"],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"tool_calls": [{"name": "edit", "arguments": {"files": [{"path": "app.py", "edits": [{"old": "x = 1\n", "new": "x = 2\n"}]}]}}]},
            {"tool_calls": [{"name": "files", "arguments": {"actions": [{"kind": "copy", "path": "app.py", "to": "copy.py", "content": null}]}}]},
            {"text": "done"}
        ]),
    );
    let rid = s.submit("edit");
    let sudo = s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("failed"))],
    );
    assert!(
        sudo["report"]["summary"].as_str().unwrap().contains("sudo"),
        "{sudo}"
    );
    let edit = approval(&mut s);
    assert_eq!(edit["tool"], "edit");
    assert_eq!(edit["summary"], "edit app.py (+1 −1)", "{edit}");
    assert_eq!(
        edit["diffs"][0]["lines"],
        json!([{"sign": "hunk", "text": "line 1"}, {"sign": "removed", "text": "x = 1"}, {"sign": "added", "text": "x = 2"}])
    );
    assert_eq!(
        std::fs::read_to_string(w.ws().join("app.py")).unwrap(),
        "x = 1\n"
    );
    approve(&mut s, &edit, "once", None);
    let files = approval(&mut s);
    assert_eq!(
        files["actions"],
        json!(["copy app.py → copy.py"]),
        "{files}"
    );
    approve(&mut s, &files, "once", None);
    assert_eq!(s.answer(rid), "done");
    let (_, events) = s.finish();
    let asked = events
        .iter()
        .filter(|e| e["type"] == "approval_required")
        .count();
    assert_eq!(asked, 2, "sudo is refused before anything is asked");
    assert_eq!(
        std::fs::read_to_string(w.ws().join("app.py")).unwrap(),
        "x = 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.ws().join("copy.py")).unwrap(),
        "x = 2\n"
    );
}

#[test]
fn ask_mode_without_a_terminal_or_driver_is_refused_up_front() {
    let w = World::new();
    for args in [
        &["--offline", "--ask", "do it"][..],
        &["--offline", "--ask"][..],
    ] {
        let out = w
            .command(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--ask") && err.contains("stdin is not a terminal"),
            "{err}"
        );
    }
    assert!(
        !w.ansa_home().join("sessions").exists(),
        "no session was created"
    );
}

#[test]
fn the_access_mode_is_part_of_the_session_binding() {
    let w = World::new();
    let dir = w.path("bound");
    let session = ["--session", dir.to_str().unwrap()];
    let out = w
        .command(&[&["--offline"][..], &session[..], &["hello"][..]].concat())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = w
        .command(&[&["--offline-jsonl", "--ask"][..], &session[..]].concat())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("access_mode"),
        "the refusal names the field: {err}"
    );
}

#[test]
fn a_write_inside_git_is_asked_every_time_even_after_a_session_approval() {
    // Outside .git, approving an action for the session covers the same action again; inside
    // .git the same action is asked each time, with the danger in its summary.
    let w = World::new();
    std::fs::create_dir_all(w.ws().join(".git")).unwrap();
    let files = |kind: &str| {
        json!({"name": "files", "arguments": {"actions": [{"kind": kind, "path": ".git/hooks-note",
            "to": null, "content": if kind == "create" { json!("x") } else { json!(null) }}]}})
    };
    let mut s = ask_session(
        &w,
        json!([
            {"tool_calls": [files("create")]},
            {"tool_calls": [files("remove")]},
            {"tool_calls": [files("create")]},
            {"text": "done"}
        ]),
    );
    let rid = s.submit("write into .git");
    let first = approval(&mut s);
    let summary = first["summary"].as_str().unwrap();
    assert!(
        summary.contains("inside .git") && summary.contains(".git/hooks-note"),
        "{summary}"
    );
    approve(&mut s, &first, "session", None);
    let second = approval(&mut s);
    approve(&mut s, &second, "session", None);
    let third = approval(&mut s);
    assert_eq!(
        third["digest"], first["digest"],
        "the same action, asked again"
    );
    approve(&mut s, &third, "once", None);
    assert_eq!(s.answer(rid), "done");
    s.finish();
    assert_eq!(
        std::fs::read_to_string(w.ws().join(".git/hooks-note")).unwrap(),
        "x"
    );
}
