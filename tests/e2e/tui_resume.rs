//! A reopened session in the real TUI (tmux) shows its earlier turns as they looked live —
//! tool rows with their summaries and output, failed calls, answers — with older exchanges
//! collapsed; `/new` continues in a new session in the same TUI and closes the old one.

use std::path::Path;

use serde_json::json;

use crate::harness::World;
use crate::tmux::Tmux;

/// A session of five turns made through the JSONL driver: two plain ones, a command, a
/// command next to a refused call (so neither runs), and a plain one.
fn story_session(w: &World, dir: &Path) {
    let exec = |program: &str, args: &[&str]| {
        json!({"name": "exec", "arguments": {"program": program, "args": args, "cwd": ".",
            "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
    };
    let script = w.script(
        "story.json",
        json!([
            {"text": "answer one"},
            {"text": "answer two"},
            {"tool_calls": [exec("printf", &["hello-from-exec\\n"])]},
            {"text": "printed it"},
            {"tool_calls": [exec("sh", &["-c", "exit 3"]),
                {"name": "get_test_value", "arguments": {"key": "k", "bogus": 1}}]},
            {"text": "one of them was refused"},
            {"text": "answer five"}
        ]),
    );
    let mut s = w.jsonl(&[
        "--script",
        script.to_str().unwrap(),
        "--session",
        dir.to_str().unwrap(),
    ]);
    for task in [
        "first task",
        "second task",
        "run the printer",
        "try two calls",
        "last task",
    ] {
        let rid = s.submit(task);
        s.answer(rid);
    }
    s.finish();
}

fn resumed_story(width: u16, height: u16) {
    let w = World::new();
    let dir = w.path("session");
    story_session(&w, &dir);
    let t = Tmux::start(
        &w,
        &["--offline", "--session", dir.to_str().unwrap()],
        width,
        height,
    );
    let screen = t.wait_text("answer five");
    let at = |needle: &str| {
        screen
            .find(needle)
            .unwrap_or_else(|| panic!("{width}×{height}: `{needle}` missing:\n{screen}"))
    };
    let order = [
        at("earlier exchanges collapsed"),
        at("run the printer"),
        at("✓ exec"),
        at("hello-from-exec"),
        at("printed it"),
        at("try two calls"),
        // One refused call keeps the whole batch from running.
        at("! exec"),
        at("not run"),
        at("✗ get_test_value"),
        at("one of them was refused"),
        at("last task"),
        at("answer five"),
    ];
    assert!(
        order.windows(2).all(|p| p[0] < p[1]),
        "{width}×{height}: the turns read in order {order:?}:\n{screen}"
    );
    assert!(
        !screen.contains("first task") && !screen.contains("answer two"),
        "{width}×{height}: older exchanges stay collapsed:\n{screen}"
    );
    // The collapsed exchanges are one Ctrl+F away.
    t.keys(&["C-f"]);
    t.keys(&["PPage"]);
    t.keys(&["PPage"]);
    t.wait_text("first task");
    t.keys(&["Escape"]);
    // Typed at once, Escape and `/` can reach the terminal together and read as Alt+/.
    t.wait_for("the history pane closed", |screen| {
        !screen.contains("first task")
    });
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
}

#[test]
fn a_resumed_session_shows_its_turns_as_they_looked_live_at_60x20() {
    resumed_story(60, 20);
}

#[test]
fn a_resumed_session_shows_its_turns_as_they_looked_live_at_120x40() {
    resumed_story(120, 40);
}

/// The session IDs in `new session NEW is active · … ansa --session OLD)`.
fn switched(screen: &str) -> (String, String) {
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    let new = flat
        .split("new session ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the new session is named");
    let old = flat
        .split(" --session ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .map(str::to_owned)
        .expect("the previous session is named");
    (new.to_owned(), old)
}

fn new_session(width: u16, height: u16) {
    let w = World::new();
    let t = Tmux::start(&w, &["--offline"], width, height);
    t.wait_text("basic · idle");
    t.type_text("what is the value?");
    t.keys(&["Enter"]);
    let key = ansa::provider::offline_key("what is the value?");
    t.wait_text(&format!("The test value for {key}"));
    t.type_text("/new");
    t.keys(&["Enter"]);
    let screen = t.wait_text("is active");
    let (new, old) = switched(&screen);
    assert_ne!(new, old, "{screen}");
    // The command it names reopens an offline session (it said `ansa --session OLD`, which
    // is refused without credentials).
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("reopen it with ansa --offline --session {old})")),
        "{screen}"
    );
    // The old session is closed: another process can open it (its lock is released) and its
    // journal has the first exchange.
    let out = w
        .command(&["--offline", "--session", &old, "what is the value?"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the previous session opens elsewhere: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("The test value for {key}")));
    // The new one works in the same TUI.
    t.type_text("another question");
    t.keys(&["Enter"]);
    let other = ansa::provider::offline_key("another question");
    t.wait_text(&format!("The test value for {other}"));
    t.type_text("/exit");
    t.keys(&["Enter"]);
    let screen = t.wait_text("[ansa exited 0]");
    assert!(
        screen
            .replace('\n', "")
            .contains(&format!("continue with: ansa --offline --session {new}")),
        "exit names the active session: {screen}"
    );
    let sessions = std::fs::read_dir(w.ansa_home().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(sessions, 2, "one new session, the old one kept");
}

#[test]
fn new_starts_a_new_session_in_the_same_tui_at_60x20() {
    new_session(60, 20);
}

#[test]
fn new_starts_a_new_session_in_the_same_tui_at_120x40() {
    new_session(120, 40);
}

#[test]
fn new_is_refused_while_a_task_runs() {
    let w = World::new();
    let script = w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sleep", "args": ["300"],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "never shown"}
        ]),
    );
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
    t.type_text("/new");
    t.keys(&["Enter"]);
    t.wait_text("/new is refused: a task is running");
    assert!(!t.capture().contains("is active"));
    t.keys(&["C-c"]);
    t.wait_text("cancelled");
    t.keys(&["C-c"]);
    t.wait_text("[ansa exited 130]");
}

/// `--continue` in the TUI says how long ago the session was last active by its journal:
/// opening it rewrites `summary.json`, which made every reopened session "last active 0 s ago".
#[test]
fn a_continued_session_says_when_its_journal_was_last_written() {
    let w = World::new();
    let out = w
        .command(&["--offline", "what is the value?"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let three_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3 * 3600);
    let mut parts = 0;
    for session in std::fs::read_dir(w.ansa_home().join("sessions")).unwrap() {
        let session = session.unwrap().path();
        if !session.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&session).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("journal-") {
                let f = std::fs::File::options().write(true).open(&file).unwrap();
                f.set_modified(three_hours_ago).unwrap();
                parts += 1;
            }
        }
    }
    assert_eq!(parts, 1, "one session with one journal part");
    let t = Tmux::start(&w, &["--offline", "--continue"], 120, 40);
    let screen = t.wait_text("basic · idle");
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("(1 exchange, last active 3 h ago)"),
        "{screen}"
    );
}
