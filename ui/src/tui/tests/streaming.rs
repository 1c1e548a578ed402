//! Long answers streamed in the small chunks a provider sends (often ending inside a line),
//! through the real inline terminal parsed by `vt100` with scrollback, at 60×20, 100×32 and
//! 120×40: blocks reach the scrollback only once complete (a table whole, in columns or in its
//! narrow form), and resizes while the answer streams leave every committed line there once.

use ansa_sessions::RequestId;
use ansa_sessions::protocol::PreviewState;
use crossterm::event::KeyCode;

use super::scrollback::{Rig, assert_no_alternate_screen, typing};

/// Rows of the streamed table.
const ROWS: usize = 30;

pub(super) fn setting(k: usize) -> String {
    format!("option_{k:02}")
}

/// A long answer: paragraphs, a 30-row table, a code block and more paragraphs.
pub(super) fn long_answer() -> String {
    let mut text = String::new();
    for n in 1..=4 {
        text.push_str(&format!(
            "Paragraph {n} explains the settings below in enough words to wrap on a narrow terminal.\n\n"
        ));
    }
    text.push_str("## Settings\n\n| setting | value | what it does |\n|---|---:|---|\n");
    for k in 1..=ROWS {
        text.push_str(&format!(
            "| {} | {} | sets knob {k} of the server when it starts or reloads |\n",
            setting(k),
            8000 + k
        ));
    }
    text.push_str("\nAfter the table comes a short example:\n\n```rust\n");
    for k in 1..=8 {
        text.push_str(&format!("let knob_{k} = config.get(\"option_{k:02}\");\n"));
    }
    text.push_str("```\n\n");
    for n in 5..=8 {
        text.push_str(&format!(
            "Paragraph {n} closes the answer with a few more words about the settings.\n\n"
        ));
    }
    text
}

/// Chunk ends as a provider's stream has them: before every space (so after a row's opening
/// `|`, inside a cell, inside a code line), then the whole text.
pub(super) fn chunk_ends(text: &str) -> Vec<usize> {
    let mut ends: Vec<usize> = text.match_indices(' ').map(|(at, _)| at).collect();
    ends.push(text.len());
    ends
}

pub(super) fn start_task(rig: &mut Rig) -> RequestId {
    rig.frame();
    rig.h.open(vec![]);
    rig.frame();
    typing(rig, "explain the settings");
    rig.h.press(KeyCode::Enter);
    rig.frame();
    let request = rig.h.submit_accepted("", 1);
    rig.frame();
    request
}

/// Streams `text` chunk by chunk, drawing a frame after each; `between` runs before chunk `n`.
pub(super) fn stream(
    rig: &mut Rig,
    request: RequestId,
    text: &str,
    mut between: impl FnMut(&mut Rig, usize),
) {
    for (n, end) in chunk_ends(text).into_iter().enumerate() {
        between(rig, n);
        rig.h.preview(request, &text[..end], PreviewState::Preview);
        rig.frame();
    }
    rig.h.preview(request, text, PreviewState::Committed);
    rig.h.answer(request, text);
    rig.frame();
}

/// Checks the table in `lines`: no source row leaked as text, the header once, and every row
/// once, in columns when the table fits `width`, else as a `setting: …` record.
fn assert_table_whole(lines: &[String], width: u16) {
    assert!(
        !lines.iter().any(|l| l.contains('|')),
        "a table row reached the scrollback as text at {width} columns: {lines:#?}"
    );
    let columns = width >= 80;
    for k in 1..=ROWS {
        let name = setting(k);
        let hits: Vec<&String> = if columns {
            lines
                .iter()
                .filter(|l| l.starts_with(&format!("{name} │ ")))
                .collect()
        } else {
            lines
                .iter()
                .filter(|l| **l == format!("setting: {name}"))
                .collect()
        };
        assert_eq!(hits.len(), 1, "row {k} at {width} columns: {lines:#?}");
        if columns {
            assert!(
                hits[0].contains(&format!("{} │ sets knob {k} of", 8000 + k)),
                "{}",
                hits[0]
            );
        }
    }
    if columns {
        let header = lines
            .iter()
            .filter(|l| l.starts_with("setting ") && l.contains("│ value │ what it does"))
            .count();
        assert_eq!(header, 1, "{lines:#?}");
    } else {
        let values = lines.iter().filter(|l| l.starts_with("value: 80")).count();
        assert_eq!(values, ROWS, "{lines:#?}");
    }
}

#[test]
fn a_table_streamed_in_chunks_reaches_the_scrollback_whole() {
    let text = long_answer();
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut rig = Rig::new(width, height);
        let request = start_task(&mut rig);
        stream(&mut rig, request, &text, |_, _| {});
        let lines = rig.finish();
        assert_eq!(lines, rig.expected, "{width}×{height}");
        assert_table_whole(&lines, width);
        for k in 1..=8 {
            let code = format!("let knob_{k} = config.get(\"option_{k:02}\");");
            assert_eq!(
                lines.iter().filter(|l| l.trim() == code).count(),
                1,
                "{code} at {width}×{height}"
            );
        }
        assert_no_alternate_screen(&rig);
    }
}

/// Every line of the scrollback is a committed line, in order, once: a terminal that cuts rows
/// on screen when it narrows (vt100, like xterm) shows a long prefix of what was committed.
fn assert_committed_once(lines: &[String], expected: &[String], size: (u16, u16)) {
    assert_eq!(lines.len(), expected.len(), "{size:?}: {lines:#?}");
    for (got, want) in lines.iter().zip(expected) {
        let cut = !got.is_empty() && want.starts_with(got.as_str()) && got.chars().count() >= 40;
        assert!(
            got == want || cut,
            "{size:?}: {got:?} where {want:?} was committed"
        );
    }
}

#[test]
fn resizing_while_a_table_and_code_stream_leaves_every_line_once() {
    let text = long_answer();
    let ends = chunk_ends(&text);
    // Inside the table, then inside the code block.
    let in_table = ends
        .iter()
        .position(|&e| text[..e].contains("option_12"))
        .unwrap();
    let in_code = ends
        .iter()
        .position(|&e| text[..e].contains("knob_4"))
        .unwrap();
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let narrow = width * 4 / 5;
        let wide = width * 6 / 5;
        let mut rig = Rig::new(width, height);
        let request = start_task(&mut rig);
        stream(&mut rig, request, &text, |rig, n| {
            if n == in_table {
                rig.resize(narrow, height);
                rig.frame();
            } else if n == in_table + 8 || n == in_code + 3 {
                rig.resize(wide, height);
                rig.frame();
            } else if n == in_code {
                rig.resize(narrow, height);
                rig.frame();
            }
        });
        let lines = rig.finish();
        assert_committed_once(&lines, &rig.expected, (width, height));
        for k in 1..=ROWS {
            let name = setting(k);
            let rows = lines
                .iter()
                .filter(|l| l.contains(&name) && !l.contains("config.get"))
                .count();
            assert_eq!(rows, 1, "{name} at {width}×{height}: {lines:#?}");
        }
        for k in 1..=8 {
            let code = format!("let knob_{k} = config.get(");
            assert_eq!(
                lines.iter().filter(|l| l.contains(&code)).count(),
                1,
                "{code} at {width}×{height}: {lines:#?}"
            );
        }
        assert_no_alternate_screen(&rig);
    }
}

/// The live region drawn on a terminal whose cursor starts at the top-left corner.
fn region_at_top(rows: &[String], width: u16) -> super::super::terminal::InlineTerminal<Vec<u8>> {
    use ratatui::text::Line;
    let mut term =
        super::super::terminal::InlineTerminal::new(Vec::new(), (width, 20), Some((0, 0)));
    let lines: Vec<Line<'static>> = rows.iter().map(|r| Line::raw(r.clone())).collect();
    let buf = super::super::blocks::to_buffer(&lines, width);
    let cursor = Some((2, u16::try_from(rows.len() - 1).unwrap()));
    term.draw(&buf, cursor).unwrap();
    term
}

#[test]
fn the_region_at_the_top_row_is_never_erased_with_a_whole_screen_clear() {
    // "Erase below" at the home position is a whole-screen clear: tmux moves the screen into
    // its history then (`scroll-on-clear`), the live region with it.
    let rows = vec!["preview".to_owned(), "› input".to_owned()];
    let mut term = region_at_top(&rows, 40);
    term.invalidate();
    let lines: Vec<ratatui::text::Line<'static>> = rows
        .iter()
        .map(|r| ratatui::text::Line::raw(r.clone()))
        .collect();
    let buf = super::super::blocks::to_buffer(&lines, 40);
    term.draw(&buf, Some((2, 1))).unwrap();
    term.clear().unwrap();
    let bytes = String::from_utf8_lossy(term.writer_mut()).into_owned();
    assert_eq!(term.top(), 0);
    assert!(!bytes.contains("\u{1b}[J"), "{bytes:?}");
    assert!(
        bytes.matches("\u{1b}[2K").count() >= 20,
        "erased line by line: {bytes:?}"
    );
}

#[test]
fn the_terminal_cursor_is_parked_at_the_region_top_and_marks_it_after_a_resize() {
    // Three 100-column rows and the input at rows 10..14 of a 20-row screen.
    let wide = "x".repeat(100);
    let rows = [wide.clone(), wide.clone(), wide, "› input".to_owned()];
    let lines: Vec<ratatui::text::Line<'static>> = rows
        .iter()
        .map(|r| ratatui::text::Line::raw(r.clone()))
        .collect();
    let mut term =
        super::super::terminal::InlineTerminal::new(Vec::new(), (100, 20), Some((0, 10)));
    term.draw(&super::super::blocks::to_buffer(&lines, 100), Some((9, 3)))
        .unwrap();
    assert_eq!(term.top(), 10);
    let mut parser = vt100::Parser::new(
        std::num::NonZeroU16::new(20).unwrap(),
        std::num::NonZeroU16::new(100).unwrap(),
        0,
    );
    // The terminal's cursor where the region was told it is; frames move relative to it.
    parser.process(b"\x1b[11;1H");
    parser.process(term.writer_mut());
    // Parked at the region's top-left, hidden; the input's cursor is a reversed cell.
    assert_eq!(parser.screen().cursor_position(), (10, 0));
    assert!(parser.screen().hide_cursor());
    assert!(parser.screen().cell(13, 9).unwrap().inverse());
    assert!(!parser.screen().cell(13, 8).unwrap().inverse());
    // Whatever the terminal did with the rows (tmux split them and pushed rows off the top,
    // so the cursor's row moved up), the reported cursor row is the region's top.
    term.resize((80, 20), Some((0, 4)));
    assert_eq!(term.top(), 4);
    term.resize((80, 12), Some((0, 11)));
    assert_eq!(term.top(), 11);
    // Unknown: the old top, on screen.
    term.resize((80, 8), None);
    assert_eq!(term.top(), 7);
}
