//! The approval's whole text in the TUI: every row of [`crate::approval_text::rows`]
//! hard-wrapped to the width (never cut, every character kept), and how far of it has been on
//! screen. Progress is counted in characters of the text, not in screen rows, so that a
//! resize between pages can neither skip text nor count it as seen twice.

use ansa_sessions::protocol::ApprovalRequest;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::blocks::UNDER;
use super::theme::Theme;
use crate::approval_text::{Row, RowKind, rows};

/// One screen row of the text and the characters of the text it shows.
#[derive(Debug, Clone)]
pub(crate) struct BodyRow {
    /// What is drawn.
    pub line: Line<'static>,
    /// First character of the text it shows (counted over all rows, one more per row end).
    pub start: usize,
    /// One past the last; a row's last piece also covers its end.
    pub end: usize,
}

/// The text of `request` as screen rows of `width` columns, and its length in characters
/// (what [`BodyRow::end`] of the last row reaches).
pub(crate) fn body(request: &ApprovalRequest, width: u16, theme: Theme) -> (Vec<BodyRow>, usize) {
    let room = usize::from(width).saturating_sub(UNDER.len()).max(1);
    let mut out = Vec::new();
    let mut base = 0;
    for row in rows(request) {
        let style = style(row.kind, theme);
        let n = row.text.chars().count();
        for (text, start, end) in wrap_row(&row, room) {
            out.push(BodyRow {
                line: Line::from(vec![Span::raw(UNDER), Span::styled(text, style)]),
                start: base + start,
                end: base + end,
            });
        }
        base += n + 1;
    }
    (out, base)
}

/// The length of `request`'s text in characters, as [`body`] counts it at any width.
pub(crate) fn text_len(request: &ApprovalRequest) -> usize {
    rows(request)
        .iter()
        .map(|r| r.text.chars().count() + 1)
        .sum()
}

fn style(kind: RowKind, theme: Theme) -> Style {
    match kind {
        RowKind::Command => theme.bold(),
        RowKind::Detail | RowKind::Label | RowKind::Context => theme.dim(),
        RowKind::Content => Style::default(),
        RowKind::Added => theme.added(),
        RowKind::Removed => theme.removed(),
        RowKind::Hunk => theme.accent(),
        RowKind::Warning => theme.warn(),
    }
}

/// `row` (its mark, then its text) broken into pieces of at most `room` columns, wherever the
/// width falls; later pieces hang under the text after the mark. Each piece comes with the
/// range of the row's characters it shows (the last also covers the row's end).
pub(crate) fn wrap_row(row: &Row, room: usize) -> Vec<(String, usize, usize)> {
    wrap_text(row.mark, &row.text, room)
}

/// `mark` then `text` broken into pieces of at most `room` columns, as [`wrap_row`] does.
pub(crate) fn wrap_text(mark: &str, text: &str, room: usize) -> Vec<(String, usize, usize)> {
    let mark_width: usize = mark.chars().filter_map(UnicodeWidthChar::width).sum();
    let hang = if mark_width * 2 <= room {
        mark_width
    } else {
        0
    };
    let mut pieces = Vec::new();
    let mut piece = mark.to_owned();
    let mut used = mark_width;
    let mut start = 0;
    let mut at = 0;
    // Whether the piece holds any of the text yet: a piece is never left empty.
    let mut filled = false;
    for c in text.chars() {
        let mut w = c.width().unwrap_or(0);
        if used + w > room && filled {
            pieces.push((std::mem::take(&mut piece), start, at));
            piece = " ".repeat(hang);
            used = hang;
            start = at;
        }
        if used + w > room {
            // Wider than a whole row (a double-width character at width 1).
            piece.push('?');
            w = 1;
        } else {
            piece.push(c);
        }
        used += w;
        at += 1;
        filled = true;
    }
    pieces.push((piece, start, at + 1));
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    fn row(mark: &'static str, text: &str) -> Row {
        Row {
            kind: RowKind::Command,
            mark,
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_long_row_wraps_without_losing_a_character() {
        let text = format!("sh -c 'echo hi␠×300; touch {}'", "PWNED_TAIL".repeat(12));
        let pieces = wrap_row(&row("$ ", &text), 20);
        assert!(pieces.iter().all(|(p, _, _)| p.width() <= 20), "{pieces:?}");
        // The first piece starts with the mark, the others with as many spaces.
        let joined: String = pieces.iter().map(|(p, _, _)| &p[2..]).collect();
        assert_eq!(joined, text, "every character, in order, once");
        // The ranges cover the row without gaps.
        let mut next = 0;
        for (_, start, end) in &pieces {
            assert_eq!(*start, next);
            next = *end;
        }
        assert_eq!(next, text.chars().count() + 1);
    }

    #[test]
    fn wide_characters_never_pass_the_width() {
        let pieces = wrap_row(&row("", "日本語のテキスト"), 5);
        assert!(pieces.iter().all(|(p, _, _)| p.width() <= 5), "{pieces:?}");
        assert_eq!(pieces[0].0, "日本");
        let tiny = wrap_row(&row("", "日本"), 1);
        assert_eq!(tiny, vec![("?".into(), 0, 1), ("?".into(), 1, 3)]);
    }

    #[test]
    fn an_empty_row_is_one_piece() {
        assert_eq!(wrap_row(&row("│ ", ""), 10), vec![("│ ".into(), 0, 1)]);
    }
}
