//! Prompt files as `/name` commands through the built binary in a real terminal (tmux) at
//! 60×20 and 120×40 (issue 43 item 9): `<ANSA_HOME>/prompts/` and `<workspace>/.ansa/prompts/`
//! are listed under `/` with their first line, the project's file wins, `$ARGUMENTS` is the
//! rest of the line, and a file that cannot be used is noted.

use crate::harness::{World, journal_text, only_session_dir};
use crate::tmux::Tmux;

#[test]
fn prompt_files_are_commands_in_the_tui_at_60x20_and_120x40() {
    for (width, height) in [(60, 20), (120, 40)] {
        let w = World::new();
        let user = w.ansa_home().join("prompts");
        let project = w.ws().join(".ansa/prompts");
        std::fs::create_dir_all(&user).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            user.join("explain.md"),
            "# Explain code\nExplain $ARGUMENTS simply.\n",
        )
        .unwrap();
        std::fs::write(
            user.join("review.md"),
            "# User review\nReview $ARGUMENTS.\n",
        )
        .unwrap();
        std::fs::write(
            project.join("review.md"),
            "# Team review\nTeam-review $ARGUMENTS.\n",
        )
        .unwrap();
        std::fs::write(project.join("latin1.md"), b"caf\xe9\n").unwrap();
        let t = Tmux::start(&w, &["--offline"], width, height);
        t.wait_text("basic · idle");
        t.wait_for("the note on the file that cannot be used", |s| {
            let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
            flat.contains("latin1.md: not used: not UTF-8 text")
        });
        t.type_text("/");
        t.wait_text("prompt · Team review");
        t.wait_text("prompt · Explain code");
        t.type_text("rev");
        t.keys(&["Tab"]);
        t.wait_for("the name completed", |s| {
            s.lines().any(|l| l.trim_end() == "› /review")
        });
        t.type_text("src/main.rs");
        t.keys(&["Enter"]);
        t.wait_text("The test value for");
        let journal = journal_text(&only_session_dir(&w));
        assert!(
            journal.contains(r#"# Team review\nTeam-review src/main.rs.\n"#),
            "the project's prompt with its argument was sent: {journal}"
        );
        t.type_text("/exit");
        t.keys(&["Enter"]);
        t.wait_text("[ansa exited 0]");
    }
}
