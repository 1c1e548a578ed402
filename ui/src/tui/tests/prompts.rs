//! Prompt files as `/name` commands (issue 43 item 9): listed in the `/` list with their first
//! line, Tab completes a name, Enter sends the text with `$ARGUMENTS` replaced, built-ins win
//! and skipped files are noted — drawn through the real inline terminal into vt100.

use std::num::NonZeroU16;

use ansa_sessions::protocol::CommandBody;
use crossterm::event::KeyCode;

use super::super::prompts::PromptDirs;
use super::super::terminal::{InlineTerminal, render};
use super::Harness;

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

fn dirs() -> (tempfile::TempDir, PromptDirs) {
    let t = tempfile::tempdir().unwrap();
    let user = t.path().join("home/prompts");
    let project = t.path().join("ws/.ansa/prompts");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        user.join("review.md"),
        "# Review a change\nReview $ARGUMENTS.\n",
    )
    .unwrap();
    std::fs::write(
        user.join("fix-tests.md"),
        "Fix the failing tests in $ARGUMENTS\n",
    )
    .unwrap();
    std::fs::write(
        project.join("review.md"),
        "# Project review\nCheck $ARGUMENTS against our style.\n",
    )
    .unwrap();
    std::fs::write(project.join("help.md"), "shadowed\n").unwrap();
    std::fs::write(project.join("broken.md"), b"\xff\xfe").unwrap();
    (
        t,
        PromptDirs {
            user: Some(user),
            project: Some(project),
        },
    )
}

#[test]
fn prompt_files_are_listed_completed_and_sent_with_their_arguments() {
    let (_t, dirs) = dirs();
    for (width, height) in [(60, 20), (120, 40)] {
        let mut h = Harness::opened(width, height, true, Vec::new());
        h.app.set_prompts(&dirs);
        h.drain();
        let notes = h.scrollback_text().join(" ");
        let notes = notes.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            notes.contains("help.md: not used: /help is a built-in command"),
            "{notes}"
        );
        assert!(
            notes.contains("broken.md: not used: not UTF-8 text"),
            "{notes}"
        );
        h.type_text("/");
        let shown = screen(&mut h);
        assert!(shown.contains("/review"), "{shown}");
        assert!(
            shown.contains("prompt · Project review"),
            "project wins: {shown}"
        );
        assert!(
            shown.contains("prompt · Fix the failing tests in $ARGUMENTS"),
            "{shown}"
        );
        assert!(shown.contains("/status"), "built-ins still listed: {shown}");
        h.type_text("fi");
        h.press(KeyCode::Tab);
        assert_eq!(h.app.input.text(), "/fix-tests ");
        assert_eq!(
            h.app.mode,
            ansa_sessions::Mode::Basic,
            "Tab completed, not the mode"
        );
        h.type_text("ui/src");
        h.press(KeyCode::Enter);
        let CommandBody::Submit { text, .. } = &h.last().body else {
            panic!("{:?}", h.last());
        };
        assert_eq!(text, "Fix the failing tests in ui/src\n");
        h.type_text("/review @README.md");
        h.press(KeyCode::Esc);
        h.press(KeyCode::Enter);
        let CommandBody::Submit { text, .. } = &h.last().body else {
            panic!("{:?}", h.last());
        };
        assert_eq!(
            text,
            "# Project review\nCheck @README.md against our style.\n"
        );
        h.type_text("/help");
        h.press(KeyCode::Enter);
        assert!(
            !matches!(h.last().body, CommandBody::Submit { ref text, .. } if text.contains("shadowed")),
            "the built-in ran"
        );
    }
}
