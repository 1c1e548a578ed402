//! `@` mentions through the built binary (issue 43 item 8): a JSONL `submit` with `mentions`
//! attaches each file as a read the model sees (journaled with the turn), refuses an
//! excluded, ignored, outside, binary or missing file before accepting anything, and the TUI
//! completes `@` paths in a real terminal (tmux) at 60×20 and 120×40.

use serde_json::json;

use crate::harness::{World, journal_text, only_session_dir};
use crate::tmux::Tmux;

fn workspace(w: &World) {
    let ws = w.ws();
    for (path, text) in [
        ("src/lib.rs", "pub fn answer() -> u32 { 42 }\n"),
        ("src/main.rs", "fn main() { println!(\"hi\"); }\n"),
        (".gitignore", "*.log\n"),
        ("build.log", "a log\n"),
        (".env", "TOKEN=secret\n"),
    ] {
        let full = ws.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    std::fs::write(ws.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 0, 1]).unwrap();
    std::fs::write(w.path("outside.txt"), "outside\n").unwrap();
    let long: String = (1..=20_000)
        .map(|n| format!("line {n} of a long file\n"))
        .collect();
    std::fs::write(ws.join("long.txt"), long).unwrap();
}

#[test]
fn a_mentioned_file_is_attached_as_a_read_and_journaled_with_the_turn() {
    let w = World::new();
    workspace(&w);
    let mut s = w.jsonl(&[]);
    let id = s.send(
        "submit",
        json!({"text": "what does @src/lib.rs do?", "mentions": ["src/lib.rs", "long.txt"]}),
    );
    let accepted = s.expect_type("command_accepted", &[("command_id", json!(id))]);
    let rid = accepted["request_id"].as_u64().unwrap();
    s.answer(rid);
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let journal = journal_text(&only_session_dir(&w));
    assert!(
        journal.contains(r#""mentions":["src/lib.rs","long.txt"]"#),
        "the accepted submit keeps its mentions"
    );
    let user = journal
        .lines()
        .find(|l| l.contains("what does @src/lib.rs do?") && l.contains("attached read"))
        .unwrap_or_else(|| panic!("no user message with the attachment:\n{journal}"));
    assert!(user.contains("@src/lib.rs (attached read)"), "{user}");
    assert!(user.contains("pub fn answer() -> u32 { 42 }"), "{user}");
    assert!(user.contains("@long.txt (attached read)"), "{user}");
    // Over the read budget only the head is shown, numbered; the whole file is retained as
    // `@1`, as a `read` call answers, and `more` says where the head stops.
    assert!(
        user.contains(r#"long.txt (attached read)\ns:ok\nd[1]{file,text}:\nlong.txt,>>>1"#),
        "{user}"
    );
    // The head's last line carries its number.
    assert!(user.contains(r#"\n687\t"#), "{user}");
    assert!(user.contains("long.txt: lines 1-"), "{user}");
    assert!(user.contains("lines 1-687 of the 20000"), "{user}");
    assert!(user.contains("offset 688 or evidence"), "{user}");
    assert!(!user.contains("line 20000 of a long file"), "{user}");
}

#[test]
fn a_mention_that_cannot_be_attached_is_refused_before_acceptance() {
    let w = World::new();
    workspace(&w);
    let mut s = w.jsonl(&[]);
    for (path, reason) in [
        (".env", "excluded: dotenv files are never exposed to tools"),
        ("build.log", "ignored by \"*.log\" in .gitignore"),
        ("../outside.txt", "the path is outside the workspace"),
        ("logo.png", "a binary file"),
        ("missing.rs", "no such file in the workspace"),
        ("src", "not a regular file"),
    ] {
        let id = s.send(
            "submit",
            json!({"text": "look", "mentions": ["src/lib.rs", path]}),
        );
        let err = s.expect_type("error", &[("command_id", json!(id))]);
        assert_eq!(err["code"], "mention_refused", "{err}");
        let message = err["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("@{path} cannot be attached: {reason}")),
            "{message}"
        );
    }
    let (code, events) = s.finish();
    assert_eq!(code, 0);
    assert!(
        !events.iter().any(|e| e["type"] == "command_accepted"),
        "nothing was accepted"
    );
}

#[test]
fn tui_completes_a_mention_and_refuses_a_missing_one_at_60x20_and_120x40() {
    for (width, height) in [(60, 20), (120, 40)] {
        let w = World::new();
        workspace(&w);
        let t = Tmux::start(&w, &["--offline"], width, height);
        t.wait_text("basic · idle");
        t.type_text("explain @lib");
        t.wait_text("› src/lib.rs");
        t.keys(&["Tab"]);
        t.wait_for("the path in the input", |s| {
            s.contains("explain @src/lib.rs")
        });
        t.keys(&["Enter"]);
        t.wait_text("The test value for");
        let journal = journal_text(&only_session_dir(&w));
        assert!(journal.contains("@src/lib.rs (attached read)"), "{journal}");
        t.type_text("and @.en");
        t.wait_text("no file matches @.en");
        t.keys(&["Escape"]);
        // The next key must not follow Esc so closely that it reads as Alt+key.
        t.wait_for("the list closed", |s| !s.contains("no file matches"));
        t.type_text("v see");
        t.keys(&["Enter"]);
        let screen = t.wait_text("cannot be attached");
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("@.env cannot be attached: excluded"),
            "{screen}"
        );
        t.wait_for("the text back in the input", |s| {
            s.contains("› and @.env see")
        });
        t.keys(&["C-u"]);
        t.type_text("/exit");
        t.keys(&["Enter"]);
        t.wait_text("[ansa exited 0]");
    }
}
