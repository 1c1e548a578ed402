//! The Carbon TUI under a real terminal (tmux): type a task, watch tool lines and the answer,
//! cancel, resume, switch modes, page history, resize, exit — and never the alternate screen.

use serde_json::json;

use crate::harness::World;
use crate::tmux::Tmux;

fn exec_long(w: &World) -> std::path::PathBuf {
    w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sleep", "args": ["300"],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "never shown"}
        ]),
    )
}

#[test]
fn a_task_runs_modes_switch_and_exit_prints_how_to_continue() {
    let w = World::new();
    let t = Tmux::start(&w, &["--offline"], 100, 30);
    t.wait_text("basic · idle");
    assert!(
        t.capture().contains("offline"),
        "the header names the model"
    );
    t.type_text("what is the value?");
    t.keys(&["Enter"]);
    let key = ansa::provider::offline_key("what is the value?");
    let screen = t.wait_text(&format!("The test value for {key}"));
    assert!(screen.contains("get_test_value"), "{screen}");
    assert_eq!(
        screen.matches("› what is the value?").count(),
        1,
        "{screen}"
    );
    t.keys(&["Tab"]);
    t.wait_text("plan · idle");
    t.keys(&["BTab"]);
    t.wait_text("basic · idle");
    t.type_text("/exit");
    t.keys(&["Enter"]);
    let screen = t.wait_text("[ansa exited 0]");
    assert!(
        screen.contains("continue with: ansa --offline --session"),
        "{screen}"
    );
    assert_eq!(
        screen.matches(&format!("The test value for {key}")).count(),
        1,
        "{screen}"
    );
}

#[test]
fn ctrl_c_cancels_the_running_task_and_a_second_exits_130() {
    let w = World::new();
    let script = exec_long(&w);
    let t = Tmux::start(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        100,
        30,
    );
    t.wait_text("basic · idle");
    t.type_text("run the long thing");
    t.keys(&["Enter"]);
    t.wait_text("exec sleep 300");
    t.type_text("typed while running");
    t.keys(&["C-c"]);
    let screen = t.wait_text("cancelled");
    assert!(
        screen.contains("typed while running"),
        "typed input survives: {screen}"
    );
    // The cancel armed the exit: one more Ctrl+C leaves (a third would reach the shell).
    t.keys(&["C-c"]);
    t.wait_text("[ansa exited 130]");
}

#[test]
fn a_paused_turn_resumes_with_the_command() {
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "tool_rounds": 1}));
    let call = json!({"name": "get_test_value", "arguments": {"key": "k"}});
    let script = w.script(
        "pause.json",
        json!([{"tool_calls": [call]}, {"text": "resumed and finished"}]),
    );
    let t = Tmux::start(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        100,
        30,
    );
    t.wait_text("basic · idle");
    t.type_text("pause please");
    t.keys(&["Enter"]);
    t.wait_text("tool_rounds");
    t.type_text("/resume");
    t.keys(&["Enter"]);
    t.wait_text("resumed and finished");
}

#[test]
fn opening_shows_the_last_exchanges_and_history_pages_back() {
    let w = World::new();
    let dir = w.path("session");
    let mut s = w.jsonl(&["--session", dir.to_str().unwrap()]);
    for n in 1..=6 {
        let rid = s.submit(&format!("question number {n}"));
        s.answer(rid);
    }
    s.finish();
    let t = Tmux::start(
        &w,
        &["--offline", "--session", dir.to_str().unwrap()],
        100,
        40,
    );
    let screen = t.wait_text("question number 6");
    assert!(
        screen.contains("resumed session") && screen.contains("(6 exchanges, last active "),
        "a reopened session says what it is: {screen}"
    );
    assert!(screen.contains("question number 4"), "{screen}");
    assert!(!screen.contains("question number 1"), "{screen}");
    t.keys(&["C-f"]);
    t.keys(&["PPage"]);
    t.keys(&["PPage"]);
    t.wait_text("question number 1");
}

#[test]
fn resize_reflows_the_live_region() {
    let w = World::new();
    let t = Tmux::start(&w, &["--offline"], 100, 30);
    t.wait_text("basic · idle");
    t.resize(50, 30);
    let screen = t.wait_for("the footer to fit 50 columns", |s| {
        s.contains("basic · idle") && s.lines().all(|l| l.chars().count() <= 50)
    });
    assert!(screen.contains("basic"), "{screen}");
    t.type_text("after resize");
    t.keys(&["Enter"]);
    t.wait_text(&format!(
        "The test value for {}",
        ansa::provider::offline_key("after resize")
    ));
}

#[test]
fn a_hung_up_terminal_ends_the_tui() {
    let w = World::new();
    let t = Tmux::start(&w, &["--offline"], 100, 30);
    t.wait_text("basic · idle");
    let pid = t.ansa_pid();
    assert!(crate::harness::alive(pid));
    t.hang_up();
    crate::harness::eventually("ansa to exit after the hangup", || {
        !crate::harness::alive(pid)
    });
}

#[test]
fn ask_mode_approves_denies_with_a_reason_and_cancels_while_waiting() {
    let w = World::new();
    let proof = |name: &str| w.path(name);
    let exec = |script: String| {
        json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
            "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
    };
    let script = w.script(
        "ask.json",
        json!([
            {"tool_calls": [exec(format!("sleep 1; touch {}", proof("one").display()))]},
            {"tool_calls": [exec(format!("touch {}", proof("two").display()))]},
            {"tool_calls": [exec(format!("touch {}", proof("three").display()))]},
            {"text": "never shown"}
        ]),
    );
    let t = Tmux::start(
        &w,
        &["--offline", "--ask", "--script", script.to_str().unwrap()],
        110,
        34,
    );
    t.wait_text("basic · idle");
    t.type_text("make the proofs");
    t.keys(&["Enter"]);
    let screen = t.wait_text("y once · a for this session · n deny");
    assert!(screen.contains("approve? run sh -c"), "{screen}");
    assert!(screen.contains("$ sh -c 'sleep 1; touch"), "{screen}");
    assert!(
        screen.contains("y once · a session · n deny"),
        "footer keys: {screen}"
    );
    t.keys(&["y"]);
    t.wait_text("approved once: run sh -c");
    // Typed while the approved command runs; an approval leaves it in the input.
    t.type_text("draft note");
    t.wait_for("the second approval", |s| {
        s.contains(&format!("touch {}", proof("two").display())) && s.contains("n deny")
    });
    assert!(proof("one").exists(), "the approved command ran");
    t.keys(&["n"]);
    t.wait_text("reason (optional):");
    t.type_text("not the second one");
    t.keys(&["Enter"]);
    let screen = t.wait_text("declined: run sh -c");
    assert!(screen.contains("not the second one"), "{screen}");
    t.wait_for("the third approval", |s| {
        s.contains(&format!("touch {}", proof("three").display())) && s.contains("n deny")
    });
    t.keys(&["C-c"]);
    let screen = t.wait_text("cancelled");
    assert!(
        screen.contains("› draft note"),
        "typed input is kept: {screen}"
    );
    assert!(!proof("two").exists(), "the denied command never ran");
    assert!(!proof("three").exists(), "the cancelled command never ran");
}

#[test]
fn a_one_shot_on_a_terminal_asks_on_stderr_and_reads_the_answer() {
    let w = World::new();
    let proof = w.path("oneshot.proof");
    let script = w.script(
        "ask.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "touch", "args": [proof.display().to_string()],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "it was declined"}
        ]),
    );
    let t = Tmux::start(
        &w,
        &[
            "--offline",
            "--ask",
            "--script",
            script.to_str().unwrap(),
            "touch it",
        ],
        110,
        30,
    );
    let screen = t.wait_text("[n] deny (n REASON):");
    assert!(screen.contains("ansa: approve? run touch"), "{screen}");
    assert!(
        screen.contains(&format!("    $ touch {}", proof.display())),
        "{screen}"
    );
    t.type_text("perhaps");
    t.keys(&["Enter"]);
    t.wait_text("answer y, a or n");
    t.type_text("n not today");
    t.keys(&["Enter"]);
    let screen = t.wait_text("[ansa exited 0]");
    assert!(screen.contains("it was declined"), "{screen}");
    assert!(!proof.exists(), "the denied command never ran");
}
