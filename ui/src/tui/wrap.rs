//! Word wrap by terminal display width.
//!
//! Text is measured in grapheme-ish clusters: a character together with the zero-width
//! characters after it (combining marks, variation selectors, ZWJ), the character after a ZWJ
//! (emoji sequences), a second regional indicator (flags) and emoji skin-tone modifiers. A
//! cluster is never split and its width is `unicode-width`'s width of the whole cluster
//! (CJK and most emoji 2 columns), the same measure ratatui uses for a cell.
//!
//! Lines break at spaces; the spaces at a break are dropped, other runs of spaces are kept,
//! and so is the leading indentation of the first line of a paragraph. A word longer than the
//! width fills the rest of the current line and continues on the next ones. `\n` always
//! breaks; a single trailing `\n` adds no empty line. A tab becomes spaces up to the next
//! multiple of [`TAB_WIDTH`] columns of the line's text (so no tab reaches the terminal);
//! other control characters are dropped (callers sanitize first anyway). No output line is
//! wider than the width, which is at least 1. A cluster wider than the whole line (a
//! double-width character at width 1) is shown as `?`.

mod fill;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use fill::Wrapper;

/// Tab stops every this many columns.
pub const TAB_WIDTH: usize = 4;

/// Wraps `spans` (one paragraph, `\n` breaks lines) to `width` columns, keeping each span's
/// style on every piece of it. Width 0 counts as 1.
pub fn wrap_spans(spans: &[Span<'_>], width: u16) -> Vec<Line<'static>> {
    wrap_prefixed(spans, width, &[], &[])
}

/// Wraps `text` to `width` columns in one `style`: split on `\n` first (empty lines are
/// kept, a single trailing `\n` adds none), then each line word-wrapped as by [`wrap_spans`].
pub fn wrap_plain(text: &str, style: Style, width: u16) -> Vec<Line<'static>> {
    wrap_spans(&[Span::styled(text, style)], width)
}

/// Like [`wrap_spans`], with `first` put before the first output line and `rest` before every
/// other one (a list marker and its hanging indent, a quote bar, …); the text gets the width
/// left after the prefix. A prefix that leaves less than one column is cut short.
pub fn wrap_prefixed(
    spans: &[Span<'_>],
    width: u16,
    first: &[Span<'_>],
    rest: &[Span<'_>],
) -> Vec<Line<'static>> {
    let mut wrapper = Wrapper::new(spans, width, first, rest, false);
    wrapper.run();
    wrapper.lines
}

/// Hard wrap for code: like [`wrap_prefixed`] but every space is kept and lines break at the
/// width wherever it falls (never inside a cluster); `\n` breaks lines and tabs expand.
pub fn hard_wrap(
    spans: &[Span<'_>],
    width: u16,
    first: &[Span<'_>],
    rest: &[Span<'_>],
) -> Vec<Line<'static>> {
    let mut wrapper = Wrapper::new(spans, width, first, rest, true);
    wrapper.run();
    wrapper.lines
}

/// The display width of `s` on one terminal line, measured like the wrapping functions:
/// clusters as described in the module docs, tabs up to the next multiple of [`TAB_WIDTH`]
/// from the start of `s`, other control characters (`\n` included) 0.
pub fn display_width(s: &str) -> usize {
    let mut col = 0;
    let mut i = 0;
    while i < s.len() {
        let (end, width, kind) = next_cluster(s, i);
        col += match kind {
            Kind::Tab => TAB_WIDTH - col % TAB_WIDTH,
            _ => width,
        };
        i = end;
    }
    col
}

/// What a cluster is to the wrapper.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Part of a word.
    Text,
    /// A plain space: a break opportunity.
    Space,
    /// A tab: a break opportunity, expanded to spaces.
    Tab,
    /// `\n`: a forced break.
    Newline,
    /// Another control character: dropped.
    Skip,
}

/// The cluster starting at byte `i` of `s` (a character boundary): its end, width and kind.
#[inline]
fn next_cluster(s: &str, i: usize) -> (usize, usize, Kind) {
    let bytes = s.as_bytes();
    let b = bytes[i];
    if b < 0x80 && bytes.get(i + 1).is_none_or(|&n| n < 0x80) {
        return match b {
            b' ' => (i + 1, 1, Kind::Space),
            0x21..=0x7e => (i + 1, 1, Kind::Text),
            b'\t' => (i + 1, 0, Kind::Tab),
            b'\n' => (i + 1, 0, Kind::Newline),
            _ => (i + 1, 0, Kind::Skip),
        };
    }
    cluster_slow(s, i)
}

/// [`next_cluster`] for anything but an ASCII character followed by ASCII.
#[cold]
fn cluster_slow(s: &str, i: usize) -> (usize, usize, Kind) {
    let mut chars = s[i..].char_indices();
    let Some((_, c)) = chars.next() else {
        return (s.len(), 0, Kind::Skip);
    };
    let mut end = i + c.len_utf8();
    match c {
        '\n' => return (end, 0, Kind::Newline),
        '\t' => return (end, 0, Kind::Tab),
        c if c.is_control() => return (end, 0, Kind::Skip),
        _ => {}
    }
    let mut prev = c;
    let mut regional = u8::from(is_regional(c));
    let mut joined = false;
    for (offset, next) in chars {
        let attach = if next.is_control() {
            false
        } else if prev == '\u{200d}' && next as u32 >= 0x2000 {
            true
        } else if is_regional(next) {
            regional == 1 && is_regional(prev)
        } else if ('\u{1f3fb}'..='\u{1f3ff}').contains(&next) {
            c as u32 >= 0x2000
        } else {
            next.width() == Some(0)
        };
        if !attach {
            break;
        }
        regional += u8::from(is_regional(next));
        end = i + offset + next.len_utf8();
        prev = next;
        joined = true;
    }
    if joined {
        (end, s[i..end].width(), Kind::Text)
    } else if c == ' ' {
        (end, 1, Kind::Space)
    } else {
        (end, c.width().unwrap_or(0), Kind::Text)
    }
}

/// A regional indicator symbol (two make a flag).
fn is_regional(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}
