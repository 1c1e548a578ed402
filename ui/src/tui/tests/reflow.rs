//! A terminal that reflows on resize the way tmux 3.x does, built on `vt100` (which cuts rows
//! instead): the height changes first (rows below the cursor are dropped, then rows from the
//! top go into the history; a taller screen pulls rows back from the history), then every
//! logical line — rows the terminal wrapped itself joined again — is split at the new width,
//! the screen becomes the last rows of the whole grid (everything above it history), and the
//! cursor stays on its character. Committed lines are never wider than the terminal, so the
//! only rows this splits are rows of the live region and the terminal's own wrapped rows.

use std::num::NonZeroU16;

use unicode_width::UnicodeWidthChar;

fn nz(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

/// One row of the grid: its text and whether the terminal wrapped it into the next row.
struct Row {
    text: String,
    wrapped: bool,
}

/// A row read back: a wrapped row was full, so blanks the reading dropped at its end are
/// put back (they are part of the line it continues).
fn row(mut text: String, wrapped: bool, cols: u16) -> Row {
    if wrapped {
        let used: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
        text.extend(std::iter::repeat_n(
            ' ',
            usize::from(cols).saturating_sub(used),
        ));
    }
    Row { text, wrapped }
}

/// The whole history and screen with the rows the terminal wrapped joined again (what
/// `tmux capture-pane -J -S -` prints), trailing blanks and blank lines removed.
pub(super) fn joined_lines(parser: &mut vt100::Parser) -> Vec<String> {
    let (rows, _) = grid(parser);
    let mut lines: Vec<String> = Vec::new();
    let mut open = false;
    for row in rows {
        if open {
            if let Some(last) = lines.last_mut() {
                last.push_str(&row.text);
            }
        } else {
            lines.push(row.text);
        }
        open = row.wrapped;
    }
    let mut lines: Vec<String> = lines.into_iter().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Every row of `parser` (history first) and the cursor as (row in that list, column).
fn grid(parser: &mut vt100::Parser) -> (Vec<Row>, (usize, u16)) {
    let screen = parser.screen_mut();
    let (rows, cols) = screen.size();
    let (rows, cols) = (usize::from(rows.get()), cols.get());
    screen.set_scrollback(usize::MAX);
    let mut offset = screen.scrollback();
    let history = offset;
    let mut out = Vec::new();
    while offset > 0 {
        screen.set_scrollback(offset);
        let n = rows.min(offset);
        let texts: Vec<String> = screen.rows(0, cols).take(n).collect();
        for (i, text) in texts.into_iter().enumerate() {
            let wrapped = screen.row_wrapped(u16::try_from(i).unwrap_or(u16::MAX));
            out.push(row(text, wrapped, cols));
        }
        offset -= n;
    }
    screen.set_scrollback(0);
    let texts: Vec<String> = screen.rows(0, cols).collect();
    for (i, text) in texts.into_iter().enumerate() {
        let wrapped = screen.row_wrapped(u16::try_from(i).unwrap_or(u16::MAX));
        out.push(row(text, wrapped, cols));
    }
    let (row, col) = screen.cursor_position();
    (out, (history + usize::from(row), col))
}

/// Splits `text` into pieces of at most `width` columns.
fn split(text: &str, width: u16) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let mut used = 0usize;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > usize::from(width) {
            pieces.push(String::new());
            used = 0;
        }
        if let Some(last) = pieces.last_mut() {
            last.push(c);
        }
        used += w;
    }
    pieces
}

/// Resizes `parser` to `width`×`height` as tmux does and returns the terminal after it.
pub(super) fn resize(parser: &mut vt100::Parser, width: u16, height: u16) -> vt100::Parser {
    let (_, old_width) = parser.screen().size();
    // The height first: vt100 drops the rows below the cursor, then pushes rows from the top
    // into the history, and pulls rows back from it when the screen grows, as tmux does.
    parser.screen_mut().set_size(nz(height), old_width);
    let (rows, (cursor_row, cursor_col)) = grid(parser);
    // Logical lines: rows wrapped by the terminal joined again; where the cursor is in them.
    let mut lines: Vec<String> = Vec::new();
    let mut cursor = (0usize, usize::from(cursor_col));
    let mut open = false;
    for (i, row) in rows.iter().enumerate() {
        if !open {
            lines.push(String::new());
        }
        let index = lines.len() - 1;
        let line = &mut lines[index];
        if i == cursor_row {
            cursor = (index, line.chars().count() + usize::from(cursor_col));
        }
        line.push_str(&row.text);
        open = row.wrapped;
    }
    // Split at the new width; the screen is the last `height` rows.
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut at = (0usize, 0u16);
    for (n, line) in lines.iter().enumerate() {
        let pieces = split(line, width);
        if n == cursor.0 {
            let row = cursor.1 / usize::from(width);
            let col = cursor.1 % usize::from(width);
            at = (out.len() + row, u16::try_from(col).unwrap_or(0));
        }
        let last = pieces.len() - 1;
        for (k, piece) in pieces.into_iter().enumerate() {
            out.push((piece, k < last));
        }
    }
    while out.len() < usize::from(height) {
        out.push((String::new(), false));
    }
    let history = out.len() - usize::from(height);
    let mut next = vt100::Parser::new(nz(height), nz(width), 100_000);
    let count = out.len();
    for (k, (text, wrapped)) in out.into_iter().enumerate() {
        next.process(text.as_bytes());
        // A wrapped row is full: the next row's text continues it through the terminal's own
        // wrap, which marks it wrapped again.
        if !wrapped && k + 1 < count {
            next.process(b"\r\n");
        }
    }
    let (row, col) = if at.0 >= history {
        (at.0 - history, at.1)
    } else {
        (0, 0)
    };
    next.process(format!("\x1b[{};{}H", row + 1, col + 1).as_bytes());
    next
}

#[test]
fn the_model_splits_rows_and_pushes_the_top_into_the_history() {
    let mut parser = vt100::Parser::new(nz(6), nz(10), 1000);
    parser.process(b"aaaaaaaaaa\r\nbb\r\ncccccccccc\r\nd");
    let mut narrow = resize(&mut parser, 5, 6);
    let lines = super::scrollback::all_lines(&mut narrow);
    assert_eq!(lines, ["aaaaa", "aaaaa", "bb", "ccccc", "ccccc", "d"]);
    assert_eq!(narrow.screen().cursor_position(), (3, 1));
    // Widening joins the rows the terminal split.
    let mut wide = resize(&mut narrow, 10, 6);
    let lines = super::scrollback::all_lines(&mut wide);
    assert_eq!(lines, ["aaaaaaaaaa", "bb", "cccccccccc", "d"]);
    assert_eq!(wide.screen().cursor_position(), (3, 1));
}
