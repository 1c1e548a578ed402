//! SIGKILL at every durable boundary of a scripted multi-tool turn, then restart and check:
//! accepted submits survive, done answers survive, no tool with a recorded outcome runs
//! again, and an intent without evidence yields `effect_unknown`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Jsonl, World, alive, eventually, read_pid};

/// A turn of three calls: an exec that counts its runs, a read, then the final answer.
fn script(w: &World) -> std::path::PathBuf {
    let counter = w.path("runs.log");
    w.script(
        "crash.json",
        json!([
            {"tool_calls": [
                {"name": "exec", "arguments": {"program": "sh", "args": ["-c", format!("echo run >> {}", counter.display())],
                    "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}},
                {"name": "get_test_value", "arguments": {"key": "k"}}
            ]},
            {"text": "finished"}
        ]),
    )
}

fn runs(w: &World) -> usize {
    std::fs::read_to_string(w.path("runs.log")).map_or(0, |s| s.lines().count())
}

fn restart(w: &World, dir: &Path, script: &Path) -> Jsonl {
    w.jsonl(&[
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ])
}

/// Resumes turn 1 and checks it finishes with the exec having run exactly once in all.
fn resume_to_the_answer(mut s: Jsonl, w: &World) {
    s.send("resume", json!({"target": 1}));
    assert_eq!(s.answer(1), "finished");
    assert_eq!(
        runs(w),
        1,
        "the exec ran once in all, never again after a crash"
    );
    s.finish();
}

fn snapshot(s: &mut Jsonl) -> Value {
    s.send("snapshot", json!({"after_sequence": 0}));
    s.expect_type("snapshot", &[])
}

/// Crashes at `point`, restarts, and returns the restarted session.
fn crash_at(w: &World, point: &str) -> (Jsonl, std::path::PathBuf, std::path::PathBuf) {
    let dir = w.path("session");
    let script = script(w);
    let mut s = w.jsonl_with(
        &[
            "--session",
            dir.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
        &[("ANSA_CRASH_AT", point)],
    );
    s.send("submit", json!({"text": "crash me"}));
    let status = s.wait_dead();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(9),
        "crash point {point} was not reached"
    );
    (restart(w, &dir, &script), dir, script)
}

#[test]
fn after_acceptance_the_submit_survives_paused() {
    let w = World::new();
    let (mut s, ..) = crash_at(&w, "accepted");
    let snap = snapshot(&mut s);
    assert_eq!(
        (snap["request_id"].as_u64(), snap["state"].as_str()),
        (Some(1), Some("paused"))
    );
    assert_eq!(snap["resume_available"], true);
    assert_eq!(runs(&w), 0);
    resume_to_the_answer(s, &w);
}

#[test]
fn before_the_first_intent_nothing_ran_and_resume_runs_it_once() {
    let w = World::new();
    let (s, ..) = crash_at(&w, "intent:before");
    assert_eq!(runs(&w), 0);
    resume_to_the_answer(s, &w);
}

#[test]
fn after_the_exec_intent_without_evidence_the_effect_is_unknown() {
    let w = World::new();
    let (mut s, dir, _) = crash_at(&w, "intent:after");
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("effect_unknown"))],
    );
    let journal = crate::harness::journal_text(&dir);
    assert!(
        journal.contains(r#""status":"effect_unknown","reconciled":false"#),
        "an unknown effect is not a reconciled outcome: {journal}"
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["state"], "paused");
    assert_eq!(snap["resume_available"], false);
    s.send("resume", json!({"target": 1}));
    s.expect_type("error", &[("code", json!("effect_unknown"))]);
    assert_eq!(runs(&w), 0, "the exec must never be re-run");
    s.finish();
}

#[test]
fn after_the_exec_ran_but_before_its_outcome_the_supervisor_evidence_reconciles() {
    let w = World::new();
    let (mut s, dir, _) = crash_at(&w, "outcome:before");
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("finished"))],
    );
    let journal = crate::harness::journal_text(&dir);
    assert!(
        journal.contains(r#""status":"ok","reconciled":true"#),
        "the outcome recovered from evidence says so: {journal}"
    );
    assert_eq!(runs(&w), 1);
    resume_to_the_answer(s, &w);
}

#[test]
fn after_an_outcome_the_tool_is_not_run_again() {
    let w = World::new();
    let (s, ..) = crash_at(&w, "outcome:after");
    assert_eq!(runs(&w), 1);
    resume_to_the_answer(s, &w);
}

#[test]
fn before_done_the_turn_resumes_to_the_same_answer() {
    let w = World::new();
    let (s, ..) = crash_at(&w, "done:before");
    // The answer and its `done` are synced together, so the crash lost the unsynced answer:
    // Resume generates it again (same generation index) without running any tool again.
    resume_to_the_answer(s, &w);
}

#[test]
fn after_done_the_answer_survives_though_it_was_never_published() {
    let w = World::new();
    let (mut s, ..) = crash_at(&w, "done:after");
    let snap = snapshot(&mut s);
    assert_eq!(snap["state"], "done");
    s.send("transcript", json!({"before": 0, "limit": 64}));
    let page = s.expect_type("transcript", &[]);
    assert_eq!(page["entries"][1]["text"], "finished");
    assert_eq!(runs(&w), 1);
    s.finish();
}

#[test]
fn during_exec_the_supervisor_stops_the_command_and_saves_evidence() {
    let w = World::new();
    let (s, dir, script, cmd) = long_exec_running(&w);
    s.kill();
    eventually("the command to be stopped by its supervisor", || {
        !alive(cmd)
    });
    let mut s = restart(&w, &dir, &script);
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("failed"))],
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["resume_available"], true, "{snap}");
    s.send("resume", json!({"target": 1}));
    assert_eq!(s.answer(1), "after");
    s.finish();
}

#[test]
fn a_killed_supervisor_makes_the_effect_unknown() {
    let w = World::new();
    let (s, dir, script, cmd) = long_exec_running(&w);
    let supervisor = parent_of(cmd);
    sigkill(supervisor);
    let ansa = s.pid();
    s.kill();
    assert!(!alive(ansa));
    let mut s = restart(&w, &dir, &script);
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("effect_unknown"))],
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["resume_available"], false);
    s.finish();
    sigkill(cmd);
}

/// Starts a session whose turn runs a long exec; returns once the command is running.
fn long_exec_running(w: &World) -> (Jsonl, PathBuf, PathBuf, i32) {
    let pidfile = w.path("cmd.pid");
    let script = w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh",
                "args": ["-c", format!("echo $$ > {}; sleep 300", pidfile.display())],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "after"}
        ]),
    );
    let dir = w.path("session");
    let mut s = restart(w, &dir, &script);
    s.submit("long");
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("started"))],
    );
    let cmd = read_pid(&pidfile);
    (s, dir, script, cmd)
}

fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit(')').next().unwrap();
    after.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn sigkill(pid: i32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
}
