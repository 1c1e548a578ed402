//! What is shown is all of what runs: ask-mode approvals under a real terminal (tmux) at
//! 60×20 and 120×40 show the whole action — a command's tail behind 300 spaces, a created
//! file's content, an exec's stdin, every line of a 40-line diff — page through what does not
//! fit, and refuse `y` until all of it has been on screen; line mode prints all of it.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::World;
use crate::tmux::Tmux;

const PADDED: &str = "echo hi";

fn big_file() -> String {
    (1..=60).map(|n| format!("old {n}\n")).collect()
}

/// The model's calls: a 40-line edit, a `conftest.py`, an exec with stdin, a padded command.
fn turns() -> Value {
    let old: String = (10..=49).map(|n| format!("old {n}\n")).collect();
    let new: String = (10..=49).map(|n| format!("NEW {n}\n")).collect();
    let padded = format!("{PADDED}{}; touch PWNED_TAIL", " ".repeat(300));
    json!([
        {"tool_calls": [{"name": "edit", "arguments": {"files": [
            {"path": "big.txt", "edits": [{"old": old, "new": new}]}]}}]},
        {"tool_calls": [{"name": "files", "arguments": {"actions": [
            {"kind": "create", "path": "conftest.py", "to": null,
             "content": "import os\nos.system('touch PWNED_CONFTEST')\n"}]}}]},
        {"tool_calls": [{"name": "exec", "arguments": {"program": "cat", "args": [],
            "cwd": ".", "env": ["GREETING=hello  world"], "stdin": "stdin secret line\n",
            "timeout_ms": null, "outside_sandbox": null}}]},
        {"tool_calls": [{"name": "exec", "arguments": {"program": "sh", "args": ["-c", padded],
            "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
        {"text": "all asked"}
    ])
}

/// Every screen of the waiting approval, paging with PgDn until its end is on screen; the
/// rows of all of them.
fn page_through(t: &Tmux) -> BTreeSet<String> {
    let mut rows = BTreeSet::new();
    let mut screen = settled(t);
    for _ in 0..60 {
        rows.extend(screen.lines().map(|l| l.trim_end().to_owned()));
        let more = screen
            .lines()
            .any(|l| l.contains("rows ") && l.contains("PgDn/Space more"));
        if !more {
            return rows;
        }
        let before = screen.clone();
        t.keys(&["NPage"]);
        t.wait_for("the next page", |s| {
            let now = s.lines().rev().take(40).collect::<Vec<_>>();
            let was = before.lines().rev().take(40).collect::<Vec<_>>();
            now != was
        });
        screen = settled(t);
    }
    panic!("the approval never reached its end:\n{screen}");
}

/// The screen once a redraw is over: two captures in a row agree (but for the footer, whose
/// clock ticks).
fn settled(t: &Tmux) -> String {
    let body = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with("basic ·"))
            .map(str::to_owned)
            .collect()
    };
    let mut last = t.screen();
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(40));
        let now = t.screen();
        if body(&now) == body(&last) {
            return now;
        }
        last = now;
    }
    panic!("the screen never settled:\n{last}");
}

/// Waits until the approval takes keys: it does after a pause with no typing
/// (`approval::SETTLE`), and its key line then offers `n deny`.
fn ready(t: &Tmux) {
    t.wait_for("the approval to take keys", |s| {
        s.contains("n deny") && !s.contains("typing goes to your input")
    });
}

fn has(rows: &BTreeSet<String>, text: &str) -> bool {
    rows.iter().any(|r| r.contains(text))
}

fn approvals_show_the_whole_action(width: u16, height: u16) {
    let w = World::new();
    std::fs::write(w.ws().join("big.txt"), big_file()).unwrap();
    let script = w.script("approvals.json", turns());
    let t = Tmux::start(
        &w,
        &["--offline", "--ask", "--script", script.to_str().unwrap()],
        width,
        height,
    );
    t.wait_text("basic · idle");
    t.type_text("show me everything");
    t.keys(&["Enter"]);

    // The edit does not fit: y is refused until every line of the diff has been on screen.
    let first = t.wait_text("approve? edit big.txt (+40 −40)");
    assert!(first.contains("PgDn/Space more"), "paged: {first}");
    ready(&t);
    t.keys(&["y"]);
    t.wait_text("y/a refused until all is seen");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!t.capture().contains("approved once"), "y was refused");
    assert_eq!(
        std::fs::read_to_string(w.ws().join("big.txt")).unwrap(),
        big_file()
    );
    let rows = page_through(&t);
    for n in 10..=49 {
        assert!(has(&rows, &format!("- old {n}")), "- old {n}: {rows:#?}");
        assert!(has(&rows, &format!("+ NEW {n}")), "+ NEW {n}: {rows:#?}");
    }
    assert!(has(&rows, "@@ line 10"), "{rows:#?}");
    ready(&t);
    t.keys(&["y"]);
    t.wait_text("approved once: edit big.txt");
    crate::harness::eventually("the edit to be applied", || {
        std::fs::read_to_string(w.ws().join("big.txt")).is_ok_and(|s| s.contains("NEW 49"))
    });

    // A created file's content.
    t.wait_text("approve? create conftest.py");
    let rows = page_through(&t);
    assert!(
        has(&rows, "content of conftest.py (44 bytes, 2 lines):"),
        "{rows:#?}"
    );
    assert!(
        has(&rows, "│ os.system('touch PWNED_CONFTEST')"),
        "{rows:#?}"
    );
    ready(&t);
    t.keys(&["n", "Enter"]);
    t.wait_text("declined: create conftest.py");

    // An exec's stdin, environment and cwd.
    t.wait_text("approve? run cat");
    let rows = page_through(&t);
    assert!(has(&rows, "$ cat"), "{rows:#?}");
    assert!(has(&rows, "in . (the workspace root)"), "{rows:#?}");
    assert!(has(&rows, "env GREETING=hello··world"), "{rows:#?}");
    assert!(has(&rows, "│ stdin secret line"), "{rows:#?}");
    ready(&t);
    t.keys(&["n", "Enter"]);
    t.wait_text("declined: run cat");

    // The command's tail behind 300 spaces.
    t.wait_text("approve? run sh -c echo hi");
    let rows = page_through(&t);
    let joined: String = rows.iter().map(|r| r.trim()).collect::<Vec<_>>().join("");
    assert!(
        joined.contains("echo hi␠×300; touch PWNED_TAIL'"),
        "the tail is on screen: {rows:#?}"
    );
    ready(&t);
    t.keys(&["n", "Enter"]);
    t.wait_text("all asked");
    assert!(!w.ws().join("PWNED_TAIL").exists());
    assert!(!w.ws().join("conftest.py").exists());
}

#[test]
fn approvals_show_the_whole_action_at_60x20() {
    approvals_show_the_whole_action(60, 20);
}

#[test]
fn approvals_show_the_whole_action_at_120x40() {
    approvals_show_the_whole_action(120, 40);
}

/// Line mode (a one-shot on a terminal) prints every diff line, added and removed, and a
/// created file's content before it asks.
#[test]
fn line_mode_prints_the_whole_diff_and_created_content() {
    let w = World::new();
    std::fs::write(w.ws().join("big.txt"), big_file()).unwrap();
    let script = w.script("approvals.json", turns());
    let t = Tmux::start(
        &w,
        &[
            "--offline",
            "--ask",
            "--script",
            script.to_str().unwrap(),
            "show me everything",
        ],
        200,
        50,
    );
    t.wait_text("[n] deny (n REASON):");
    let screen = t.capture();
    for n in 10..=49 {
        assert!(screen.contains(&format!("    - old {n}\n")), "{screen}");
        assert!(screen.contains(&format!("    + NEW {n}\n")), "{screen}");
    }
    t.keys(&["n", "Enter"]);
    let screen = t.wait_text("│ os.system('touch PWNED_CONFTEST')");
    assert!(screen.contains("    create conftest.py"), "{screen}");
    t.keys(&["n", "Enter"]);
    let screen = t.wait_text("│ stdin secret line");
    assert!(screen.contains("env GREETING=hello··world"), "{screen}");
    t.keys(&["n", "Enter"]);
    let screen = t.wait_text("touch PWNED_TAIL'");
    assert!(
        screen.contains("echo hi␠×300; touch PWNED_TAIL'"),
        "{screen}"
    );
    t.keys(&["n", "Enter"]);
    t.wait_text("[ansa exited 0]");
    assert!(!w.ws().join("PWNED_TAIL").exists());
}

/// In line mode an answer typed before its prompt appeared (while an approved command still
/// runs) never answers it: the prompt discards what was typed ahead.
#[test]
fn line_mode_discards_answers_typed_before_the_prompt() {
    let w = World::new();
    let proof = w.path("PWNED_TYPEAHEAD");
    let exec = |script: &str| {
        json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
            "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
    };
    let script = w.script(
        "ahead.json",
        json!([
            {"tool_calls": [exec("sleep 2")]},
            {"tool_calls": [exec(&format!("touch {}", proof.display()))]},
            {"text": "done"}
        ]),
    );
    let t = Tmux::start(
        &w,
        &[
            "--offline",
            "--ask",
            "--script",
            script.to_str().unwrap(),
            "go",
        ],
        120,
        30,
    );
    t.wait_text("[n] deny (n REASON):");
    t.keys(&["y", "Enter"]);
    t.wait_text("exec started");
    // Typed while `sleep 2` runs, before the second prompt exists.
    t.keys(&["y", "Enter", "a", "Enter"]);
    t.wait_for("the second prompt", |s| {
        s.contains("approve? run sh -c touch") && s.trim_end().ends_with("(n REASON):")
    });
    std::thread::sleep(Duration::from_millis(500));
    assert!(!proof.exists(), "an answer typed ahead approved the call");
    t.keys(&["n", "Enter"]);
    t.wait_text("[ansa exited 0]");
    assert!(!proof.exists());
}

/// An action too large to carry whole (40 arguments of 120 KB) is marked withheld, carries none
/// of its text, and the runtime refuses to approve it whatever the frontend sends; a denial
/// works.
#[test]
fn an_action_too_large_to_show_can_only_be_denied() {
    let w = World::new();
    // 40 arguments of 120 KB: more than an approval carries (4 MiB), each one short of what
    // the kernel refuses.
    let chunk = "x".repeat(120_000);
    let mut args = vec![json!("-c"), json!("touch TOO_LARGE_PROOF")];
    args.extend((0..40).map(|_| json!(chunk)));
    let script = w.script(
        "large.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh", "args": args,
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "denied"}
        ]),
    );
    let mut s = w.jsonl(&["--ask", "--script", script.to_str().unwrap()]);
    let rid = s.submit("run it");
    let ev = s.expect_type("approval_required", &[]);
    assert_eq!(ev["withheld"]["reason"], "too_large", "{}", ev["withheld"]);
    assert!(ev.get("argv").is_none(), "nothing of it is carried");
    let once = s.send(
        "approve",
        json!({"target": rid, "call": ev["call_id"], "decision": "once"}),
    );
    let err = s.expect_type("error", &[("command_id", json!(once))]);
    assert!(
        err["message"]
            .as_str()
            .unwrap_or("")
            .contains("can only be denied"),
        "{err}"
    );
    s.send(
        "approve",
        json!({"target": rid, "call": ev["call_id"], "decision": "deny"}),
    );
    assert_eq!(s.answer(rid), "denied");
    s.finish();
    assert!(!w.ws().join("TOO_LARGE_PROOF").exists());
}
