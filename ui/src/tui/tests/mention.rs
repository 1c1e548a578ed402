//! `@` mentions in the input (issue 43 item 8): the completion list over a real directory
//! tree (ignored and hidden files left out), choosing and accepting with the keys, the
//! `mentions` a submit carries, and a refused mention bringing the text back — drawn through
//! the real inline terminal into `vt100` at 60×20 and 120×40.

use std::num::NonZeroU16;
use std::path::Path;
use std::sync::Arc;

use ansa_sessions::protocol::{CommandBody, ErrorCode, EventBody};
use crossterm::event::KeyCode;

use super::super::mention::{MentionIndex, MentionSource, Mentions};
use super::super::terminal::{InlineTerminal, render};
use super::Harness;

fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    for (path, text) in [
        ("src/main.rs", "fn main() {}\n"),
        ("src/tui/mainloop.rs", "loop {}\n"),
        ("docs/main-notes.md", "# notes\n"),
        ("README.md", "# readme\n"),
        ("target/debug/main.d", "ignored\n"),
        ("build.log", "ignored\n"),
        ("secrets/main.key", "hidden by the config\n"),
        (".gitignore", "target/\n*.log\n"),
    ] {
        let full = d.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    t
}

fn source(root: &Path) -> MentionSource {
    MentionSource::new(
        root.to_path_buf(),
        Arc::new(|p: &Path| p.starts_with("secrets")),
    )
}

fn opened(width: u16, height: u16, root: &Path) -> Harness {
    let mut h = Harness::opened(width, height, true, Vec::new());
    h.app.mentions = Mentions::new(MentionIndex::built(source(root)));
    h
}

/// The screen as the real terminal code draws it, parsed by vt100.
fn screen(h: &mut Harness) -> String {
    let (width, height) = (h.app.width, h.app.height);
    let mut parser = vt100::Parser::new(
        NonZeroU16::new(height).unwrap(),
        NonZeroU16::new(width).unwrap(),
        1000,
    );
    let mut term = InlineTerminal::new(Vec::new(), (width, height), Some((0, 0)));
    render(&mut term, &mut h.app).unwrap();
    parser.process(term.writer_mut());
    parser.screen().contents()
}

#[test]
fn at_lists_matching_files_best_first_without_ignored_or_excluded_ones() {
    let t = tree();
    for (width, height) in [(60, 20), (120, 40)] {
        let mut h = opened(width, height, t.path());
        h.type_text("look at @main");
        let shown = screen(&mut h);
        let rows: Vec<&str> = shown
            .lines()
            .map(str::trim)
            .filter(|l| {
                l.ends_with(".rs") || l.ends_with(".md") || l.ends_with(".d") || l.ends_with(".key")
            })
            .collect();
        assert_eq!(
            rows,
            ["› src/main.rs", "docs/main-notes.md", "src/tui/mainloop.rs"],
            "{width}×{height}:\n{shown}"
        );
        assert!(shown.contains("Tab/Enter attach"), "{shown}");
    }
}

#[test]
fn tab_or_enter_puts_the_chosen_path_in_and_the_submit_carries_it() {
    let t = tree();
    let mut h = opened(120, 40, t.path());
    h.type_text("explain @main");
    h.press(KeyCode::Down);
    h.press(KeyCode::Tab);
    assert_eq!(h.app.input.text(), "explain @docs/main-notes.md ");
    assert_eq!(
        h.app.mode,
        ansa_sessions::Mode::Basic,
        "Tab did not switch the mode"
    );
    assert!(
        !screen(&mut h).contains("Tab/Enter attach"),
        "the list closed"
    );
    h.type_text("and @READ");
    h.press(KeyCode::Enter);
    assert_eq!(
        h.app.input.text(),
        "explain @docs/main-notes.md and @README.md "
    );
    assert!(
        h.sent.is_empty(),
        "Enter chose a file; nothing was sent yet"
    );
    h.press(KeyCode::Enter);
    let CommandBody::Submit { text, mentions, .. } = &h.last().body else {
        panic!("{:?}", h.last());
    };
    assert_eq!(text, "explain @docs/main-notes.md and @README.md ");
    let paths: Vec<&str> = mentions.iter().map(|m| m.as_str()).collect();
    assert_eq!(paths, ["docs/main-notes.md", "README.md"]);
}

#[test]
fn esc_closes_the_list_and_a_word_without_a_match_says_so() {
    let t = tree();
    let mut h = opened(60, 20, t.path());
    h.type_text("@zzqq");
    assert!(screen(&mut h).contains("no file matches @zzqq"));
    h.press(KeyCode::Esc);
    assert!(!screen(&mut h).contains("no file matches"), "closed");
    h.type_text("x");
    assert!(
        !screen(&mut h).contains("no file matches"),
        "stays closed for this @"
    );
    h.type_text(" @REA");
    assert!(
        screen(&mut h).contains("› README.md"),
        "a new @ opens it again"
    );
}

#[test]
fn a_refused_mention_brings_the_text_back_with_the_reason() {
    let t = tree();
    let mut h = opened(100, 32, t.path());
    h.type_text("read @missing.rs please");
    h.press(KeyCode::Enter);
    let command = h.last().clone();
    let CommandBody::Submit { mentions, .. } = &command.body else {
        panic!("{command:?}");
    };
    assert_eq!(mentions.len(), 1);
    h.event(EventBody::Error {
        command_id: Some(command.command_id),
        code: ErrorCode::MentionRefused,
        message: "@missing.rs cannot be attached: no such file in the workspace; fix the path or remove the mention, then send again".into(),
    });
    assert_eq!(h.app.input.text(), "read @missing.rs please");
    let text = h.scrollback_text().join("\n");
    assert!(
        text.contains("the task was not accepted: @missing.rs cannot be attached: no such file"),
        "{text}"
    );
}

#[test]
fn words_that_are_not_paths_are_not_mentions() {
    let t = tree();
    let mut h = opened(100, 32, t.path());
    h.type_text("ask @alice, mail me@example.org");
    h.press(KeyCode::Esc);
    h.press(KeyCode::Enter);
    let CommandBody::Submit { mentions, .. } = &h.last().body else {
        panic!("{:?}", h.last());
    };
    assert!(mentions.is_empty(), "{mentions:?}");
}

#[test]
fn the_list_waits_for_the_first_index() {
    let mut h = Harness::opened(60, 20, true, Vec::new());
    let t = tree();
    // A source whose walk has not finished: spawn and look before it can answer is racy, so
    // a default (empty) state shows nothing and a spawned one shows indexing or matches.
    h.type_text("@ma");
    assert!(
        !screen(&mut h).contains("Tab/Enter attach"),
        "no source: no list"
    );
    h.app.input.set("");
    h.app.mentions = Mentions::new(MentionIndex::spawn(source(t.path())));
    h.type_text("@ma");
    let shown = screen(&mut h);
    assert!(
        shown.contains("indexing the workspace's files") || shown.contains("› src/main.rs"),
        "{shown}"
    );
}
