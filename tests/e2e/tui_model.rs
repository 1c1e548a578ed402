//! `/model` in a real terminal (tmux) at 60×20 and 120×40: the picker lists a long catalog
//! (scrolling with the highlighted row), asks a reasoning model's effort, and the switch is
//! a line in the history, in `/status` and a `rebinding` in the journal before the next turn;
//! `--model` given when the session is reopened is said the same way.

use serde_json::json;

use crate::harness::{World, journal_text};
use crate::tmux::Tmux;

/// The screen's words with every run of blanks (line ends included) made one space, so text
/// the TUI wrapped at narrow widths still matches.
fn flat(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A script whose catalog has `alpha`, `beta` (a reasoning model) and many long-named models.
fn script(w: &World) -> std::path::PathBuf {
    let mut models = vec![
        json!({"id": "alpha"}),
        json!({"id": "beta", "efforts": ["low", "medium", "high"]}),
    ];
    for i in 0..30 {
        models.push(json!({"id": format!("model-{i:02}-with-a-long-name-that-does-not-fit-in-sixty-columns")}));
    }
    let p = w.path("models.json");
    std::fs::write(
        &p,
        json!({"models": models, "turns": [{"text": "answered by beta"}]}).to_string(),
    )
    .unwrap();
    p
}

fn switch_in(width: u16, height: u16) {
    let w = World::new();
    // Each model's window: the footer's fill follows the model in force.
    w.project_config(json!({
        "schema_version": 1,
        "models": {"alpha": {"context_window": 8000}, "beta": {"context_window": 16000}}
    }));
    let script = script(&w);
    let session = w.path("session");
    let t = Tmux::start_with_env(
        &w,
        "",
        &[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "--session",
            session.to_str().unwrap(),
        ],
        &[("AI_MODEL", "alpha".to_owned())],
        width,
        height,
    );
    t.wait_text("basic · idle");
    t.type_text("/model");
    t.keys(&["Enter"]);
    t.wait_text("› alpha (current)");
    // The last model is far below: End goes there and the list scrolls to show it.
    t.keys(&["End"]);
    t.wait_for("the last model highlighted", |s| s.contains("› model-29"));
    t.keys(&["Home", "Down"]);
    t.wait_text("› beta");
    t.keys(&["Enter"]);
    t.wait_text("reasoning effort");
    t.keys(&["Down", "Down", "Down", "Enter"]);
    t.wait_for("the rebinding line", |s| {
        flat(s).contains("model: alpha → beta (effort high) from the next turn")
    });
    assert!(journal_text(&session).contains("\"kind\":\"rebinding\""));
    t.type_text("hello");
    t.keys(&["Enter"]);
    t.wait_text("answered by beta");
    t.type_text("/status");
    t.keys(&["Enter"]);
    t.wait_for("the model in /status", |s| {
        flat(s).contains("beta · effort high")
    });
    // The fill is measured against beta's window (alpha's, 8.0k, before the fix), in
    // `/status` and in the footer.
    t.wait_for("beta's window in /status and the footer", |s| {
        flat(s).contains("of the 16.0k-token window") && s.contains(" of 16.0k")
    });
    t.keys(&["Escape"]);
    // Typed right after Escape, `/` would reach the TUI as Alt+/ (one escape sequence).
    t.wait_for("/status closed", |s| !s.contains("(Esc closes"));
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
}

#[test]
fn model_switches_in_a_60_by_20_terminal() {
    switch_in(60, 20);
}

#[test]
fn model_switches_in_a_120_by_40_terminal() {
    switch_in(120, 40);
}

/// `--model beta` on a session that ran under `alpha`: the TUI opens with the rebinding said in
/// the history and the new model in `/status`, at 60×20 and 120×40.
fn model_at_open_in(width: u16, height: u16) {
    let w = World::new();
    let script = script(&w);
    let session = w.path("session");
    let out = w
        .command(&[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "--session",
            session.to_str().unwrap(),
            "hello",
        ])
        .env("AI_MODEL", "alpha")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = Tmux::start_with_env(
        &w,
        "",
        &[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "--session",
            session.to_str().unwrap(),
            "--model",
            "beta",
            "--effort",
            "low",
        ],
        &[("AI_MODEL", "alpha".to_owned())],
        width,
        height,
    );
    t.wait_for("the rebinding said at open", |s| {
        flat(s).contains("model: alpha → beta (effort low) for this session's next turns")
    });
    assert!(journal_text(&session).contains("\"source\":\"open\""));
    t.type_text("/status");
    t.keys(&["Enter"]);
    t.wait_for("the model in /status", |s| {
        flat(s).contains("beta · effort low")
    });
    t.keys(&["Escape"]);
    t.wait_for("/status closed", |s| !s.contains("(Esc closes"));
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
}

#[test]
fn model_given_at_open_is_said_in_a_60_by_20_terminal() {
    model_at_open_in(60, 20);
}

#[test]
fn model_given_at_open_is_said_in_a_120_by_40_terminal() {
    model_at_open_in(120, 40);
}
