//! Matching one file's bytes: one match per line, the first occurrence, CR-stripped lines.
//!
//! Line semantics: lines are split on LF; a CR directly before an LF is stripped (a CR at the very
//! end of an unterminated last line is kept, since it is not a CRLF line end); the empty tail after
//! a final LF is not a line.
//!
//! Speed: rather than running the regex once per line, the *candidate* regex runs over the whole
//! buffer to jump to the next line that can match; the *line* regex then confirms on the
//! CR-stripped line and gives the column. This is exact as long as every per-line match is also a
//! whole-buffer match at the same offset. The candidate is the pattern compiled in multi-line mode
//! (so `^`/`$` work at LFs); that holds except for (a) text anchors `\A`/`\z` and flag groups that
//! clear `m`, which get per-line scanning throughout, and (b) `$` before a stripped CR, which gets
//! per-line scanning in files containing CRLF.

use memchr::memmem::Finder;
use regex::bytes::{Regex, RegexBuilder};

/// Compiled-size limit of a search regex.
pub const REGEX_SIZE_LIMIT: usize = 16 * 1024 * 1024;

/// The matching lines of one file: their CR-stripped texts end to end in one string, so a
/// file's matches cost two allocations rather than one per line. A clone is exactly sized.
#[derive(Debug, Default, Clone)]
pub(super) struct FileMatches {
    text: String,
    rows: Vec<LineMatch>,
    /// How many lines there were and their text bytes, once the lines themselves were
    /// dropped ([`FileMatches::count_only`]).
    dropped: Option<(usize, usize)>,
}

/// One matching line of a [`FileMatches`].
#[derive(Debug, Clone, Copy)]
struct LineMatch {
    /// 1-based line number.
    line: u64,
    /// 1-based byte column of the first match.
    column: u64,
    /// Where the line's text ends in [`FileMatches::text`] (it starts where the previous ends).
    end: usize,
}

impl FileMatches {
    /// Matching lines.
    pub(super) fn len(&self) -> usize {
        self.dropped.map_or(self.rows.len(), |(len, _)| len)
    }

    /// Bytes of the lines' texts together.
    pub(super) fn text_bytes(&self) -> usize {
        self.dropped.map_or(self.text.len(), |(_, bytes)| bytes)
    }

    /// The same count and text bytes without the lines: [`FileMatches::iter`] yields none.
    pub(super) fn count_only(&self) -> FileMatches {
        FileMatches {
            dropped: Some((self.len(), self.text_bytes())),
            ..FileMatches::default()
        }
    }

    /// True when only the count was kept ([`FileMatches::count_only`]).
    pub(super) fn lines_dropped(&self) -> bool {
        self.dropped.is_some()
    }

    /// Bytes the matches hold.
    pub(super) fn held_bytes(&self) -> usize {
        self.text.capacity() + self.rows.capacity() * std::mem::size_of::<LineMatch>()
    }

    /// Forgets the matches, keeping the capacity for the next file's.
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.rows.clear();
        self.dropped = None;
    }

    /// (line, column, text) of each matching line, in line order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, u64, &str)> {
        let mut start = 0;
        self.rows.iter().map(move |row| {
            // Each end was a char boundary when it was pushed.
            let text = self.text.get(start..row.end).unwrap_or_default();
            start = row.end;
            (row.line, row.column, text)
        })
    }
}

/// A file has more matching lines than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TooManyMatches;

/// How the query is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchFlags {
    /// The query is a Rust `regex` pattern rather than a literal.
    pub regex: bool,
    /// Match case-insensitively.
    pub case_insensitive: bool,
}

/// When whole-buffer candidate search is exact (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    /// Candidate search is always exact; the candidate match is the line's first match.
    Literal,
    /// Candidate search is exact; confirm each candidate line with the line regex.
    Confirm,
    /// Like `Confirm`, but per-line scanning in files that contain CRLF (pattern has `$`).
    ConfirmUnlessCrlf,
    /// Per-line scanning everywhere.
    PerLine,
}

/// A compiled search query.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// A case-sensitive literal without line ends is found by `memmem` directly: the same
    /// SIMD finder the regex would use as its prefilter, without a regex search per candidate.
    literal: Option<Finder<'static>>,
    candidate: Regex,
    line: Regex,
    strategy: Strategy,
}

impl Matcher {
    /// Compiles `query`: a literal is regex-escaped; errors carry the `regex` crate's text.
    pub fn new(query: &str, flags: MatchFlags) -> Result<Matcher, regex::Error> {
        let pattern = if flags.regex {
            query.to_owned()
        } else {
            regex::escape(query)
        };
        let build = |multi_line: bool| {
            RegexBuilder::new(&pattern)
                .case_insensitive(flags.case_insensitive)
                .multi_line(multi_line)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
        };
        let line = build(false)?;
        let candidate = build(true)?;
        let strategy = if !flags.regex {
            if query.contains(['\n', '\r']) {
                Strategy::Confirm
            } else {
                Strategy::Literal
            }
        } else if has_text_anchor(&pattern) {
            Strategy::PerLine
        } else if pattern.contains('$') {
            Strategy::ConfirmUnlessCrlf
        } else {
            Strategy::Confirm
        };
        let literal = (strategy == Strategy::Literal && !flags.case_insensitive)
            .then(|| Finder::new(query.as_bytes()).into_owned());
        Ok(Matcher {
            literal,
            candidate,
            line,
            strategy,
        })
    }

    /// Finds the first match of every matching line; `Err` past `max` matches.
    #[cfg(test)]
    pub(super) fn scan(
        &self,
        text: &str,
        crlf: bool,
        max: usize,
    ) -> Result<FileMatches, TooManyMatches> {
        let mut out = FileMatches::default();
        self.scan_into(text, crlf, max, &mut out)?;
        Ok(out)
    }

    /// Finds the first match of every matching line into `out`, which is cleared first (a
    /// buffer reused between files grows once, not once a file); `Err` past `max` matches.
    pub(super) fn scan_into(
        &self,
        text: &str,
        crlf: bool,
        max: usize,
        out: &mut FileMatches,
    ) -> Result<(), TooManyMatches> {
        let per_line = match self.strategy {
            Strategy::PerLine => true,
            Strategy::ConfirmUnlessCrlf => crlf,
            Strategy::Literal | Strategy::Confirm => false,
        };
        out.clear();
        if per_line {
            self.scan_lines(text, max, out)
        } else {
            self.scan_buffer(text, max, out)
        }
    }

    fn scan_lines(
        &self,
        text: &str,
        max: usize,
        out: &mut FileMatches,
    ) -> Result<(), TooManyMatches> {
        let buf = text.as_bytes();
        let mut start = 0;
        let mut number = 1;
        while start < buf.len() {
            let end = find_lf(buf, start);
            let line = start..strip_cr(buf, start, end);
            if let Some(found) = self.line.find(&buf[line.clone()]) {
                push(out, max, number, found.start(), text, line)?;
            }
            start = end + 1;
            number += 1;
        }
        Ok(())
    }

    fn scan_buffer(
        &self,
        text: &str,
        max: usize,
        out: &mut FileMatches,
    ) -> Result<(), TooManyMatches> {
        let buf = text.as_bytes();
        // `pos` is always the start of line `number`.
        let mut pos = 0;
        let mut number: u64 = 1;
        while pos < buf.len() {
            let found = match &self.literal {
                Some(finder) => finder.find(&buf[pos..]).map(|i| pos + i),
                None => self.candidate.find_at(buf, pos).map(|m| m.start()),
            };
            let Some(at) = found else {
                break;
            };
            let skipped = &buf[pos..at];
            let newlines = count_lf(skipped);
            let line_start = if newlines == 0 {
                pos
            } else {
                number += newlines as u64;
                pos + memchr::memrchr(b'\n', skipped).map_or(0, |i| i + 1)
            };
            if line_start >= buf.len() {
                break;
            }
            let line_end = find_lf(buf, at);
            let line = line_start..strip_cr(buf, line_start, line_end);
            let column = if self.strategy == Strategy::Literal {
                Some(at - line_start)
            } else {
                self.line
                    .find(&buf[line.clone()])
                    .map(|found| found.start())
            };
            if let Some(column) = column {
                push(out, max, number, column, text, line)?;
            }
            pos = line_end + 1;
            number += 1;
        }
        Ok(())
    }
}

fn push(
    out: &mut FileMatches,
    max: usize,
    number: u64,
    offset: usize,
    text: &str,
    line: std::ops::Range<usize>,
) -> Result<(), TooManyMatches> {
    if out.rows.len() >= max {
        return Err(TooManyMatches);
    }
    // Lines are cut at ASCII bytes (LF, CR), so the range is on character boundaries; the
    // lossy form is only a guard that cannot be reached.
    match text.get(line.clone()) {
        Some(line) => out.text.push_str(line),
        None => out
            .text
            .push_str(&String::from_utf8_lossy(&text.as_bytes()[line])),
    }
    out.rows.push(LineMatch {
        line: number,
        column: offset as u64 + 1,
        end: out.text.len(),
    });
    Ok(())
}

/// Where the line `[start, end)` ends without the CR of a CRLF line end.
fn strip_cr(buf: &[u8], start: usize, end: usize) -> usize {
    if end < buf.len() && end > start && buf[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// Index of the first LF at or after `from`, or the buffer length.
fn find_lf(buf: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &buf[from..]).map_or(buf.len(), |i| from + i)
}

/// Number of LF bytes. `bytecount` picks AVX2 at run time and sums 32 bytes a step; a plain
/// counting loop is compiled for baseline x86-64 and widens every byte to a 64-bit lane, which
/// made it the hottest loop of a search with many matches.
fn count_lf(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
}

/// True when `buf` has a CRLF line end.
pub(super) fn has_crlf(buf: &[u8]) -> bool {
    // Most files have no CR at all, and the single-byte search is the faster one.
    memchr::memchr(b'\r', buf).is_some() && memchr::memmem::find(buf, b"\r\n").is_some()
}

/// Conservatively true when a pattern may use `\A`, `\z` or clear a flag (e.g. `(?-m)`), which
/// would make whole-buffer anchors differ from per-line anchors. False positives only cost speed.
fn has_text_anchor(pattern: &str) -> bool {
    if pattern.contains("\\A") || pattern.contains("\\z") {
        return true;
    }
    pattern.match_indices("(?").any(|(at, _)| {
        pattern[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
            .any(|c| c == '-')
    })
}
