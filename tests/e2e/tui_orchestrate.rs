//! Orchestrate mode in the TUI under a real terminal (tmux), at 60×20 and 120×40 with long
//! child tasks: `/orchestrate` and Tab select the mode, each child is a nested row under the
//! `delegate` row (task, state, tool count, time) that fits the width, Ctrl+O opens a child's
//! transcript and ←/→ step through the children, and in ask mode a child's approval is
//! labelled with the child and decided with `y`.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::harness::World;
use crate::tmux::{Tmux, fits};

/// A long instruction, so the rows must cut it.
fn long_task(n: u32) -> String {
    format!(
        "child task {n}: read notes.txt and then summarise every section of it in detail, \
         keeping the headings, the numbers and the names exactly as they are written there"
    )
}

fn read() -> Value {
    json!({"name": "read", "arguments": {"paths": ["notes.txt"], "mode": "lines", "offset": 1, "length": 20}})
}

/// The parent delegates three long tasks; each child reads slowly, then answers.
fn script(w: &World) -> PathBuf {
    let tasks: Vec<Value> = (1..=3)
        .map(|n| json!({"instruction": long_task(n), "profile": "read_only", "scope": []}))
        .collect();
    let children: Vec<Value> = (1..=3)
        .map(|n| {
            json!({"index": n, "turns": [
                {"delay_ms": 1500, "tool_calls": [read()]},
                {"delay_ms": 2500 + 500 * n, "text": format!("summary {n} written")}
            ]})
        })
        .collect();
    let p = w.path("orchestrate.json");
    let body = json!({
        "turns": [
            {"tool_calls": [{"name": "delegate", "arguments": {"tasks": tasks}}]},
            {"text": "the children are done"}
        ],
        "children": children
    });
    std::fs::write(&p, body.to_string()).unwrap();
    p
}

fn children_rows_at(width: u16, height: u16) {
    let w = World::new();
    std::fs::write(w.ws().join("notes.txt"), "# one\n1\n# two\n2\n").unwrap();
    let script = script(&w);
    let t = Tmux::start(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        width,
        height,
    );
    t.wait_text("basic · idle");
    // Tab cycles to orchestrate through plan; `/orchestrate` selects it directly.
    t.keys(&["Tab"]);
    t.wait_text("plan · idle");
    t.keys(&["Tab"]);
    t.wait_text("orchestrate · idle");
    t.keys(&["Tab"]);
    t.wait_text("basic · idle");
    t.type_text("/orchestrate");
    t.keys(&["Enter"]);
    t.wait_text("orchestrate · idle");
    t.type_text("split the reading");
    t.keys(&["Enter"]);
    let screen = t.wait_for("three running children with a tool each", |s| {
        s.contains("├ 1 running 1 tool")
            && s.contains("├ 2 running 1 tool")
            && s.contains("└ 3 running 1 tool")
    });
    fits(&t.screen(), width);
    let rows: Vec<&str> = screen.lines().collect();
    let delegate = rows
        .iter()
        .rposition(|r| r.contains("delegate"))
        .unwrap_or_else(|| panic!("no delegate row:\n{screen}"));
    let first = rows
        .iter()
        .rposition(|r| r.contains("├ 1 running"))
        .unwrap();
    assert!(
        first > delegate,
        "the children are under the delegate row:\n{screen}"
    );
    // Each row is one row: the long task is cut, never wrapped.
    assert!(rows[first].contains("child task 1"), "{screen}");
    assert!(
        !rows[first].contains("exactly as they are written"),
        "{screen}"
    );
    assert!(
        !rows[first + 1].trim_start().starts_with("keeping"),
        "{screen}"
    );
    // Ctrl+O: a running child's transcript; → the next child.
    t.keys(&["C-o"]);
    let screen = t.wait_text("(running) transcript");
    assert!(screen.contains("read notes.txt"), "{screen}");
    fits(&t.screen(), width);
    let shown = |s: &str, n: u32| s.contains(&format!("child {n} (running) transcript"));
    let at = (1..=3)
        .find(|n| shown(&screen, *n))
        .expect("a child is shown");
    if at < 3 {
        t.keys(&["Right"]);
        t.wait_for("the next child's transcript", |s| shown(s, at + 1));
    }
    t.keys(&["C-o"]);
    let screen = t.wait_text("the children are done");
    assert!(screen.contains("3 of 3 children done"), "{screen}");
    assert!(
        !t.screen().contains("├ 1 "),
        "the rows went with the call:\n{screen}"
    );
    fits(&t.screen(), width);
}

#[test]
fn children_are_nested_rows_with_a_transcript_at_120_by_40() {
    children_rows_at(120, 40);
}

#[test]
fn children_are_nested_rows_with_a_transcript_at_60_by_20() {
    children_rows_at(60, 20);
}

#[test]
fn a_childs_approval_is_labelled_with_the_child_and_decided_in_the_parents_tui() {
    let w = World::new();
    let proof = w.path("child.proof");
    let exec = json!({"name": "exec", "arguments": {"program": "sh",
        "args": ["-c", format!("echo ran > {}", proof.display())],
        "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}});
    let p = w.path("ask.json");
    let body = json!({
        "turns": [
            {"tool_calls": [{"name": "delegate", "arguments": {"tasks": [
                {"instruction": "look around", "profile": "read_only", "scope": []},
                {"instruction": "write the proof", "profile": "full", "scope": []}
            ]}}]},
            {"text": "both children ended"}
        ],
        "children": [
            {"index": 1, "turns": [{"text": "looked"}]},
            {"index": 2, "turns": [{"tool_calls": [exec]}, {"text": "proof written"}]}
        ]
    });
    std::fs::write(&p, body.to_string()).unwrap();
    let t = Tmux::start(
        &w,
        &["--offline", "--ask", "--script", p.to_str().unwrap()],
        100,
        30,
    );
    t.wait_text("basic · idle");
    t.type_text("/orchestrate");
    t.keys(&["Enter"]);
    t.wait_text("orchestrate · idle");
    t.type_text("prove it");
    t.keys(&["Enter"]);
    let screen = t.wait_text("y once · a for this session · n deny");
    assert!(screen.contains("approve? child 2: run sh -c"), "{screen}");
    assert!(!proof.exists(), "nothing runs before the user decides");
    t.keys(&["y"]);
    t.wait_text("approved once: child 2: run sh -c");
    t.wait_text("both children ended");
    assert_eq!(std::fs::read_to_string(&proof).unwrap(), "ran\n");
}
