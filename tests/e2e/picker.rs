//! `ansa --resume` without an ID: the picker in a real terminal (tmux), and `/sessions`.

use crate::harness::World;
use crate::tmux::Tmux;

/// A finished offline one-shot of `task` in `cwd`; its session ID.
fn one_shot(w: &World, task: &str, cwd: &std::path::Path) -> String {
    let out = w
        .command(&["--offline", task])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("ansa: session "))
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn the_picker_filters_toggles_directories_and_opens_the_session_at_100x32() {
    let w = World::new();
    let other = w.path("other");
    std::fs::create_dir_all(&other).unwrap();
    let first = one_shot(&w, "first about parsers", &w.ws());
    let elsewhere = one_shot(&w, "elsewhere about docs", &other);
    let second = one_shot(&w, "second about lexers", &w.ws());

    let t = Tmux::start(&w, &["--offline", "--resume"], 100, 32);
    let screen = t.wait_text("Resume a session of");
    assert!(
        screen.contains(&first) && screen.contains(&second),
        "{screen}"
    );
    assert!(
        !screen.contains(&elsewhere),
        "only this directory: {screen}"
    );
    for heading in ["LAST ACTIVE", "STATE", "TURNS", "FIRST PROMPT"] {
        assert!(screen.contains(heading), "{screen}");
    }
    let newest = screen.find(&second).unwrap();
    assert!(
        newest < screen.find(&first).unwrap(),
        "newest first: {screen}"
    );

    t.keys(&["Tab"]);
    t.wait_for("every directory's sessions", |s| s.contains(&elsewhere));
    t.keys(&["Tab"]);
    t.wait_for("this directory again", |s| !s.contains(&elsewhere));

    t.type_text("parsers");
    let screen = t.wait_for("the filter to apply", |s| {
        s.contains("filter: parsers") && !s.contains(&second)
    });
    assert!(screen.contains(&first), "{screen}");
    t.keys(&["Enter"]);
    t.wait_text(&format!("resumed session {first}"));
    // The erased picker may be kept in tmux's history (`scroll-on-clear`), never on screen.
    let screen = t.screen();
    assert!(
        !screen.contains("Resume a session of"),
        "the picker is gone: {screen}"
    );
    t.type_text("/sessions");
    t.keys(&["Enter"]);
    let screen = t.wait_text("sessions 1–3 of 3");
    assert!(
        screen.contains(&elsewhere),
        "/sessions lists every session: {screen}"
    );
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
    t.hang_up();
}

#[test]
fn esc_leaves_the_picker_without_opening_anything_at_60x20() {
    let w = World::new();
    let only = one_shot(
        &w,
        "a task with a rather long first prompt that must be cut",
        &w.ws(),
    );
    let t = Tmux::start(&w, &["--offline", "--resume"], 60, 20);
    let screen = t.wait_text("Resume a session of");
    assert!(screen.contains('…'), "cut to the width: {screen}");
    for line in screen.lines() {
        assert!(line.chars().count() <= 60, "{line:?}");
    }
    t.keys(&["Escape"]);
    let screen = t.wait_text("[ansa exited 0]");
    assert!(!screen.contains("resumed session"), "{screen}");
    let journal = crate::harness::journal_text(&w.ansa_home().join("sessions").join(&only));
    assert_eq!(
        journal.matches("command_accepted").count(),
        1,
        "nothing new ran"
    );
    t.hang_up();
}

#[test]
fn resume_without_an_id_needs_a_terminal() {
    let w = World::new();
    let out = w
        .command(&["--offline", "--resume"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal"), "{err}");
}

/// Opens the TUI in `w`'s workspace and leaves it without a task: a session with no turns.
fn empty_session(w: &World) {
    let t = Tmux::start(w, &["--offline"], 60, 20);
    t.wait_text("Enter send");
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
    t.hang_up();
}

#[test]
fn the_picker_preselects_the_newest_session_with_turns_and_sessions_fit_60x20() {
    let w = World::new();
    let worked = one_shot(&w, "the parser task that has turns", &w.ws());
    empty_session(&w);
    let t = Tmux::start(&w, &["--offline", "--resume"], 60, 20);
    let screen = t.wait_text("Resume a session of");
    assert!(
        screen.contains("2 of 2"),
        "the older session with turns is selected: {screen}"
    );
    let selected = screen
        .lines()
        .find(|l| l.starts_with('›'))
        .unwrap_or_else(|| panic!("no selected row: {screen}"));
    assert!(selected.contains(&worked), "{screen}");
    assert!(
        screen.contains("(empty"),
        "the empty one is marked: {screen}"
    );
    t.keys(&["Enter"]);
    t.wait_text(&format!("resumed session {worked}"));
    t.type_text("/sessions");
    t.keys(&["Enter"]);
    let screen = t.wait_text("sessions 1–2 of 2");
    let heading = screen
        .lines()
        .find(|l| l.contains("TURNS"))
        .unwrap_or_else(|| panic!("/sessions at 60 columns shows the turns: {screen}"));
    for column in ["ID", "ACTIVE", "STATE"] {
        assert!(heading.contains(column), "{heading}");
    }
    let row = screen
        .lines()
        .find(|l| l.contains(&worked) && !l.contains("resumed"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("the"), "a cut prompt: {row}");
    for line in screen.lines() {
        assert!(line.chars().count() <= 60, "{line:?}");
    }
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
    t.hang_up();
}
