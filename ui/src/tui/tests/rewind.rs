//! The rewind screens: `/rewind` and Esc Esc, the list, the scope, the plan with its
//! conflict choice, what `rewind_done` does, and every screen drawn at 60×20 and 120×40 with
//! long content (300 files, long paths, hostile names) — through a `TestBackend` and through
//! the real inline terminal parsed by `vt100`.

use std::num::NonZeroU16;

use ansa_sessions::RequestId;
use ansa_sessions::TranscriptPage;
use ansa_sessions::protocol::{
    CheckpointItem, CheckpointNotice, CheckpointNoticeKind, CommandBody, ErrorCode, EventBody,
    NotRestorable, PathKind, PlannedPath, RewindDone, RewindPlan,
};
use ansa_sessions::rewind::{ManifestHex, OnConflict, RewindScope};
use crossterm::event::KeyCode;

use super::super::rewind::Step;
use super::super::terminal::{InlineTerminal, render};
use super::super::view;
use super::{Harness, exchanges, line_text};

/// A path with an escape sequence and a BiDi override in its name.
const HOSTILE: &str = "src/evil\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}gnp.rs";

/// `n` minutes ago by the wall clock (the list shows times relative to it).
fn minutes_ago(n: u64) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    now - n * 60_000
}

fn item(n: u64, prompt: &str, files: &[&str]) -> CheckpointItem {
    CheckpointItem {
        request_id: RequestId(n),
        turn: n,
        // Newer turns, later times: 30, 40, 50 minutes ago for turns 3, 2, 1.
        time: Some(minutes_ago(60u64.saturating_sub(10 * n))),
        prompt: prompt.to_owned(),
        files_changed: files.iter().map(|s| (*s).to_owned()).collect(),
        restorable: true,
        rewound: false,
        checkpoint: None,
    }
}

/// Three prompts, newest first; the middle one changed a hostile path.
fn three() -> Vec<CheckpointItem> {
    vec![
        item(3, "add a test for the parser", &["tests/parse.rs"]),
        item(
            2,
            "fix the parser so that the last line is kept",
            &["src/parser.rs", HOSTILE],
        ),
        item(1, "explain the build", &[]),
    ]
}

fn path(p: &str, kind: PathKind, added: u64, removed: u64) -> PlannedPath {
    PlannedPath {
        path: p.to_owned(),
        kind,
        added,
        removed,
    }
}

/// A plan of `files` restored files (long nested paths), some recreated and deleted, a
/// hostile path, two conflicts and two paths that are not restorable.
fn big_plan(target: u64, files: usize) -> RewindPlan {
    let deep = "very/deeply/nested/directory/structure/that/goes/on/and/on";
    let mut restore: Vec<PlannedPath> = (0..files)
        .map(|i| path(&format!("{deep}/file_{i:04}.rs"), PathKind::File, 3, 1))
        .collect();
    restore.push(path(HOSTILE, PathKind::File, 1, 1));
    RewindPlan {
        target: RequestId(target),
        scope: RewindScope::Both,
        restore,
        recreate: vec![
            path("docs/gone.md", PathKind::File, 12, 0),
            path("assets", PathKind::Dir, 0, 0),
            path("link", PathKind::Symlink, 0, 0),
        ],
        delete: vec![path("new_file.txt", PathKind::File, 0, 4)],
        conflicts: vec!["src/parser.rs".into(), HOSTILE.into()],
        not_restorable: vec![
            NotRestorable {
                path: "target".into(),
                reason: "ignored by .gitignore".into(),
            },
            NotRestorable {
                path: "big.bin".into(),
                reason: "larger than 16 MiB".into(),
            },
        ],
        unkept: Vec::new(),
        rewound: vec![RequestId(target), RequestId(target + 1)],
        changed_not_restored: Vec::new(),
    }
}

/// The live region as text lines.
fn live_text(h: &Harness) -> Vec<String> {
    view::live(&h.app).lines.iter().map(line_text).collect()
}

/// Opens the list with `/rewind` and answers it with `items`.
fn open_list(h: &mut Harness, items: Vec<CheckpointItem>) {
    h.type_text("/rewind");
    h.press(KeyCode::Enter);
    assert_eq!(h.last().body, CommandBody::Checkpoints);
    h.event(EventBody::Checkpoints { items });
}

/// From the list: choose the highlighted prompt, then the highlighted scope; the plan is asked.
fn to_plan(h: &mut Harness) {
    h.press(KeyCode::Enter);
    h.press(KeyCode::Enter);
}

fn assert_fits(lines: &[String], width: u16, height: u16, what: &str) {
    assert!(
        lines.len() <= usize::from(height),
        "{what}: {} rows at height {height}",
        lines.len()
    );
    for l in lines {
        assert!(
            super::super::wrap::display_width(l) <= usize::from(width),
            "{what}: a row wider than {width}: {l:?}"
        );
        assert!(
            !l.contains('\u{1b}') && !l.contains('\u{7}') && !l.contains('\u{202e}'),
            "{what}: a raw control character reached the screen: {l:?}"
        );
    }
}

#[test]
fn slash_rewind_lists_the_prompts_and_a_rewind_goes_list_scope_plan_done() {
    let mut h = Harness::opened(100, 30, true, exchanges(3));
    open_list(&mut h, three());
    let shown = live_text(&h).join("\n");
    assert!(shown.contains("prompt 1 of 3 · newest first"), "{shown}");
    let at = |s: &str| shown.find(s).unwrap_or_else(|| panic!("{s} in {shown}"));
    assert!(at("add a test") < at("fix the parser") && at("fix the parser") < at("explain"));
    assert!(shown.contains("no file changes"), "{shown}");
    // j/k and the arrows move; Enter chooses.
    h.press(KeyCode::Char('j'));
    h.press(KeyCode::Down);
    h.press(KeyCode::Char('k'));
    assert_eq!(h.app.rewind.as_ref().unwrap().selected, 1);
    h.press(KeyCode::Enter);
    assert_eq!(h.app.rewind.as_ref().unwrap().step, Step::Scope);
    let shown = live_text(&h).join("\n");
    assert!(
        shown.contains("1. code and conversation")
            && shown.contains("2. code only")
            && shown.contains("3. conversation only"),
        "{shown}"
    );
    h.press(KeyCode::Enter);
    assert_eq!(
        h.last().body,
        CommandBody::Rewind {
            target: RequestId(2),
            scope: RewindScope::Both,
            on_conflict: OnConflict::Refuse,
            dry_run: true,
            checkpoint: None,
        },
        "the plan first: a dry run"
    );
    assert!(live_text(&h).join("\n").contains("making the plan"));
    h.event(EventBody::RewindPlan(big_plan(2, 3)));
    let shown = live_text(&h).join("\n");
    assert!(shown.contains("2 conflicts"), "{shown}");
    assert!(shown.contains("one choice for all 2"), "{shown}");
    assert!(shown.contains("chosen: nothing yet"), "{shown}");
    // Enter is refused until the conflicts have a choice.
    let sent = h.sent.len();
    h.press(KeyCode::Enter);
    assert_eq!(h.sent.len(), sent, "nothing sent before the choice");
    assert!(
        live_text(&h)
            .join("\n")
            .contains("choose for the conflicts first"),
        "{:#?}",
        live_text(&h)
    );
    h.press(KeyCode::Char('t'));
    assert!(
        live_text(&h)
            .join("\n")
            .contains("chosen: take the checkpoint's")
    );
    h.press(KeyCode::Char('k'));
    assert!(live_text(&h).join("\n").contains("chosen: keep theirs"));
    h.press(KeyCode::Enter);
    assert_eq!(
        h.last().body,
        CommandBody::Rewind {
            target: RequestId(2),
            scope: RewindScope::Both,
            on_conflict: OnConflict::Keep,
            dry_run: false,
            checkpoint: None,
        }
    );
    assert!(live_text(&h).join("\n").contains("rewinding…"));
    // The real rewind publishes its plan again, then what it did.
    h.event(EventBody::RewindPlan(big_plan(2, 3)));
    h.event(EventBody::RewindDone(RewindDone {
        target: RequestId(2),
        scope: RewindScope::Both,
        restored: 4,
        recreated: 3,
        deleted: 1,
        kept: vec![HOSTILE.into()],
        prompt: "fix the parser so that the last line is kept\nand say why".into(),
        rewound: vec![RequestId(2), RequestId(3)],
        checkpoint: None,
        rolled_back: false,
        conflicts: vec![],
    }));
    assert!(h.app.rewind.is_none(), "the screens close");
    assert_eq!(
        h.app.input.text(),
        "fix the parser so that the last line is kept\nand say why",
        "the prompt is back in the input, whole"
    );
    let dialog = h
        .scrollback_text()
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        dialog.contains(
            "rewound to before turn 2 (code and conversation): 4 restored, 3 recreated, 1 deleted"
        ),
        "{dialog}"
    );
    assert!(
        dialog.contains("kept as they were: src/evil␛[2J␛]0;pwned␇<U+202E>gnp.rs"),
        "{dialog}"
    );
    assert!(dialog.contains("2 turns of the conversation taken back"));
    assert!(h.app.history.rewound.contains(&RequestId(2)));
    assert!(h.app.history.rewound.contains(&RequestId(3)));
    assert!(!h.app.history.rewound.contains(&RequestId(1)));
}

#[test]
fn esc_esc_on_an_empty_input_opens_the_list_but_not_with_text_or_slowly() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    h.at(1.0);
    h.press(KeyCode::Esc);
    h.at(1.5);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_some(), "Esc Esc opens the rewind");
    assert_eq!(h.last().body, CommandBody::Checkpoints);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_none(), "Esc leaves the list");

    // Two Esc more than a second apart: no.
    let sent = h.sent.len();
    h.at(10.0);
    h.press(KeyCode::Esc);
    h.at(11.5);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_none());
    // With text in the input: Esc Esc leaves it alone.
    h.type_text("draft");
    h.at(20.0);
    h.press(KeyCode::Esc);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_none());
    assert_eq!(h.app.input.text(), "draft");
    // Another key between the two: no.
    h.ctrl('u');
    h.at(30.0);
    h.press(KeyCode::Esc);
    h.press(KeyCode::Left);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_none());
    assert_eq!(h.sent.len(), sent, "nothing asked");
}

#[test]
fn rewind_waits_for_a_running_task() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    h.submit_accepted("busy", 1);
    let sent = h.sent.len();
    h.type_text("/rewind");
    h.press(KeyCode::Enter);
    assert!(h.app.rewind.is_none());
    assert_eq!(h.sent.len(), sent);
    assert!(
        h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("/rewind works when it has ended"))
    );
}

#[test]
fn esc_goes_back_one_screen_and_the_runtime_refusal_is_shown() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    open_list(&mut h, three());
    to_plan(&mut h);
    assert_eq!(h.app.rewind.as_ref().unwrap().step, Step::Plan);
    h.press(KeyCode::Esc);
    assert_eq!(h.app.rewind.as_ref().unwrap().step, Step::Scope);
    // Code only, by its number.
    h.press(KeyCode::Char('2'));
    h.press(KeyCode::Enter);
    let CommandBody::Rewind { scope, dry_run, .. } = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!((scope, dry_run), (RewindScope::Code, true));
    let mut plan = big_plan(3, 2);
    plan.scope = RewindScope::Code;
    plan.conflicts.clear();
    h.event(EventBody::RewindPlan(plan.clone()));
    h.press(KeyCode::Enter);
    let apply = h.last().clone();
    assert!(matches!(
        apply.body,
        CommandBody::Rewind { dry_run: false, .. }
    ));
    // A concurrent writer: refused; the reason shows and the plan is made again.
    h.event(EventBody::Error {
        command_id: Some(apply.command_id),
        code: ErrorCode::RewindRefused,
        message: "src/parser.rs changed while restoring; nothing was changed".into(),
    });
    let shown = live_text(&h).join("\n");
    assert!(
        shown.contains("nothing was rewound: src/parser.rs changed while restoring"),
        "{shown}"
    );
    assert!(matches!(
        h.last().body,
        CommandBody::Rewind { dry_run: true, .. }
    ));
    assert!(
        h.scrollback_text()
            .iter()
            .all(|l| !l.contains("changed while"))
    );
    h.event(EventBody::RewindPlan(plan));
    h.press(KeyCode::Esc);
    h.press(KeyCode::Esc);
    h.press(KeyCode::Esc);
    assert!(h.app.rewind.is_none(), "plan → scope → list → closed");
}

#[test]
fn a_turn_whose_code_cannot_be_restored_offers_the_conversation_only() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    let mut items = three();
    items[0].restorable = false;
    open_list(&mut h, items);
    assert!(live_text(&h).join("\n").contains("code not restorable"));
    h.press(KeyCode::Enter);
    let shown = live_text(&h).join("\n");
    assert!(shown.contains("› 3. conversation only"), "{shown}");
    h.press(KeyCode::Char('1'));
    let sent = h.sent.len();
    h.press(KeyCode::Enter);
    assert_eq!(h.sent.len(), sent, "code cannot be asked for");
    assert!(live_text(&h).join("\n").contains("cannot be restored"));
}

#[test]
fn the_history_pane_marks_turns_the_transcript_flags_rewound() {
    let mut h = Harness::opened(80, 40, true, exchanges(6));
    h.ctrl('f');
    let query = match h.last().body.clone() {
        CommandBody::Story(q) => q,
        other => panic!("{other:?}"),
    };
    // The checkpoints list knows of no rewind: the transcript's own flag is enough.
    h.event(EventBody::Checkpoints { items: three() });
    let mut entries = exchanges(6)[0..6].to_vec();
    for e in entries.iter_mut().filter(|e| e.request_id == RequestId(3)) {
        e.rewound = true;
    }
    h.event(super::pane_page(TranscriptPage {
        begin: 1,
        end: 7,
        total: 12,
        entries,
        query,
    }));
    let shown = live_text(&h);
    let at = |s: &str| shown.iter().position(|l| l.contains(s)).unwrap();
    assert!(
        shown[at("question 3") - 1].contains("↺ rewound"),
        "{shown:#?}"
    );
    assert!(
        !shown[at("question 2") - 1].contains("rewound"),
        "{shown:#?}"
    );
}

#[test]
fn the_history_pane_marks_rewound_turns() {
    let mut h = Harness::opened(80, 40, true, exchanges(6));
    let mut items = three();
    items[0].rewound = true;
    items[1].rewound = true;
    // Opening the pane asks which turns were taken back (a reopened session does not know),
    // then for the page.
    h.ctrl('f');
    assert_eq!(h.sent[h.sent.len() - 2].body, CommandBody::Checkpoints);
    let query = match h.last().body.clone() {
        CommandBody::Story(q) => q,
        other => panic!("{other:?}"),
    };
    h.event(EventBody::Checkpoints { items });
    h.event(super::pane_page(TranscriptPage {
        begin: 1,
        end: 7,
        total: 12,
        entries: exchanges(6)[0..6].to_vec(),
        query,
    }));
    let shown = live_text(&h);
    let marks: Vec<usize> = shown
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("↺ rewound"))
        .map(|(i, _)| i)
        .collect();
    let at = |s: &str| shown.iter().position(|l| l.contains(s)).unwrap();
    assert_eq!(
        marks,
        vec![at("question 2") - 1, at("question 3") - 1],
        "{shown:#?}"
    );
    assert!(!shown[at("question 1") - 1].contains("rewound"));
    // Asked once: closing and opening again only pages.
    h.ctrl('f');
    let sent = h.sent.len();
    h.ctrl('f');
    assert!(
        h.sent[sent..]
            .iter()
            .all(|c| c.body != CommandBody::Checkpoints)
    );
}

#[test]
fn the_point_before_a_rewind_undoes_it_code_only() {
    let mut h = Harness::opened(100, 30, true, vec![]);
    let hex = ManifestHex::try_from("ab".repeat(32)).unwrap();
    let mut items = three();
    items[1].rewound = true;
    let mut undo = item(
        2,
        "fix the parser so that the last line is kept",
        &["src/parser.rs"],
    );
    undo.checkpoint = Some(hex.clone());
    items.insert(0, undo);
    open_list(&mut h, items);
    let shown = live_text(&h).join("\n");
    assert!(shown.contains("↶ undo the rewind to turn 2"), "{shown}");
    assert!(
        h.app.history.rewound.contains(&RequestId(2)),
        "the undo point does not unmark its turn"
    );
    // Straight to the plan: an undo restores code only.
    h.press(KeyCode::Enter);
    assert_eq!(
        h.last().body,
        CommandBody::Rewind {
            target: RequestId(2),
            scope: RewindScope::Code,
            on_conflict: OnConflict::Refuse,
            dry_run: true,
            checkpoint: Some(hex.clone()),
        }
    );
    let mut plan = big_plan(2, 1);
    plan.scope = RewindScope::Code;
    plan.conflicts.clear();
    h.event(EventBody::RewindPlan(plan));
    let shown = live_text(&h).join("\n");
    assert!(
        shown.contains("undo the rewind to turn 2 · code only"),
        "{shown}"
    );
    h.press(KeyCode::Enter);
    assert!(matches!(
        &h.last().body,
        CommandBody::Rewind { dry_run: false, checkpoint: Some(c), scope: RewindScope::Code, .. } if *c == hex
    ));
    h.event(EventBody::RewindDone(RewindDone {
        target: RequestId(2),
        scope: RewindScope::Code,
        restored: 1,
        recreated: 0,
        deleted: 0,
        kept: vec![],
        prompt: "fix the parser".into(),
        rewound: vec![],
        checkpoint: None,
        rolled_back: false,
        conflicts: vec![],
    }));
    assert!(h.app.rewind.is_none());
    assert_eq!(h.app.input.text(), "", "an undo gives no prompt back");
    let dialog = h.scrollback_text().join("\n");
    assert!(
        dialog.contains("undid the rewind to turn 2 (code only): 1 restored"),
        "{dialog}"
    );
}

#[test]
fn a_rewind_rolled_back_by_a_concurrent_writer_names_both_versions_and_gives_nothing_back() {
    let mut h = Harness::opened(100, 30, true, exchanges(3));
    open_list(&mut h, three());
    h.press(KeyCode::Down);
    h.press(KeyCode::Enter);
    h.press(KeyCode::Char('2'));
    h.press(KeyCode::Enter);
    let mut plan = big_plan(2, 0);
    plan.scope = RewindScope::Code;
    plan.conflicts.clear();
    h.event(EventBody::RewindPlan(plan));
    h.press(KeyCode::Enter);
    assert!(matches!(
        &h.last().body,
        CommandBody::Rewind { dry_run: false, .. }
    ));
    h.event(EventBody::RewindDone(RewindDone {
        target: RequestId(2),
        scope: RewindScope::Code,
        restored: 0,
        recreated: 0,
        deleted: 0,
        kept: vec![],
        prompt: "fix the parser".into(),
        rewound: vec![],
        checkpoint: None,
        rolled_back: true,
        conflicts: vec![ansa_sessions::protocol::RewindConflict {
            path: HOSTILE.into(),
            set_aside: format!("{HOSTILE}.ansa-rewind-conflict-1"),
        }],
    }));
    assert!(h.app.rewind.is_none(), "the screens close");
    assert_eq!(
        h.app.input.text(),
        "",
        "nothing was rewound: no prompt back"
    );
    assert!(h.app.history.rewound.is_empty());
    let dialog = h
        .scrollback_text()
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(dialog.contains("rolled back"), "{dialog}");
    assert!(dialog.contains("nothing was rewound"), "{dialog}");
    assert!(dialog.contains("gnp.rs.ansa-rewind-conflict-1"), "{dialog}");
    assert!(!dialog.contains('\u{1b}'), "{dialog}");
}

#[test]
fn the_list_scrolls_to_keep_the_selection_in_view_and_pages() {
    let many: Vec<CheckpointItem> = (1..=200)
        .rev()
        .map(|n| item(n, &format!("prompt number {n}"), &["a.rs"]))
        .collect();
    for (w, hgt) in [(60, 20), (120, 40)] {
        let mut h = Harness::opened(w, hgt, true, vec![]);
        open_list(&mut h, many.clone());
        for _ in 0..30 {
            h.press(KeyCode::Down);
        }
        let shown = live_text(&h);
        assert_fits(&shown, w, hgt, "list");
        assert!(
            shown
                .iter()
                .any(|l| l.starts_with("› ") && l.contains("prompt number 170")),
            "{shown:#?}"
        );
        h.press(KeyCode::PageDown);
        h.press(KeyCode::End);
        let shown = live_text(&h);
        assert!(
            shown
                .iter()
                .any(|l| l.starts_with("› ") && l.contains("prompt number 1 ")),
            "{shown:#?}"
        );
        assert!(shown.join("\n").contains("prompt 200 of 200"));
        h.press(KeyCode::Home);
        assert_eq!(h.app.rewind.as_ref().unwrap().selected, 0);
    }
}

/// Every row of the plan, collected by paging from the top to the end.
fn page_through(h: &mut Harness) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut last_top = usize::MAX;
    loop {
        let shown = live_text(h);
        assert_fits(&shown, h.app.width, h.app.height, "plan page");
        let top = h.app.rewind.as_ref().unwrap().top;
        seen.extend(shown);
        if shown_all(&seen) || top == last_top {
            break;
        }
        last_top = top;
        h.press(KeyCode::PageDown);
    }
    seen
}

/// `s` with every run of whitespace as one space (rows joined back into prose).
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shown_all(seen: &[String]) -> bool {
    seen.iter()
        .any(|l| l.contains("rows ") && !l.contains("more"))
}

#[test]
fn a_plan_of_hundreds_of_files_pages_whole_at_60x20_and_120x40() {
    for (w, hgt) in [(60u16, 20u16), (120, 40)] {
        let mut h = Harness::opened(w, hgt, false, vec![]);
        open_list(&mut h, three());
        h.press(KeyCode::Down);
        to_plan(&mut h);
        h.event(EventBody::RewindPlan(big_plan(2, 300)));
        let first = live_text(&h);
        assert_fits(&first, w, hgt, "plan");
        let joined = first.join("\n");
        // The conflicts and their choice come first, before the long list.
        assert!(joined.contains("2 conflicts"), "{joined}");
        assert!(
            joined.contains("restore 301 · recreate 3 · delete 1"),
            "{joined}"
        );
        assert!(joined.contains("PgDn/Space more"), "{joined}");
        let seen = page_through(&mut h);
        // Every path was on screen, wrapped but whole (joined back from its rows).
        let text: String = seen
            .iter()
            .map(|l| l.trim_start().to_owned())
            .collect::<Vec<_>>()
            .join("");
        for i in [0usize, 1, 150, 299] {
            let name = format!("file_{i:04}.rs");
            assert!(text.contains(&name), "{name} at {w}x{hgt}");
        }
        assert!(
            text.contains("src/evil␛[2J␛]0;pwned␇<U+202E>gnp.rs"),
            "hostile path visible"
        );
        assert!(text.contains("docs/gone.md  +12"));
        assert!(text.contains("assets (directory)"));
        assert!(text.contains("link (symlink)"));
        assert!(text.contains("new_file.txt  −4"));
        assert!(text.contains("target — ignored by .gitignore"));
        assert!(text.contains("big.bin — larger than 16 MiB"));
        assert!(text.contains("conversation: the context goes back"));
        assert!(
            flat(&seen.join(" ")).contains("this turn and the 1 after it are marked rewound"),
            "the count comes from the plan's rewound turns"
        );
        // PgUp goes back to the top.
        for _ in 0..100 {
            h.press(KeyCode::PageUp);
        }
        assert!(live_text(&h).join("\n").contains("rows 1–"));
    }
}

#[test]
fn every_screen_fits_60x20_and_120x40_with_hostile_and_long_text() {
    let long_prompt = format!(
        "refactor {} \u{1b}[31mred\u{1b}[0m and \u{202e}reversed",
        "the whole module tree ".repeat(8)
    );
    for (w, hgt) in [(60u16, 20u16), (120, 40)] {
        let mut h = Harness::opened(w, hgt, false, vec![]);
        let mut items = three();
        items[0].prompt = long_prompt.clone();
        items[0].files_changed = (0..64)
            .map(|i| format!("a/very/long/path/to/some/file_{i}.rs"))
            .collect();
        open_list(&mut h, items);
        let list = live_text(&h);
        assert_fits(&list, w, hgt, "list");
        assert!(list.join("\n").contains("<U+202E>") || w < 100);
        assert!(
            list.join("\n").contains("… "),
            "the files say how many more"
        );
        h.press(KeyCode::Down);
        let list = live_text(&h).join("\n");
        assert!(list.contains("src/evil␛[2J"), "{list}");
        h.press(KeyCode::Up);
        h.press(KeyCode::Enter);
        let scope = live_text(&h);
        assert_fits(&scope, w, hgt, "scope");
        assert!(scope.join("\n").contains("<U+202E>reversed"), "{scope:#?}");
        h.press(KeyCode::Enter);
        assert_fits(&live_text(&h), w, hgt, "waiting for the plan");
        h.event(EventBody::RewindPlan(big_plan(3, 300)));
        assert_fits(&live_text(&h), w, hgt, "plan");
    }
}

#[test]
fn screens_at_60x20() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    open_list(&mut h, three());
    h.press(KeyCode::Down);
    let list = live_text(&h).join("\n");
    h.press(KeyCode::Enter);
    let scope = live_text(&h).join("\n");
    h.press(KeyCode::Enter);
    h.event(EventBody::RewindPlan(big_plan(2, 300)));
    let plan = live_text(&h).join("\n");
    insta::assert_snapshot!(format!(
        "── list ──\n{list}\n── scope ──\n{scope}\n── plan ──\n{plan}"
    ));
}

fn nz(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

/// A real inline terminal writing into a `vt100` parser of `width`×`height`.
struct Screen {
    parser: vt100::Parser,
    term: InlineTerminal<Vec<u8>>,
}

impl Screen {
    fn new(width: u16, height: u16) -> Self {
        let mut parser = vt100::Parser::new(nz(height), nz(width), 1000);
        parser.process(b"$ ansa\r\n");
        let (row, col) = parser.screen().cursor_position();
        let term = InlineTerminal::new(Vec::new(), (width, height), Some((col, row)));
        Screen { parser, term }
    }

    /// Draws a frame and returns the screen as the terminal shows it.
    fn draw(&mut self, h: &mut Harness) -> String {
        render(&mut self.term, &mut h.app).unwrap();
        self.parser.process(&std::mem::take(self.term.writer_mut()));
        let screen = self.parser.screen().contents();
        assert!(
            !screen.contains('\u{1b}') && !screen.contains('\u{202e}') && !screen.contains('\u{7}'),
            "a raw control character on screen: {screen}"
        );
        assert!(!self.parser.screen().alternate_screen());
        screen
    }
}

/// Every screen drawn by the real inline terminal and read back by a vt100 parser: the
/// hostile path shows visibly, and the plan pages to its end.
#[test]
fn every_screen_through_a_real_terminal_shows_the_hostile_path_and_fits() {
    for (w, hgt) in [(60u16, 20u16), (120, 40)] {
        let mut screen = Screen::new(w, hgt);
        let mut h = Harness::opened(w, hgt, false, vec![]);
        screen.draw(&mut h);
        open_list(&mut h, three());
        h.press(KeyCode::Down);
        let list = screen.draw(&mut h);
        assert!(list.contains("newest first"), "{list}");
        assert!(
            list.contains("src/evil␛[2J␛]0;pwned␇<U+202E>gnp.rs"),
            "{list}"
        );
        h.press(KeyCode::Enter);
        let scope = screen.draw(&mut h);
        assert!(scope.contains("3. conversation only"), "{scope}");
        h.press(KeyCode::Enter);
        h.event(EventBody::RewindPlan(big_plan(2, 300)));
        let mut screens = Vec::new();
        for _ in 0..80 {
            screens.push(screen.draw(&mut h));
            h.press(KeyCode::PageDown);
        }
        let all = screens.join("\n");
        assert!(all.contains("2 conflicts"), "{all}");
        assert!(all.contains("pwned␇<U+202E>gnp.rs"), "{all}");
        assert!(all.contains("file_0299.rs"));
        assert!(all.contains("big.bin — larger than 16 MiB"));
    }
}

#[test]
fn a_checkpoint_notice_joins_the_dialog_sanitized() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    h.event(EventBody::CheckpointNotice(CheckpointNotice {
        request_id: RequestId(1),
        kind: CheckpointNoticeKind::OverBudget,
        message: "the checkpoint store is full (1 GiB): \u{1b}[2Jchanges from here on cannot be \
                  fully rewound"
            .into(),
    }));
    let dialog = h.scrollback_text().join(" ");
    assert!(
        dialog.contains("the checkpoint store is full (1 GiB): ␛[2Jchanges"),
        "{dialog}"
    );
}

#[test]
fn the_plan_names_the_paths_whose_current_version_is_lost() {
    let mut h = Harness::opened(120, 40, true, vec![]);
    open_list(&mut h, three());
    to_plan(&mut h);
    let mut plan = big_plan(3, 1);
    plan.unkept = vec!["huge.log".into()];
    h.event(EventBody::RewindPlan(plan));
    let shown = live_text(&h).join("\n");
    assert!(
        shown.contains("current version never kept, lost for good (1):"),
        "{shown}"
    );
    assert!(shown.contains("! huge.log"), "{shown}");
}

#[test]
fn the_plan_names_state_directories_changed_and_not_restored() {
    for (w, hgt) in [(60, 20), (120, 40)] {
        let mut h = Harness::opened(w, hgt, true, vec![]);
        open_list(&mut h, three());
        to_plan(&mut h);
        let mut plan = big_plan(3, 0);
        plan.changed_not_restored = vec![
            ansa_sessions::protocol::ChangedNotRestored {
                path: ".git".into(),
                paths: 7,
            },
            ansa_sessions::protocol::ChangedNotRestored {
                path: format!("{HOSTILE}/.jj"),
                paths: 1,
            },
        ];
        h.event(EventBody::RewindPlan(plan));
        let mut shown = live_text(&h).join("\n");
        // The plan scrolls: page down until the section is in view.
        for _ in 0..10 {
            if shown.contains(".git — 7 paths changed") {
                break;
            }
            h.press(KeyCode::PageDown);
            shown = live_text(&h).join("\n");
        }
        assert!(
            shown.contains("changed, not restored"),
            "{w}x{hgt}: {shown}"
        );
        assert!(
            shown.contains(".git — 7 paths changed"),
            "{w}x{hgt}: {shown}"
        );
        assert!(!shown.contains('\u{1b}'), "{shown}");
    }
}
