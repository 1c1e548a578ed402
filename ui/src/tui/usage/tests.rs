//! The usage field of the footer, `/status`'s tokens and context rows, and the warning before
//! compaction, at 60×20, 100×32 and 120×40.

use ansa_sessions::protocol::{ContextSize, EventBody, SessionUsage};
use crossterm::event::KeyCode;

use super::super::AccessInfo;
use super::super::tests::{Harness, line_text, snapshot_body};
use super::super::view;

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 32), (120, 40)];

fn usage() -> SessionUsage {
    SessionUsage {
        input_tokens: 48_200,
        output_tokens: 1_900,
        cached_tokens: 31_500,
    }
}

/// A snapshot with this usage and a context of `bytes` against a 1 MB budget.
fn snapshot(h: &mut Harness, bytes: u64) {
    let mut s = snapshot_body(0);
    s.usage = Some(usage());
    s.context = Some(ContextSize {
        bytes,
        budget: 1_000_000,
    });
    h.event(EventBody::Snapshot(s));
}

fn footer(h: &Harness) -> String {
    let live = view::live(&h.app);
    line_text(live.lines.last().unwrap())
}

#[test]
fn the_footer_shows_tokens_and_the_fill_against_the_window_after_the_access_mode() {
    for (width, height) in SIZES {
        let mut h = Harness::opened(width, height, true, vec![]);
        h.app.access = AccessInfo::Ask;
        h.app.meter.window = Some(272_000);
        // 400 KB ≈ 100k tokens: 36% of a 272k window, 40% of the compaction budget.
        snapshot(&mut h, 400_000);
        let footer = footer(&h);
        assert!(
            footer.contains("ctx 36% of 272k"),
            "{width}×{height}: {footer}"
        );
        let (access, fill) = (footer.find("ask").unwrap(), footer.find("ctx").unwrap());
        assert!(access < fill, "{width}×{height}: {footer}");
        assert!(footer.contains("Enter send"), "{width}×{height}: {footer}");
        assert!(
            usize::from(width) >= super::super::wrap::display_width(&footer),
            "{width}×{height}: {footer}"
        );
        if width >= 100 {
            assert!(
                footer.contains("48.2k in (31.5k cached) · 1.9k out"),
                "{width}×{height}: {footer}"
            );
        }
    }
}

#[test]
fn an_unknown_window_is_a_question_mark() {
    let mut h = Harness::opened(120, 40, true, vec![]);
    snapshot(&mut h, 400_000);
    assert!(footer(&h).contains("ctx ≈100k of ?"), "{}", footer(&h));
    h.type_text("/status");
    h.press(KeyCode::Enter);
    snapshot(&mut h, 400_000);
    let shown: Vec<String> = view::live(&h.app).lines.iter().map(line_text).collect();
    assert!(
        shown.iter().any(|l| l.contains("unknown window (?)")),
        "{shown:#?}"
    );
}

#[test]
fn status_shows_cached_tokens_and_the_fill_against_window_and_budget() {
    for (width, height) in SIZES {
        let mut h = Harness::opened(width, height, true, vec![]);
        h.app.meter.window = Some(272_000);
        h.type_text("/status");
        h.press(KeyCode::Enter);
        snapshot(&mut h, 400_000);
        let shown = view::live(&h.app)
            .lines
            .iter()
            .map(line_text)
            .collect::<Vec<_>>()
            .join("\n");
        let flat: String = shown.split_whitespace().collect::<Vec<_>>().join(" ");
        for needle in [
            "tokens 48.2k in (31.5k cached) · 1.9k out",
            "≈100k tokens, 36% of the 272k-token window",
            "390 KiB of 976 KiB before compaction (40%)",
        ] {
            assert!(
                flat.contains(needle),
                "{width}×{height}: `{needle}` in\n{shown}"
            );
        }
    }
}

#[test]
fn near_compaction_the_fill_turns_yellow_and_a_notice_is_said_once() {
    for (width, height) in SIZES {
        let mut h = Harness::opened(width, height, false, vec![]);
        h.app.meter.window = Some(272_000);
        snapshot(&mut h, 840_000);
        let said = |h: &Harness| {
            h.scrollback_text()
                .iter()
                .filter(|l| l.contains("compaction budget"))
                .count()
        };
        assert_eq!(said(&h), 0, "{width}×{height}: 84% is not near yet");
        let style_of_fill = |h: &Harness| {
            let live = view::live(&h.app);
            let footer = live.lines.last().unwrap().clone();
            footer
                .spans
                .iter()
                .find(|s| s.content.contains("ctx"))
                .map(|s| s.style)
                .unwrap()
        };
        assert_eq!(style_of_fill(&h), h.app.theme.dim());
        snapshot(&mut h, 850_000);
        assert_eq!(style_of_fill(&h), h.app.theme.warn(), "{width}×{height}");
        assert_ne!(h.app.theme.warn(), h.app.theme.dim());
        assert_eq!(said(&h), 1, "{width}×{height}: {:#?}", h.scrollback_text());
        snapshot(&mut h, 990_000);
        assert_eq!(said(&h), 1, "{width}×{height}: said once");
        // Compacted below the threshold, then near again: a new warning.
        snapshot(&mut h, 300_000);
        assert_eq!(style_of_fill(&h), h.app.theme.dim());
        snapshot(&mut h, 900_000);
        assert_eq!(said(&h), 2, "{width}×{height}");
    }
}
