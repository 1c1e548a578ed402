//! A crash in the middle of a multi-file edit (issue 40, item 6): ansa is SIGKILLed at the
//! engine's transaction cut points (`ASH_CRASH_AT`, the `crash-points` feature) and started
//! again. Before any tool runs the tree is whole (all old or all new) and the journal is gone;
//! the interrupted call gets the recovered outcome (journaled as reconciled, shown on its tool
//! row, given to the model), so Resume continues instead of stopping at `effect_unknown`.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Jsonl, World, journal_text};

/// Engine forward cut point right after the first of two files is replaced (two staged
/// actions, the manifest, publication, the first temp link, the first rename).
const AFTER_FIRST_REPLACE: &str = "6";
/// Engine forward cut point right after the two-file edit's `COMMITTED` marker is durable.
const AFTER_COMMIT_MARKER: &str = "9";

fn edit_both(w: &World) -> std::path::PathBuf {
    std::fs::write(w.ws().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(w.ws().join("b.txt"), "beta\n").unwrap();
    let change = |path: &str, old: &str, new: &str| json!({"path": path, "edits": [{"old": old, "new": new}]});
    w.script(
        "edit.json",
        json!([
            {"tool_calls": [{"name": "edit", "arguments": {"files": [
                change("a.txt", "alpha\n", "ALPHA\n"),
                change("b.txt", "beta\n", "BETA\n"),
            ]}}]},
            {"text": "the model was told: {{tool_output:0}}"}
        ]),
    )
}

fn files(w: &World) -> (String, String) {
    (
        std::fs::read_to_string(w.ws().join("a.txt")).unwrap(),
        std::fs::read_to_string(w.ws().join("b.txt")).unwrap(),
    )
}

fn open(w: &World, dir: &Path, script: &Path, env: &[(&str, &str)]) -> Jsonl {
    w.jsonl_with(
        &[
            "--session",
            dir.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
        env,
    )
}

/// Runs the edit until ansa kills itself at engine cut point `at`, then starts it again.
fn crash_in_edit(w: &World, at: &str) -> (Jsonl, std::path::PathBuf) {
    let dir = w.path("session");
    let script = edit_both(w);
    let mut s = open(w, &dir, &script, &[("ASH_CRASH_AT", at)]);
    s.send("submit", json!({"text": "edit both"}));
    let status = s.wait_dead();
    assert_eq!(status.signal(), Some(9), "cut point {at} was not reached");
    assert!(
        w.ws().join(".ash/transaction").is_dir(),
        "the crash left the journal"
    );
    (open(w, &dir, &script, &[]), dir)
}

fn edit_row(s: &mut Jsonl) -> Value {
    s.expect("the edit's reconciled tool row", |e| {
        e["type"] == "tool_status" && e["tool"] == "edit"
    })
}

fn snapshot(s: &mut Jsonl) -> Value {
    s.send("snapshot", json!({"after_sequence": 0}));
    s.expect_type("snapshot", &[])
}

#[test]
fn a_crash_after_the_first_file_is_replaced_is_rolled_back_when_ansa_starts_again() {
    let w = World::new();
    let (mut s, dir) = crash_in_edit(&w, AFTER_FIRST_REPLACE);
    // Opening the session recovered the workspace before any tool could run.
    let row = edit_row(&mut s);
    assert_eq!(row["status"], "failed", "{row}");
    assert_eq!(row["report"]["tone"], "warn", "{row}");
    let summary = row["report"]["summary"].as_str().unwrap_or_default();
    assert!(summary.contains("rolled back"), "{row}");
    assert_eq!(files(&w), ("alpha\n".into(), "beta\n".into()), "all old");
    assert!(!w.ws().join(".ash/transaction").exists());
    let journal = journal_text(&dir);
    assert!(
        journal.contains(r#""status":"error","reconciled":true"#),
        "the recovered outcome is journaled as reconciled: {journal}"
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["state"], "paused", "{snap}");
    assert_eq!(snap["resume_available"], true, "{snap}");
    s.send("resume", json!({"target": 1}));
    let answer = s.answer(1);
    assert!(
        answer.contains("rolled back") && answer.contains("none of its changes remain"),
        "the model is told what recovery did: {answer}"
    );
    assert_eq!(files(&w), ("alpha\n".into(), "beta\n".into()));
    s.finish();
}

#[test]
fn a_crash_after_the_commit_marker_is_completed_when_ansa_starts_again() {
    let w = World::new();
    let (mut s, dir) = crash_in_edit(&w, AFTER_COMMIT_MARKER);
    let row = edit_row(&mut s);
    assert_eq!(row["status"], "finished", "{row}");
    assert_eq!(files(&w), ("ALPHA\n".into(), "BETA\n".into()), "all new");
    assert!(!w.ws().join(".ash/transaction").exists());
    let journal = journal_text(&dir);
    assert!(
        journal.contains(r#""status":"ok","reconciled":true"#),
        "{journal}"
    );
    let snap = snapshot(&mut s);
    assert_eq!(snap["resume_available"], true, "{snap}");
    s.send("resume", json!({"target": 1}));
    let answer = s.answer(1);
    assert!(
        answer.contains("all of its changes are in place"),
        "the model is told what recovery did: {answer}"
    );
    s.finish();
}

fn state_dir_litter(w: &World) -> Vec<String> {
    std::fs::read_dir(w.ws())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ash.new-"))
        .collect()
}

#[test]
fn a_kill_while_the_state_directory_is_made_leaves_litter_the_next_start_reclaims() {
    let w = World::new();
    let dir = w.path("session");
    let script = edit_both(&w);
    let mut s = open(&w, &dir, &script, &[("ASH_CRASH_STATE_DIR_AT", "1")]);
    s.send("submit", json!({"text": "edit both"}));
    assert_eq!(
        s.wait_dead().signal(),
        Some(9),
        "the cut point was not reached"
    );
    assert_eq!(
        state_dir_litter(&w).len(),
        1,
        "the kill left the private directory"
    );
    assert!(!w.ws().join(".ash").exists());
    let mut s = open(&w, &dir, &script, &[]);
    // No journal was ever published, so nothing attributes the call: its effect stays unknown.
    let row = edit_row(&mut s);
    assert_eq!(row["status"], "effect_unknown", "{row}");
    // The tools opened the workspace before the first event: the litter is gone.
    assert_eq!(state_dir_litter(&w), Vec::<String>::new());
    assert_eq!(files(&w), ("alpha\n".into(), "beta\n".into()));
    s.finish();
    assert_eq!(state_dir_litter(&w), Vec::<String>::new());
}
