//! Issue 43 items 5, 6, 7 and 10 in the TUI: the access mode in the footer and `/status`, the
//! `/diff` pane (coloured, paged, at 60×20 too), `/compact`'s result, the provider notice, and
//! a retry's countdown.

use ansa_sessions::RequestId;
use ansa_sessions::protocol::{
    CommandBody, Compacted, DiffFile, DiffLine, DiffOmitted, DiffSign, DiffStatus, EventBody,
    ProviderNotice, ProviderNoticeKind, WorkspaceDiff,
};
use crossterm::event::KeyCode;
use ratatui::style::Color;

use super::super::AccessInfo;
use super::super::view;
use super::{Harness, line_text};

fn live_text(h: &Harness) -> Vec<String> {
    view::live(&h.app).lines.iter().map(line_text).collect()
}

/// The scrollback as one line of words (wrapping undone).
fn flat(h: &Harness) -> String {
    h.scrollback_text()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn footer(h: &Harness) -> String {
    live_text(h).last().cloned().unwrap_or_default()
}

#[test]
fn ask_mode_is_in_the_footer_and_status_at_every_size() {
    for (w, rows) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = Harness::opened(w, rows, false, vec![]);
        assert!(!footer(&h).contains("ask"), "{}", footer(&h));
        h.app.access = AccessInfo::Ask;
        let f = footer(&h);
        assert!(f.starts_with("basic · idle · ask ·"), "{w}: {f}");
        // At 60 columns with a sandbox too, both still fit before the hints give way.
        h.app.sandbox = crate::tui::SandboxInfo {
            mode: "workspace-write".into(),
            landlock_abi: Some(7),
            description: "writes in the workspace".into(),
            refused: None,
        };
        let f = footer(&h);
        assert!(f.contains("· ask · sandbox workspace-write"), "{w}: {f}");
        h.type_text("/status");
        h.press(KeyCode::Enter);
        let status = live_text(&h).join("\n");
        assert!(
            status.contains("mode     basic · ask: every change waits for approval"),
            "{w}: {status}"
        );
        h.press(KeyCode::Esc);
        h.app.access = AccessInfo::ReadOnly;
        assert!(footer(&h).contains("· read-only"), "{}", footer(&h));
    }
}

#[test]
fn the_footer_keeps_the_access_mode_and_the_abi_whole_at_60_80_and_120_columns() {
    // Before the footer was laid out by priority, a running task's state pushed the sandbox's
    // `Landlock ABI 7` past 60 columns, where the line was cut.
    for (w, rows) in [(60, 20), (80, 24), (120, 40)] {
        let mut h = Harness::opened(w, rows, false, vec![]);
        h.app.access = AccessInfo::Ask;
        h.app.sandbox = crate::tui::SandboxInfo {
            mode: "workspace-write".into(),
            landlock_abi: Some(7),
            description: "writes in the workspace".into(),
            refused: None,
        };
        h.submit_accepted("build it", 1);
        h.at(72.0);
        let f = footer(&h);
        assert!(
            crate::tui::wrap::display_width(&f) <= usize::from(w),
            "{w}: {f}"
        );
        assert!(
            f.contains(" · ask · sandbox workspace-write · "),
            "{w}: {f}"
        );
        assert!(
            f.trim_end().ends_with("ABI 7") || f.contains("ABI 7 · "),
            "{w}: {f}"
        );
        assert!(f.starts_with("basic · running"), "{w}: {f}");
        if w >= 80 {
            // Room for the whole state and sandbox; the hints gave way first.
            assert!(f.contains("running 1m12s"), "{w}: {f}");
            assert!(f.contains("Landlock ABI 7"), "{w}: {f}");
        }
        if w >= 120 {
            assert!(f.contains("Landlock ABI 7 · Ctrl+C cancel"), "{w}: {f}");
        }
    }
}

fn file(path: &str, status: DiffStatus, lines: Vec<DiffLine>) -> DiffFile {
    let added = lines.iter().filter(|l| l.sign == DiffSign::Added).count() as u64;
    let removed = lines.iter().filter(|l| l.sign == DiffSign::Removed).count() as u64;
    DiffFile {
        path: path.into(),
        status,
        added,
        removed,
        omitted: None,
        note: None,
        lines,
    }
}

fn line(sign: DiffSign, text: &str) -> DiffLine {
    DiffLine {
        sign,
        text: text.into(),
    }
}

fn answer(h: &mut Harness) -> WorkspaceDiff {
    let CommandBody::Diff = h.last().body else {
        panic!("/diff sent {:?}", h.last().body);
    };
    let mut long = vec![line(DiffSign::Hunk, "@@ -1,40 +1,40 @@")];
    for n in 0..40 {
        long.push(line(DiffSign::Removed, &format!("old line {n}")));
        long.push(line(DiffSign::Added, &format!("new line {n}")));
    }
    WorkspaceDiff {
        command_id: h.last().command_id.clone(),
        base: "ab".repeat(32),
        base_request_id: RequestId(1),
        files: vec![
            file("src/main.rs", DiffStatus::Modified, long),
            DiffFile {
                omitted: Some(DiffOmitted::Binary),
                ..file("logo.png", DiffStatus::Added, vec![])
            },
            file(
                "old.txt",
                DiffStatus::Deleted,
                vec![line(DiffSign::Removed, "bye\u{1b}[31m")],
            ),
        ],
        lines_left_out: 0,
    }
}

#[test]
fn diff_lists_the_files_then_pages_a_coloured_diff_at_60x20() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.type_text("/diff");
    h.press(KeyCode::Enter);
    assert!(live_text(&h).join("\n").contains("capturing the workspace"));
    let diff = answer(&mut h);
    h.event(EventBody::WorkspaceDiff(diff));
    let first = live_text(&h);
    let shown = first.join("\n");
    assert!(shown.contains("/diff since turn 1 · rows 1–"), "{shown}");
    assert!(shown.contains("3 files changed · +40 −41"), "{shown}");
    assert!(shown.contains("M src/main.rs +40 −40"), "{shown}");
    assert!(
        shown.contains("A logo.png (binary file, not diffed)"),
        "{shown}"
    );
    assert!(shown.contains("D old.txt +0 −1"), "{shown}");
    assert!(first.len() <= 20, "fits the terminal: {}", first.len());
    assert!(footer(&h).contains("PgUp/PgDn page"), "{}", footer(&h));
    // Page down to the diff lines: removals red, additions green.
    h.press(KeyCode::PageDown);
    let live = view::live(&h.app);
    let text: Vec<String> = live.lines.iter().map(line_text).collect();
    assert!(text.iter().any(|l| l.starts_with("-old line")), "{text:#?}");
    let colour = |prefix: &str| {
        live.lines
            .iter()
            .find(|l| line_text(l).starts_with(prefix))
            .and_then(|l| l.spans.iter().find_map(|s| s.style.fg))
    };
    assert_eq!(colour("-old line"), Some(Color::Red));
    assert_eq!(colour("+new line"), Some(Color::Green));
    // The end: the deleted file's line, its escape shown, not obeyed.
    h.press(KeyCode::End);
    let end = live_text(&h).join("\n");
    assert!(end.contains("── old.txt (deleted, +0 −1)"), "{end}");
    assert!(!end.contains('\u{1b}'), "an escape reached the terminal");
    h.press(KeyCode::Esc);
    assert!(h.app.diff.is_none());
    assert!(!live_text(&h).join("\n").contains("/diff"));
}

#[test]
fn a_refused_diff_closes_the_pane_and_says_why() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.type_text("/diff");
    h.press(KeyCode::Enter);
    let id = h.last().command_id.clone();
    h.event(EventBody::Error {
        command_id: Some(id),
        code: ansa_sessions::protocol::ErrorCode::DiffUnavailable,
        message: "this session has not changed the workspace: it has no checkpoint yet".into(),
    });
    assert!(h.app.diff.is_none());
    assert!(flat(&h).contains("has no checkpoint yet"));
}

#[test]
fn compact_sends_the_command_and_shows_tokens_before_and_after() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.type_text("/compact");
    h.press(KeyCode::Enter);
    assert_eq!(h.last().body, CommandBody::Compact);
    let id = h.last().command_id.clone();
    h.event(EventBody::Compacted(Compacted {
        command_id: id,
        bytes_before: 49_152,
        bytes_after: 12_288,
        tokens_before: 12_288,
        tokens_after: 3_072,
    }));
    let shown = flat(&h);
    assert!(
        shown.contains("compacted: context ≈ 12.3k → 3.1k tokens (48 KiB → 12 KiB)"),
        "{shown}"
    );
}

#[test]
fn compact_that_did_not_shrink_the_context_says_so_as_a_warning() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = Harness::opened(width, height, false, vec![]);
        h.type_text("/compact");
        h.press(KeyCode::Enter);
        let id = h.last().command_id.clone();
        h.event(EventBody::Compacted(Compacted {
            command_id: id,
            bytes_before: 12_288,
            bytes_after: 13_312,
            tokens_before: 3_072,
            tokens_after: 3_328,
        }));
        let shown = h.scrollback_text().join("\n");
        assert!(!shown.contains("compacted:"), "not a success line: {shown}");
        // Wrapped at 60 columns: compare with the rows joined.
        let joined = shown.split_whitespace().collect::<Vec<_>>().join(" ");
        let want = "! /compact did not shrink the context: ≈ 3.1k → 3.3k tokens (12 KiB → 13 KiB)";
        assert!(joined.contains(want), "{width}×{height}: {shown}");
    }
}

#[test]
fn the_provider_notice_is_said_in_the_dialog() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("hi", 1);
    h.event(EventBody::ProviderNotice(ProviderNotice {
        request_id: request,
        kind: ProviderNoticeKind::ReasoningNotCarried,
        message: "this host's reasoning cannot be carried between requests".into(),
    }));
    assert!(
        h.scrollback_text()
            .join("\n")
            .contains("cannot be carried between requests")
    );
}

#[test]
fn slash_menu_lists_diff_and_compact() {
    let names: Vec<&str> = crate::tui::keys::slash_matches("/")
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert!(
        names.windows(2).any(|w| w == ["/diff", "/compact"]),
        "{names:?}"
    );
    assert_eq!(
        crate::tui::keys::slash_completion("/di").as_deref(),
        Some("/diff")
    );
    assert_eq!(
        crate::tui::keys::slash_completion("/com").as_deref(),
        Some("/compact")
    );
}
