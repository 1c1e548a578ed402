//! `/status` when it does not fit the terminal: the title and the model stay, the usage rows
//! stay, the least useful rows give way and the panel says how many (60×20 with a long cwd and
//! the usage rows was 22 rows, and the region cut the title and the model off its top).

use ansa_sessions::protocol::{ContextSize, EventBody, SessionUsage};
use crossterm::event::KeyCode;

use super::{Harness, line_text, snapshot_body};
use crate::tui::view;

fn open_status(width: u16, height: u16) -> Vec<String> {
    let mut h = Harness::opened(width, height, true, vec![]);
    h.app.cwd = format!("/home/dev/{}/project", "a-long-directory-name/".repeat(6));
    h.app.meter.window = Some(272_000);
    h.type_text("/status");
    h.press(KeyCode::Enter);
    let mut s = snapshot_body(0);
    s.usage = Some(SessionUsage {
        input_tokens: 48_200,
        output_tokens: 1_900,
        cached_tokens: 31_500,
    });
    s.context = Some(ContextSize {
        bytes: 400_000,
        budget: 1_000_000,
    });
    h.event(EventBody::Snapshot(s));
    let live = view::live(&h.app);
    assert!(live.lines.len() <= usize::from(height), "{width}×{height}");
    live.lines.iter().map(line_text).collect()
}

#[test]
fn status_keeps_its_title_model_and_usage_when_the_terminal_is_short() {
    for (width, height) in [(60, 20), (120, 40)] {
        let shown = open_status(width, height);
        let all = shown.join("\n");
        for line in &shown {
            assert!(
                super::super::wrap::display_width(line) <= usize::from(width),
                "{width}×{height}: {line}"
            );
        }
        for needle in [
            "  /status",
            "    model    test-model",
            "    tokens   48.2k in",
        ] {
            assert!(
                shown.iter().any(|l| l.starts_with(needle)),
                "{width}×{height}: `{needle}` in\n{all}"
            );
        }
        assert!(all.contains("    context  "), "{width}×{height}:\n{all}");
        assert!(
            all.contains("    mode     basic"),
            "{width}×{height}:\n{all}"
        );
        if height == 40 {
            // Room for all: every row whole, nothing said about left-out rows.
            for key in ["provider", "auth", "cwd", "request", "turn", "journal"] {
                assert!(all.contains(&format!("    {key:<9}")), "{key}:\n{all}");
            }
            assert!(all.contains("a-long-directory-name/a-long"), "{all}");
            assert!(all.contains("  (Esc closes)\n"), "{all}");
        } else {
            assert!(
                all.contains("(Esc closes · 5 more rows in a taller terminal)"),
                "{all}"
            );
            // The spare rows went first: a request that is none and the turn number.
            assert!(!all.contains("    request  "), "{all}");
            assert!(!all.contains("    turn     "), "{all}");
        }
    }
}
