//! The `--resume` picker on the terminal: an inline region (never the alternate screen, like
//! the TUI) drawn with the TUI's own [`InlineTerminal`], erased when a session is picked.

use std::io;
use std::path::PathBuf;

use ansa_sessions::SessionId;
use ansa_sessions::catalog::Listed;
use crossterm::event::{self as term_event, Event as TermEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::model::{Picker, Step};
use super::table::{cut, table_lines};
use crate::error::UiError;
use crate::tui::blocks::to_buffer;
use crate::tui::terminal::{Frames, InlineTerminal, TerminalGuard};

/// Rows around the table: the title, the filter, the headings and the key help.
const CHROME: u16 = 4;

/// Shows the picker over `rows` (newest first) starting with the sessions of `cwd`; returns
/// the session picked with Enter, or `None` when the user left with Esc or Ctrl+C.
pub fn run_picker(rows: Vec<Listed>, cwd: PathBuf) -> Result<Option<SessionId>, UiError> {
    let fail = |what: &'static str| move |e: io::Error| UiError::io(what)(e);
    let guard = TerminalGuard::enter().map_err(fail("setting up the terminal"))?;
    let size = crossterm::terminal::size().map_err(fail("reading the terminal size"))?;
    let cursor = crossterm::cursor::position().ok();
    let mut term = InlineTerminal::new(Frames::default(), size, cursor);
    let mut picker = Picker::new(rows, cwd);
    let mut height = size.1;
    let picked = loop {
        let frame = frame(&picker, now_ms(), term.width(), height);
        term.draw(&to_buffer(&frame.lines, term.width()), Some(frame.cursor))
            .map_err(fail("drawing the session picker"))?;
        guard.set_live_top(term.top());
        match term_event::read().map_err(fail("reading the terminal"))? {
            TermEvent::Key(key) => match picker.key(key, page(height)) {
                Step::Stay => {}
                Step::Open(id) => break Some(id),
                Step::Leave => break None,
            },
            TermEvent::Resize(w, h) => {
                height = h;
                term.resize((w, h), crossterm::cursor::position().ok());
            }
            _ => {}
        }
    };
    term.clear().map_err(fail("clearing the session picker"))?;
    guard.restore();
    Ok(picked)
}

/// The first frame the picker draws for `rows` at `size` (the benchmark's measure of how
/// long opening it takes), as the bytes written to the terminal.
#[doc(hidden)]
pub fn first_frame(rows: Vec<Listed>, cwd: PathBuf, now_ms: u64, size: (u16, u16)) -> Vec<u8> {
    let picker = Picker::new(rows, cwd);
    let mut term = InlineTerminal::new(Vec::new(), size, Some((0, 0)));
    let frame = frame(&picker, now_ms, size.0, size.1);
    // Writing to memory cannot fail.
    let _ = term.draw(&to_buffer(&frame.lines, size.0), Some(frame.cursor));
    std::mem::take(term.writer_mut())
}

/// How many rows one page shows on a terminal `height` rows high.
fn page(height: u16) -> usize {
    usize::from(height.saturating_sub(CHROME + 1).clamp(1, 20))
}

struct Frame {
    lines: Vec<Line<'static>>,
    cursor: (u16, u16),
}

fn frame(picker: &Picker, now_ms: u64, width: u16, height: u16) -> Frame {
    let w = usize::from(width);
    let dim = Style::default().add_modifier(Modifier::DIM);
    let page = page(height);
    let total = picker.shown_len();
    let start = picker.selected() / page * page;
    let rows: Vec<Listed> = picker.shown().skip(start).take(page).cloned().collect();
    let whose = match picker.all() {
        true => "every directory".to_owned(),
        false => crate::sanitize::exact(&picker.cwd().display().to_string()).into_owned(),
    };
    let title = format!(
        "Resume a session of {whose} · {} of {total}",
        if total == 0 { 0 } else { picker.selected() + 1 }
    );
    let mut lines = vec![Line::from(Span::styled(cut(&title, w), dim))];
    let filter = format!("filter: {}", crate::sanitize::exact(picker.filter()));
    let cursor_x = u16::try_from(unicode_width::UnicodeWidthStr::width(filter.as_str()))
        .unwrap_or(u16::MAX)
        .min(width.saturating_sub(1));
    lines.push(Line::from(cut(&filter, w)));
    let table = table_lines(&rows, now_ms, Some(w.saturating_sub(2)));
    let mut table = table.into_iter();
    if let Some(heading) = table.next() {
        lines.push(Line::from(Span::styled(format!("  {heading}"), dim)));
    }
    for (i, row) in table.enumerate() {
        if start + i == picker.selected() {
            let style = Style::default().add_modifier(Modifier::REVERSED);
            lines.push(Line::from(Span::styled(format!("› {row}"), style)));
        } else {
            lines.push(Line::from(format!("  {row}")));
        }
    }
    if total == 0 {
        let why = match (picker.filter().is_empty(), picker.all()) {
            (false, _) => "nothing matches the filter (Backspace to widen it)",
            (true, false) => "no sessions in this directory yet (Tab shows every directory's)",
            (true, true) => "no sessions yet",
        };
        lines.push(Line::from(Span::styled(cut(why, w), dim)));
    }
    let other = match picker.all() {
        true => "Tab this directory",
        false => "Tab every directory",
    };
    let help = format!("↑↓ PgUp PgDn move · type to filter · Enter open · {other} · Esc leave");
    lines.push(Line::from(Span::styled(cut(&help, w), dim)));
    Frame {
        lines,
        cursor: (cursor_x, 1),
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
