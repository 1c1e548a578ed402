//! The input line: a multi-line, UTF-8 aware text editor with a cursor and a history of
//! submitted texts.
//!
//! The text only ever holds printable characters and `\n`: `\r\n` / `\r` become `\n`, then
//! typed and pasted text goes through [`flowing`] (no control or escape sequence can enter:
//! colour is dropped, any other control shown as a visible symbol) and tabs become spaces. The cursor is a byte offset that always sits on a character boundary and never
//! inside a character followed by zero-width marks (combining accents move with their base).
//! Soft wrapping ([`Input::layout`]) breaks rows at spaces by display width, like the dialog.

use std::ops::Range;

use unicode_width::UnicodeWidthChar;

use crate::sanitize::flowing;

/// Spaces a pasted tab becomes.
const TAB_SPACES: &str = "    ";
/// A paste longer than this many characters is shown collapsed.
const COLLAPSE_CHARS: usize = 1000;
/// A paste of more lines than this is shown collapsed.
const COLLAPSE_LINES: usize = 12;

/// How the text is laid out on the screen: the rows (byte ranges into the text, without the
/// `\n` that ends a logical line) and the cursor's column and row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputLayout {
    /// One byte range per screen row.
    pub rows: Vec<Range<usize>>,
    /// Cursor column (display width before it on its row).
    pub col: u16,
    /// Cursor row.
    pub row: u16,
}

/// The editor.
#[derive(Debug, Clone, Default)]
pub(crate) struct Input {
    text: String,
    cursor: usize,
    history: Vec<String>,
    recall: Option<usize>,
    draft: String,
    /// Collapsed pastes: the placeholder in `text` and what it stands for.
    pastes: Vec<(String, String)>,
}

/// Text as the editor keeps it: line ends unified, control sequences gone, tabs as spaces.
fn clean(text: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    flowing(&unified).replace('\t', TAB_SPACES)
}

/// `3950` as `3,950`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// True for characters that belong to the character before them (combining marks, ZWJ,
/// variation selectors).
fn attaches(c: char) -> bool {
    c != '\n' && char_width(c) == 0
}

impl Input {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replaces `range` of the text (on character boundaries) by `with`, cleaned like typed
    /// text; the cursor goes to the end of the new text.
    pub fn splice(&mut self, range: Range<usize>, with: &str) {
        if range.start > range.end
            || !self.text.is_char_boundary(range.start)
            || !self.text.is_char_boundary(range.end)
        {
            return;
        }
        let clean = clean(with);
        self.text.replace_range(range.clone(), &clean);
        self.cursor = range.start + clean.len();
        self.recall = None;
    }

    /// True when nothing is typed (whitespace counts as nothing).
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Submitted texts, oldest first.
    #[cfg(test)]
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Inserts typed or pasted text at the cursor, cleaned as described in the module docs.
    pub fn insert(&mut self, text: &str) {
        let clean = clean(text);
        if clean.is_empty() {
            return;
        }
        self.text.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
        self.recall = None;
    }

    /// Inserts pasted text; a large paste is shown as `[pasted 3,950 chars #1]`, which stands
    /// for the text until it is sent (or expanded with [`Input::expand_paste`]). Deleting
    /// any part of the placeholder drops the paste.
    pub fn paste(&mut self, text: &str) {
        let clean = clean(text);
        let chars = clean.chars().count();
        if chars <= COLLAPSE_CHARS && clean.lines().count() <= COLLAPSE_LINES {
            self.insert(&clean);
            return;
        }
        let token = format!(
            "[pasted {} chars #{}]",
            thousands(chars),
            self.pastes.len() + 1
        );
        self.insert(&token);
        self.pastes.push((token, clean));
    }

    /// The text with every collapsed paste put back: what is sent.
    pub fn expanded(&self) -> String {
        let mut text = self.text.clone();
        for (token, paste) in &self.pastes {
            if let Some(at) = text.find(token.as_str()) {
                text.replace_range(at..at + token.len(), paste);
            }
        }
        text
    }

    /// Replaces the last collapsed paste still in the text by its content (Ctrl+T); false
    /// when there is none.
    pub fn expand_paste(&mut self) -> bool {
        while let Some((token, paste)) = self.pastes.pop() {
            if let Some(at) = self.text.find(token.as_str()) {
                self.text.replace_range(at..at + token.len(), &paste);
                self.cursor = at + paste.len();
                return true;
            }
        }
        false
    }

    /// Inserts one typed character.
    pub fn insert_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.insert(c.encode_utf8(&mut buf));
    }

    /// Starts a new line at the cursor.
    pub fn newline(&mut self) {
        self.insert("\n");
    }

    /// Replaces the whole text; the cursor goes to the end.
    pub fn set(&mut self, text: &str) {
        self.text.clear();
        self.pastes.clear();
        self.cursor = 0;
        self.insert(text);
    }

    /// Takes the text for submission: it is remembered in the history (unless it repeats the
    /// last entry) and the editor is emptied.
    pub fn take(&mut self) -> String {
        let text = self.expanded();
        self.text.clear();
        self.pastes.clear();
        self.cursor = 0;
        self.recall = None;
        self.draft.clear();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        text
    }

    /// Puts a text back that could not be submitted (unless something new was typed since).
    pub fn restore(&mut self, text: &str) {
        if self.text.is_empty() {
            self.set(text);
        }
    }

    fn prev_boundary(&self, at: usize) -> usize {
        let mut i = at;
        let before = &self.text[..at];
        let mut chars = before.char_indices().rev();
        for (idx, c) in chars.by_ref() {
            i = idx;
            if !attaches(c) {
                break;
            }
        }
        i
    }

    fn next_boundary(&self, at: usize) -> usize {
        let mut chars = self.text[at..].char_indices();
        let Some((_, first)) = chars.next() else {
            return at;
        };
        let mut end = at + first.len_utf8();
        if first == '\n' {
            return end;
        }
        for (idx, c) in chars {
            if !attaches(c) {
                break;
            }
            end = at + idx + c.len_utf8();
        }
        end
    }

    /// Deletes the character before the cursor.
    pub fn backspace(&mut self) {
        let start = self.prev_boundary(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes the character under the cursor.
    pub fn delete(&mut self) {
        let end = self.next_boundary(self.cursor);
        self.text.replace_range(self.cursor..end, "");
    }

    /// Moves one character left.
    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    /// Moves one character right.
    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// Moves to the start of the logical line.
    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    /// Moves to the end of the logical line.
    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    fn word_start_before(&self, at: usize) -> usize {
        let before = &self.text[..at];
        let trimmed = before.trim_end_matches(|c: char| c.is_whitespace() && c != '\n');
        let trimmed = if trimmed.len() == before.len() && before.ends_with('\n') {
            &before[..before.len() - 1]
        } else {
            trimmed
        };
        trimmed.rfind(char::is_whitespace).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        })
    }

    /// Moves to the start of the previous word.
    pub fn word_left(&mut self) {
        self.cursor = self.word_start_before(self.cursor);
    }

    /// Moves past the end of the next word.
    pub fn word_right(&mut self) {
        let after = &self.text[self.cursor..];
        let skip = after.len() - after.trim_start().len();
        let rest = &after[skip..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.cursor += skip + word;
    }

    /// Deletes the word before the cursor (Ctrl+W).
    pub fn delete_word_back(&mut self) {
        let start = self.word_start_before(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the start of the logical line to the cursor (Ctrl+U).
    pub fn kill_to_start(&mut self) {
        let start = self.line_start();
        if start == self.cursor && start > 0 {
            self.backspace();
            return;
        }
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the cursor to the end of the logical line (Ctrl+K).
    pub fn kill_to_end(&mut self) {
        let end = self.line_end();
        if end == self.cursor {
            self.delete();
            return;
        }
        self.text.replace_range(self.cursor..end, "");
    }

    /// Up: the row above when the cursor is not on the first row (at `width` columns), else
    /// the previous history entry.
    pub fn up(&mut self, width: u16) {
        let layout = self.layout(width);
        if layout.row > 0 {
            let row = &layout.rows[usize::from(layout.row) - 1];
            self.cursor = self.at_column(row.clone(), usize::from(layout.col));
            return;
        }
        let index = match self.recall {
            None if self.history.is_empty() => return,
            None => {
                self.draft = self.text.clone();
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.recall = Some(index);
        self.text = self.history[index].clone();
        self.cursor = self.text.len();
    }

    /// Down: the row below when there is one, else the next history entry (and finally the
    /// text that was being typed before the recall started).
    pub fn down(&mut self, width: u16) {
        let layout = self.layout(width);
        if usize::from(layout.row) + 1 < layout.rows.len() {
            let row = &layout.rows[usize::from(layout.row) + 1];
            self.cursor = self.at_column(row.clone(), usize::from(layout.col));
            return;
        }
        let Some(index) = self.recall else {
            return;
        };
        if index + 1 < self.history.len() {
            self.recall = Some(index + 1);
            self.text = self.history[index + 1].clone();
        } else {
            self.recall = None;
            self.text = std::mem::take(&mut self.draft);
        }
        self.cursor = self.text.len();
    }

    /// The byte offset in `row` closest to display column `col` (not past it).
    fn at_column(&self, row: Range<usize>, col: usize) -> usize {
        let mut at = row.start;
        let mut width = 0;
        while at < row.end {
            let next = self.next_boundary(at).min(row.end);
            let w: usize = self.text[at..next].chars().map(char_width).sum();
            if width + w > col {
                break;
            }
            width += w;
            at = next;
        }
        at
    }

    /// Lays the text out in rows of at most `width` columns (at least 1), breaking at spaces
    /// (a space that does not fit hangs at the end of its row) and inside words only when a
    /// word is longer than a row. The cursor may sit one column past the last character of a
    /// full row, so callers should keep one spare column.
    pub fn layout(&self, width: u16) -> InputLayout {
        let width = usize::from(width.max(1));
        let mut rows = Vec::new();
        let mut start = 0;
        for line in self.text.split('\n') {
            let end = start + line.len();
            wrap_line(&self.text, start..end, width, &mut rows);
            start = end + 1;
        }
        let mut row = rows.len().saturating_sub(1);
        for (i, r) in rows.iter().enumerate() {
            let soft_wrapped = rows.get(i + 1).is_some_and(|next| next.start == r.end);
            if self.cursor < r.end || (self.cursor == r.end && !soft_wrapped) {
                row = i;
                break;
            }
        }
        let range = rows[row].clone();
        let col: usize = self.text[range.start..self.cursor.min(range.end).max(range.start)]
            .chars()
            .map(char_width)
            .sum();
        InputLayout {
            rows,
            col: u16::try_from(col.min(width)).unwrap_or(u16::MAX),
            row: u16::try_from(row).unwrap_or(u16::MAX),
        }
    }
}

/// Word-wraps one logical line (`range` of `text`, no `\n` inside) into `rows`.
fn wrap_line(text: &str, range: Range<usize>, width: usize, rows: &mut Vec<Range<usize>>) {
    let mut start = range.start;
    let mut col = 0;
    let mut last_break: Option<usize> = None;
    let mut i = range.start;
    while i < range.end {
        let Some(c) = text[i..range.end].chars().next() else {
            break;
        };
        let next = i + c.len_utf8();
        if c == ' ' {
            if col + 1 > width {
                rows.push(start..next);
                start = next;
                col = 0;
                last_break = None;
            } else {
                col += 1;
                last_break = Some(next);
            }
            i = next;
            continue;
        }
        let w = char_width(c);
        if col + w > width && col > 0 {
            match last_break.filter(|&b| b > start) {
                Some(b) => {
                    rows.push(start..b);
                    start = b;
                    col = text[b..i].chars().map(char_width).sum();
                    if col + w > width {
                        rows.push(start..i);
                        start = i;
                        col = 0;
                    }
                }
                None => {
                    rows.push(start..i);
                    start = i;
                    col = 0;
                }
            }
            last_break = None;
        }
        col += w;
        i = next;
    }
    rows.push(start..range.end);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> Input {
        let mut input = Input::default();
        input.insert(text);
        input
    }

    fn rows(input: &Input, width: u16) -> Vec<&str> {
        input
            .layout(width)
            .rows
            .iter()
            .map(|r| &input.text()[r.clone()])
            .collect()
    }

    #[test]
    fn inserts_and_deletes_by_character_not_byte() {
        let mut input = typed("héllo wörld");
        input.backspace();
        assert_eq!(input.text(), "héllo wörl");
        input.home();
        input.right();
        input.delete();
        assert_eq!(input.text(), "hllo wörl");
        input.end();
        input.left();
        input.left();
        input.insert_char('ß');
        assert_eq!(input.text(), "hllo wößrl");
        // A combining accent goes with its base.
        let mut input = typed("ae\u{301}");
        input.backspace();
        assert_eq!(input.text(), "a");
    }

    #[test]
    fn pasted_control_sequences_and_tabs_are_cleaned() {
        let input = typed("a\x1b[31mred\x1b[0m\tb\r\nc\u{7}");
        // Colour goes silently; any other control stays visible, never interpreted.
        assert_eq!(input.text(), "ared    b\nc␇");
        assert!(!input.text().chars().any(|c| c.is_control() && c != '\n'));
    }

    #[test]
    fn layout_wraps_at_words_and_places_the_cursor() {
        let input = typed("one two three four");
        assert_eq!(rows(&input, 9), ["one two ", "three ", "four"]);
        let layout = input.layout(9);
        assert_eq!((layout.col, layout.row), (4, 2));
        let long = typed("abcdefghij");
        assert_eq!(rows(&long, 4), ["abcd", "efgh", "ij"]);
        let lines = typed("a\n\nb");
        assert_eq!(rows(&lines, 5), ["a", "", "b"]);
        let wide = typed("日本語です");
        assert_eq!(rows(&wide, 5), ["日本", "語で", "す"]);
        assert_eq!((wide.layout(5).col, wide.layout(5).row), (2, 2));
    }

    #[test]
    fn cursor_at_a_soft_break_goes_to_the_next_row() {
        let mut input = typed("one two");
        input.home();
        for _ in 0..4 {
            input.right();
        }
        let layout = input.layout(5);
        assert_eq!(rows(&input, 5), ["one ", "two"]);
        assert_eq!((layout.col, layout.row), (0, 1));
    }

    #[test]
    fn up_and_down_move_between_rows_then_through_history() {
        let mut input = typed("first");
        assert_eq!(input.take(), "first");
        input.insert("second");
        input.take();
        input.insert("draft\nline");
        input.up(20);
        assert_eq!(input.text(), "draft\nline", "moves up a row first");
        input.up(20);
        assert_eq!(input.text(), "second");
        input.up(20);
        assert_eq!(input.text(), "first");
        input.up(20);
        assert_eq!(input.text(), "first");
        input.down(20);
        assert_eq!(input.text(), "second");
        input.down(20);
        assert_eq!(input.text(), "draft\nline");
        assert_eq!(input.history(), ["first", "second"]);
    }

    #[test]
    fn word_and_line_kills() {
        let mut input = typed("cargo test --all");
        input.delete_word_back();
        assert_eq!(input.text(), "cargo test ");
        input.word_left();
        assert_eq!(input.cursor(), 6);
        input.kill_to_end();
        assert_eq!(input.text(), "cargo ");
        input.kill_to_start();
        assert_eq!(input.text(), "");
        let mut input = typed("a b");
        input.home();
        input.word_right();
        assert_eq!(input.cursor(), 1);
    }

    #[test]
    fn a_large_paste_is_collapsed_and_sent_whole() {
        let big: String = (0..40).map(|n| format!("log line {n}\n")).collect();
        let mut input = typed("see: ");
        input.paste(&big);
        input.insert(" please");
        let chars = big.chars().count();
        assert_eq!(
            input.text(),
            format!("see: [pasted {} chars #1] please", thousands(chars))
        );
        assert_eq!(input.expanded(), format!("see: {big} please"));
        assert_eq!(input.take(), format!("see: {big} please"), "sent whole");
        assert_eq!(input.text(), "");
        assert_eq!(input.expanded(), "", "nothing left behind");
        let mut small = Input::default();
        small.paste("two\nlines");
        assert_eq!(small.text(), "two\nlines", "small pastes stay as they are");
    }

    #[test]
    fn a_collapsed_paste_expands_on_request_and_is_dropped_with_its_placeholder() {
        let big = "x".repeat(5000);
        let mut input = Input::default();
        input.paste(&big);
        assert_eq!(input.text(), "[pasted 5,000 chars #1]");
        assert!(input.expand_paste());
        assert_eq!(input.text(), big);
        assert!(!input.expand_paste(), "nothing left to expand");
        let mut cut = Input::default();
        cut.paste(&big);
        cut.backspace();
        assert_eq!(
            cut.expanded(),
            "[pasted 5,000 chars #1",
            "a broken placeholder is text"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
