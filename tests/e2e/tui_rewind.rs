//! `/rewind` in the TUI through the real binary under tmux: a scripted turn edits a file and
//! creates another, the test then changes the edited file itself (a conflict), and the rewind
//! goes list → scope → plan (which shows the conflict) → keep theirs or take the checkpoint's;
//! the tree ends as chosen and the prompt is back in the input. Once at 60×20 (`/rewind`, take)
//! and once at 120×40 (Esc Esc, keep), and the live region never leaves the main screen.

use std::time::Duration;

use serde_json::json;

use crate::harness::World;
use crate::tmux::Tmux;

const PROMPT: &str = "tidy the notes please";

/// A world whose workspace holds `notes.txt`, and a script whose one turn edits it and
/// creates `made.txt`.
fn world() -> (World, std::path::PathBuf) {
    let w = World::new();
    std::fs::write(w.ws().join("notes.txt"), "original line\n").unwrap();
    let script = w.script(
        "rewind.json",
        json!([
            {"tool_calls": [{"name": "edit", "arguments": {"files": [{"path": "notes.txt",
                "edits": [{"old": "original line\n", "new": "edited by the turn\n"}]}]}}]},
            {"tool_calls": [{"name": "files", "arguments": {"actions": [{"kind": "create",
                "path": "made.txt", "to": null, "content": "made by the turn\n"}]}}]},
            {"text": "notes tidied"}
        ]),
    );
    (w, script)
}

fn read(w: &World, name: &str) -> Option<String> {
    std::fs::read_to_string(w.ws().join(name)).ok()
}

/// Runs the turn, makes the conflict, and walks the rewind to its plan (opened with `/rewind`,
/// or with Esc Esc on the empty input); returns the tmux.
fn to_the_plan(
    w: &World,
    script: &std::path::Path,
    (width, height): (u16, u16),
    esc_esc: bool,
) -> Tmux {
    let t = Tmux::start(
        w,
        &["--offline", "--script", script.to_str().unwrap()],
        width,
        height,
    );
    t.wait_text("basic · idle");
    t.type_text(PROMPT);
    t.keys(&["Enter"]);
    t.wait_text("notes tidied");
    t.wait_text("basic · idle");
    assert_eq!(
        read(w, "notes.txt").as_deref(),
        Some("edited by the turn\n")
    );
    assert_eq!(read(w, "made.txt").as_deref(), Some("made by the turn\n"));
    // Someone else changes the file after the turn: a conflict for the rewind.
    std::fs::write(
        w.ws().join("notes.txt"),
        "edited by the user, who disagrees\n",
    )
    .unwrap();

    if esc_esc {
        // Two separate Esc presses (sent together, a terminal reads them as one key).
        t.keys(&["Escape"]);
        std::thread::sleep(Duration::from_millis(150));
        t.keys(&["Escape"]);
    } else {
        t.type_text("/rewind");
        t.keys(&["Enter"]);
    }
    t.wait_text("newest first");
    let list = t.screen();
    let row = list
        .lines()
        .position(|l| l.starts_with("› ") && l.contains(PROMPT) && l.contains(" file"));
    let files = row
        .and_then(|r| list.lines().nth(r + 1))
        .unwrap_or_default();
    assert!(
        files.contains("made.txt") && files.contains("notes.txt"),
        "the list names the prompt and, under it, the files its turn changed: {list}"
    );
    t.keys(&["Enter"]);
    t.wait_text("1. code and conversation");
    t.keys(&["Enter"]);
    let plan = t.wait_text("1 conflict");
    assert!(
        plan.contains("! notes.txt"),
        "the conflict is named: {plan}"
    );
    assert!(plan.contains("k keep theirs"), "{plan}");
    // The whole plan, page by page: made.txt is to be deleted.
    let mut seen = flat(&t.screen());
    for _ in 0..10 {
        if seen.contains("− made.txt") {
            break;
        }
        t.keys(&["NPage"]);
        std::thread::sleep(Duration::from_millis(150));
        seen.push_str(&flat(&t.screen()));
    }
    assert!(
        seen.contains("− made.txt"),
        "made.txt is to be deleted: {seen}"
    );
    // Nothing changed yet: the plan is a dry run.
    assert_eq!(
        read(w, "notes.txt").as_deref(),
        Some("edited by the user, who disagrees\n")
    );
    assert!(read(w, "made.txt").is_some());
    // Back to the top, where the conflict's choice is.
    t.keys(&["Home"]);
    t
}

/// `s` with every run of whitespace (line ends included) as one space.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Waits until the rewind is done and the input (the row above the rule) holds the prompt
/// again; returns the whole capture.
fn prompt_back(t: &Tmux) -> String {
    t.wait_text("rewound to before turn 1");
    t.wait_for("the prompt back in the input", |_| {
        let screen = t.screen();
        let lines: Vec<&str> = screen.lines().collect();
        let rule = lines
            .iter()
            .rposition(|l| !l.is_empty() && l.chars().all(|c| c == '─'));
        rule.and_then(|r| r.checked_sub(1))
            .is_some_and(|i| lines[i].trim_end() == format!("› {PROMPT}"))
    });
    flat(&t.capture())
}

#[test]
fn rewind_with_a_conflict_taking_the_checkpoints_version_at_60x20() {
    let (w, script) = world();
    let t = to_the_plan(&w, &script, (60, 20), false);
    // Enter before choosing is refused; then take the checkpoint's.
    t.keys(&["Enter"]);
    t.wait_text("choose for the conflicts first");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        read(&w, "notes.txt").as_deref(),
        Some("edited by the user, who disagrees\n")
    );
    t.keys(&["t"]);
    t.wait_text("chosen: take the checkpoint's");
    t.keys(&["Enter"]);
    let screen = prompt_back(&t);
    assert!(
        screen.contains("rewound to before turn 1 (code and conversation)"),
        "{screen}"
    );
    assert_eq!(read(&w, "notes.txt").as_deref(), Some("original line\n"));
    assert_eq!(read(&w, "made.txt"), None, "the turn's new file is gone");
    assert!(!t.alternate_on());
}

#[test]
fn esc_esc_then_rewind_with_a_conflict_keeping_theirs_at_120x40() {
    let (w, script) = world();
    let t = to_the_plan(&w, &script, (120, 40), true);
    t.keys(&["k"]);
    t.wait_text("chosen: keep theirs");
    t.keys(&["Enter"]);
    let screen = prompt_back(&t);
    assert!(screen.contains("kept as they were: notes.txt"), "{screen}");
    assert_eq!(
        read(&w, "notes.txt").as_deref(),
        Some("edited by the user, who disagrees\n"),
        "the user's change is kept"
    );
    assert_eq!(read(&w, "made.txt"), None, "the rest is rewound");
    // The rewound turn is marked in the history pane.
    t.keys(&["C-f"]);
    t.wait_text("↺ rewound");
}
