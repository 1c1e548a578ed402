//! `ansa sessions` (table, `--here`, `--json`), `sessions rm` and `sessions prune`, the
//! one-shot's `session ID` line and its exact pause hint, and line mode's `/resume`, `/cancel`,
//! `/status`, `/exit`, all through the built binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{Value, json};

use crate::harness::{World, damaged_session};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `ansa ARGS` in the workspace (or in `cwd`).
fn run(w: &World, args: &[&str], cwd: Option<&Path>) -> Output {
    let mut c = w.command(args);
    if let Some(cwd) = cwd {
        c.current_dir(cwd);
    }
    c.output().unwrap()
}

/// A finished offline one-shot of `task` in `cwd`; its session ID (from the stderr line).
fn one_shot(w: &World, task: &str, cwd: Option<&Path>) -> String {
    let out = run(w, &["--offline", task], cwd);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    session_of(&text(&out.stderr))
}

/// The ID in the one-shot's `ansa: session ID` line.
fn session_of(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("ansa: session "))
        .unwrap_or_else(|| panic!("no `ansa: session ID` line: {stderr}"))
        .trim()
        .to_owned()
}

fn json_rows(w: &World, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["sessions", "--json"];
    args.extend_from_slice(extra);
    let out = run(w, &args, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn other_dir(w: &World) -> PathBuf {
    let d = w.path("other");
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap()
}

#[test]
fn a_one_shot_names_its_session_on_stderr_only() {
    let w = World::new();
    let out = run(&w, &["--offline", "what is the value?"], None);
    assert_eq!(out.status.code(), Some(0));
    let id = session_of(&text(&out.stderr));
    assert!(
        w.ansa_home().join("sessions").join(&id).is_dir(),
        "{id} is the session's directory"
    );
    assert!(
        !text(&out.stdout).contains(&id),
        "stdout keeps only the answer"
    );
    assert_eq!(text(&out.stdout).lines().count(), 1);
}

#[test]
fn the_pause_hint_names_the_exact_session() {
    let w = World::new();
    let script = w.script(
        "s.json",
        json!([{"tool_calls": [{"name": "get_test_value", "arguments": {"key": "a"}}]}]),
    );
    let out = run(
        &w,
        &["--offline", "--script", script.to_str().unwrap(), "task"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let id = session_of(&err);
    assert!(
        err.contains(&format!("ansa --offline --session {id}")),
        "{err}"
    );
    assert!(!err.contains("--continue"), "{err}");
}

#[test]
fn sessions_lists_newest_first_filters_here_and_speaks_json() {
    let w = World::new();
    let other = other_dir(&w);
    let first = one_shot(&w, "first task\nwith a second line", None);
    let elsewhere = one_shot(&w, "elsewhere task", Some(&other));
    let second = one_shot(&w, "second task", None);

    let out = run(&w, &["sessions"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    for heading in [
        "ID",
        "LAST ACTIVE",
        "CWD",
        "STATE",
        "TURNS",
        "MODEL",
        "SIZE",
        "FIRST PROMPT",
    ] {
        assert!(lines[0].contains(heading), "{table}");
    }
    assert!(lines[1].starts_with(&second), "newest first: {table}");
    assert!(lines[2].starts_with(&elsewhere), "{table}");
    assert!(lines[3].starts_with(&first), "{table}");
    assert!(
        lines[3].contains("first task with a second line"),
        "one line: {table}"
    );
    assert!(lines[3].contains("done"), "{table}");

    let here = text(&run(&w, &["sessions", "--here"], None).stdout);
    assert!(here.contains(&first) && here.contains(&second), "{here}");
    assert!(
        !here.contains(&elsewhere),
        "--here leaves other directories out: {here}"
    );

    let rows = json_rows(&w, &[]);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [&second, &elsewhere, &first]);
    let r = &rows[2];
    assert_eq!(r["state"], "done");
    assert_eq!(r["turns"], 1);
    assert_eq!(r["profile"], "offline");
    assert_eq!(r["first_prompt"], "first task with a second line");
    assert_eq!(
        r["cwd"],
        w.ws().canonicalize().unwrap().display().to_string()
    );
    assert!(r["bytes"].as_u64().unwrap() > 0);
    assert!(r["last_activity_ms"].as_u64().unwrap() > 0);
    assert!(r["model"].is_string());
    assert!(r["damage"].is_null());
    assert_eq!(json_rows(&w, &["--here"]).len(), 2);
}

#[test]
fn a_summary_lost_or_stale_is_rebuilt_from_the_journal() {
    let w = World::new();
    let id = one_shot(&w, "remember me", None);
    let dir = w.ansa_home().join("sessions").join(&id);
    std::fs::remove_file(dir.join("summary.json")).unwrap();
    let rows = json_rows(&w, &[]);
    assert_eq!(rows[0]["first_prompt"], "remember me");
    assert_eq!(rows[0]["turns"], 1);
    assert!(dir.join("summary.json").exists(), "saved again");
}

#[test]
fn a_damaged_session_is_listed_with_its_damage() {
    let w = World::new();
    let dir = damaged_session(&w, "hello", "jello");
    let rows = json_rows(&w, &[]);
    assert_eq!(rows.len(), 1, "never hidden: {rows:?}");
    assert_eq!(rows[0]["state"], "read_only");
    let damage = rows[0]["damage"].as_str().unwrap();
    assert!(damage.contains("checksum mismatch"), "{damage}");
    let table = text(&run(&w, &["sessions"], None).stdout);
    assert!(table.contains("read-only"), "{table}");
    assert!(table.contains("damaged: journal part"), "{table}");
    assert!(dir.exists());
}

#[test]
fn rm_deletes_the_session_with_its_evidence_and_refuses_bad_names() {
    let w = World::new();
    let a = one_shot(&w, "one", None);
    let b = one_shot(&w, "two", None);
    let sessions = w.ansa_home().join("sessions");
    let evidence = w.ansa_home().join("runtime").join("evidence");
    assert!(
        evidence.join(&a).is_dir(),
        "the run made its evidence directory"
    );
    std::fs::create_dir_all(sessions.join(&a).join("checkpoints")).unwrap();

    // Every bad name is refused with nothing deleted, even next to a good one.
    let common = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect::<String>();
    for (bad, says) in [
        ("20991231-000000-000000-abcdef", "no session"),
        ("..", "not a session ID"),
        ("../sessions", "not a session ID"),
        (sessions.join(&a).to_str().unwrap(), "not a session ID"),
        (common.as_str(), "matches 2 sessions"),
    ] {
        let out = run(&w, &["sessions", "rm", &a, bad], None);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains(says), "{bad}: {err}");
        assert!(err.contains("nothing was deleted"), "{err}");
        assert!(sessions.join(&a).is_dir() && sessions.join(&b).is_dir());
    }

    let out = run(&w, &["sessions", "rm", &a], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("deleted {a}")));
    assert!(!sessions.join(&a).exists());
    assert!(!evidence.join(&a).exists(), "its evidence went with it");
    assert!(sessions.join(&b).is_dir(), "the other session stays");
    let ids: Vec<Value> = json_rows(&w, &[]).iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [json!(b)]);
}

#[test]
fn a_session_open_elsewhere_is_listed_so_and_never_deleted() {
    let w = World::new();
    let mut open = w.jsonl(&[]);
    let r = open.submit("keep me");
    open.answer(r);
    let id = crate::harness::only_session_dir(&w)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let rows = json_rows(&w, &[]);
    assert_eq!(rows[0]["state"], "open_elsewhere", "{rows:?}");

    let out = run(&w, &["sessions", "rm", &id], None);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("session_busy"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&w, &["sessions", "prune", "--older-than", "0s"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("session_busy"),
        "{}",
        text(&out.stderr)
    );
    let dir = w.ansa_home().join("sessions").join(&id);
    assert!(
        dir.join("session.json").exists(),
        "not deleted under its process"
    );

    // The open session still works and keeps its journal.
    let r = open.submit("still here");
    open.answer(r);
    let (code, _) = open.finish();
    assert_eq!(code, 0);
    assert_eq!(json_rows(&w, &[])[0]["turns"], 2);
}

#[test]
fn prune_deletes_old_sessions_and_reclaims_orphaned_evidence() {
    let w = World::new();
    let a = one_shot(&w, "old one", None);
    let evidence = w.ansa_home().join("runtime").join("evidence");
    let orphan = evidence.join("20200101-000000-000000-abcdef");
    std::fs::create_dir_all(&orphan).unwrap();
    std::fs::write(orphan.join("r1-x.json"), "{}").unwrap();

    // Nothing is 30 days old yet: only the orphan goes.
    let out = run(&w, &["sessions", "prune", "--older-than", "30d"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!orphan.exists(), "{}", text(&out.stdout));
    assert!(w.ansa_home().join("sessions").join(&a).is_dir());

    let out = run(&w, &["sessions", "prune", "--older-than", "0s"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(&format!("deleted {a}")),
        "{}",
        text(&out.stdout)
    );
    assert!(!w.ansa_home().join("sessions").join(&a).exists());
    assert!(!evidence.join(&a).exists());

    let out = run(&w, &["sessions", "prune", "--older-than", "30"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unit is missing"),
        "{}",
        text(&out.stderr)
    );
}

/// Line mode over a pipe: `input` is written and stdin closed.
fn lines(w: &World, args: &[&str], input: &str) -> Output {
    let mut child = w
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn line_mode_resumes_a_paused_task_with_slash_resume() {
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "tool_rounds": 1}));
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [{"name": "get_test_value", "arguments": {"key": "a"}}]},
            {"text": "all done"}
        ]),
    );
    let out = lines(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        "the task\n/status\n/resume\n/exit\nnever sent\n",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.contains("task paused"), "{stderr}");
    assert!(stderr.contains("send /resume"), "{stderr}");
    assert!(
        stderr.contains("turn 1 paused"),
        "/status answers: {stderr}"
    );
    assert_eq!(stdout, "all done\n", "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let journal = crate::harness::journal_text(&crate::harness::only_session_dir(&w));
    assert!(!journal.contains("never sent"), "/exit stops reading");
    assert!(
        !journal.contains(r#""text":"/resume""#),
        "not sent as a task"
    );
    assert!(
        !journal.contains(r#""text":"/status""#),
        "not sent as a task"
    );
}

#[test]
fn line_mode_drops_a_paused_task_with_slash_cancel_and_runs_the_next() {
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "tool_rounds": 1}));
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [{"name": "get_test_value", "arguments": {"key": "a"}}]},
            {"text": "the next one answered"}
        ]),
    );
    let out = lines(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        "the task\n/cancel\n/cancel\nthe next task\n/status\n",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.contains("task paused"), "{stderr}");
    // The second `/cancel` has nothing left to act on, and says so instead of sending it.
    assert!(
        stderr.contains("no paused task here to resume or cancel"),
        "{stderr}"
    );
    assert!(
        stderr.contains("turn 2"),
        "/status after the next task: {stderr}"
    );
    assert_eq!(stdout, "the next one answered\n", "{stderr}");
    let journal = crate::harness::journal_text(&crate::harness::only_session_dir(&w));
    assert!(journal.contains("the next task"), "{journal}");
    assert!(
        !journal.contains(r#""text":"/cancel""#),
        "not sent as a task"
    );
    assert!(
        journal.contains(r#""action":{"type":"cancel","target":1}"#),
        "/cancel is the cancel command of the paused turn: {journal}"
    );
    assert!(
        journal.contains(r#""request_id":1,"state":"cancelled""#),
        "{journal}"
    );
    assert!(stderr.contains("task cancelled"), "{stderr}");
}
