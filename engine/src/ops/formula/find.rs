//! `?` find: every occurrence of a literal or regex inside a byte window of a UTF-8 value, as
//! rows `d[N]{o,l,c,t}` fitted by row-prefix truncation.

use super::stream::{Utf8Stream, chunks, find_lf, range};
use super::{answered, leased, truncation};
use crate::answer::Answer;
use crate::answer::truncate::RowCost;
use crate::ason::{Atom, Cell};
use crate::deadline::Deadline;
use crate::files::text_search::REGEX_SIZE_LIMIT;
use crate::ops::rows::{Shape, column_bytes, fit, row_bytes};
use crate::protocol::{Data, ErrorRecord, FindRow, Flags, Response};
use crate::store::Body;
use regex::bytes::{Regex, RegexBuilder};
use std::ops::ControlFlow;

/// Longest line text of a row, markers included.
const MAX_LINE_BYTES: usize = 4096;
/// Marks where a clipped line continues.
const MARKER: &str = "...";
/// Bytes of the line kept before the match when a long line is clipped.
const CONTEXT_BEFORE: usize = 1024;

/// The operands of `?` after the source.
pub(super) struct Query<'q> {
    /// Zero-based byte offset of the window.
    pub offset: u64,
    /// Window bytes.
    pub len: u64,
    /// The pattern text.
    pub text: &'q str,
    /// The pattern is a regex rather than a literal.
    pub regex: bool,
    /// Match case-insensitively.
    pub case_insensitive: bool,
}

/// Runs `?` on `source`.
pub(super) fn run(
    answer: &mut Answer<'_>,
    source: u64,
    query: Query<'_>,
) -> Result<Response, ErrorRecord> {
    let matcher = compile(&query).map_err(|_| ErrorRecord::invalid_argument())?;
    leased(answer, source, |answer, body| {
        // Rows beyond `rec`, or beyond L bytes, can never be projected, so collection stops
        // one row past either bound: enough to know the answer is truncated.
        let stop = Stop {
            rows: answer.rec(),
            bytes: answer.limit(),
        };
        let plane = answer.session.plane.clone();
        let deadline = answer.deadline;
        let rows = plane.install(|| find(body, &matcher, &query, deadline, stop))?;
        let mut buf = String::new();
        let costs: Vec<RowCost> = rows
            .iter()
            .map(|r| RowCost {
                row: row_bytes(&cells(r), &mut buf),
                new_path: None,
            })
            .collect();
        let shape = Shape {
            columns: column_bytes(&FindRow::COLS),
            base: Flags::RETAINED,
            reference: Some(source),
            truncated_reference: source,
        };
        let fit = fit(answer, &shape, &costs)?;
        let mut rows = rows;
        rows.truncate(fit.rows);
        Ok(answered(
            answer.request.id,
            source,
            Data::Find(rows),
            truncation(fit.truncated),
        ))
    })
}

/// Compiles the pattern with `^`/`$` at line boundaries (CRLF-aware, since row text drops the
/// CR of a CRLF line end).
fn compile(query: &Query<'_>) -> Result<Regex, regex::Error> {
    let pattern = if query.regex {
        query.text.to_owned()
    } else {
        regex::escape(query.text)
    };
    RegexBuilder::new(&pattern)
        .case_insensitive(query.case_insensitive)
        .multi_line(true)
        .crlf(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// When to stop collecting rows.
#[derive(Clone, Copy)]
struct Stop {
    rows: usize,
    bytes: usize,
}

/// Where the window sits in the value.
struct Located {
    /// LFs before the window (its first line is this plus one).
    lines_before: u64,
    /// Start of the line holding the window's first byte.
    line_start: u64,
    /// The first LF at or after the window end, or the value's end.
    region_end: u64,
}

/// The matches of the window, in order, up to one row past `stop`.
fn find(
    body: &Body,
    matcher: &Regex,
    query: &Query<'_>,
    deadline: Deadline,
    stop: Stop,
) -> Result<Vec<FindRow>, ErrorRecord> {
    let size = body.len();
    let start = query.offset.min(size);
    let end = query.offset.saturating_add(query.len).min(size);
    let located = locate(body, start, end, deadline)?;
    if start == end {
        return Ok(Vec::new());
    }
    let base = located.line_start;
    let region = range(body, base, located.region_end)?;
    let window = region
        .get((start - base) as usize..(end - base) as usize)
        .ok_or(ErrorRecord::internal_execute())?;
    let mut rows = Vec::new();
    let mut line = located.lines_before + 1;
    // Start of the current line and how far LFs have been counted, both relative to `region`.
    let mut line_start = 0usize;
    let mut counted = (start - base) as usize;
    let mut current: Option<(usize, &str)> = None;
    let mut bytes = 0usize;
    let mut buf = String::new();
    for (n, m) in matcher.find_iter(window).enumerate() {
        if n.is_multiple_of(4096) {
            deadline.check().map_err(|_| super::stream::timed_out())?;
        }
        let at = (start - base) as usize + m.start();
        if !on_a_line(&region, at, base + at as u64 == size) {
            continue;
        }
        while let Some(lf) = find_lf(&region[..at], counted) {
            line += 1;
            line_start = lf + 1;
            counted = lf + 1;
        }
        counted = at;
        // Matches on one line share its text, found and checked once.
        let text = match current {
            Some((from, text)) if from == line_start => text,
            _ => {
                let text = line_text(&region, line_start, base, size)?;
                current = Some((line_start, text));
                text
            }
        };
        let row = FindRow {
            offset: base + at as u64,
            line,
            column: (at - line_start) as u64 + 1,
            text: clip(text, at - line_start),
        };
        bytes = bytes.saturating_add(row_bytes(&cells(&row), &mut buf));
        rows.push(row);
        if rows.len() > stop.rows || bytes > stop.bytes {
            break;
        }
    }
    Ok(rows)
}

/// The line of `region` starting at `start`, without its LF and the CR of a CRLF end (`base` is
/// the region's offset in a value of `size` bytes; a CR ending the value is kept).
fn line_text(region: &[u8], start: usize, base: u64, size: u64) -> Result<&str, ErrorRecord> {
    let end = find_lf(region, start).unwrap_or(region.len());
    let mut text = region
        .get(start..end)
        .ok_or(ErrorRecord::internal_execute())?;
    if base + (end as u64) < size {
        text = text.strip_suffix(b"\r").unwrap_or(text);
    }
    std::str::from_utf8(text).map_err(|_| ErrorRecord::wrong_type_execute())
}

/// Whether a match at `at` in `region` starts a real position: not inside a character (an empty
/// match can fall there) and not on the empty tail after a final LF, which is no line.
fn on_a_line(region: &[u8], at: usize, at_value_end: bool) -> bool {
    match region.get(at) {
        Some(b) => b & 0xC0 != 0x80,
        None => !(at_value_end && region.last() == Some(&b'\n')),
    }
}

/// Reads the whole value once: it must be UTF-8 (else 202), and the window's first line number,
/// line start and the end of its last line are recorded on the way.
fn locate(body: &Body, start: u64, end: u64, deadline: Deadline) -> Result<Located, ErrorRecord> {
    let mut utf8 = Utf8Stream::default();
    let mut located = Located {
        lines_before: 0,
        line_start: 0,
        region_end: body.len(),
    };
    let mut region_end = None;
    chunks(body, 0, body.len(), deadline, |base, piece| {
        utf8.feed(piece);
        let before = (start.saturating_sub(base) as usize).min(piece.len());
        let mut i = 0;
        while let Some(lf) = find_lf(&piece[..before], i) {
            located.lines_before += 1;
            located.line_start = base + lf as u64 + 1;
            i = lf + 1;
        }
        if region_end.is_none() {
            let from = end.saturating_sub(base) as usize;
            if let Some(lf) = find_lf(piece, from) {
                region_end = Some(base + lf as u64);
            }
        }
        ControlFlow::Continue(())
    })?;
    if !utf8.is_valid() {
        return Err(ErrorRecord::wrong_type_execute());
    }
    if let Some(e) = region_end {
        located.region_end = e;
    }
    Ok(located)
}

/// The line as a row shows it: whole up to 4096 bytes; otherwise a piece around the match
/// (starting up to 1 KiB before it) with `...` where the line goes on, ≤4096 bytes in all.
fn clip(line: &str, at: usize) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return line.to_owned();
    }
    let one_marker = MAX_LINE_BYTES - MARKER.len();
    let lead = at.saturating_sub(CONTEXT_BEFORE);
    if lead == 0 {
        let end = line.floor_char_boundary(one_marker);
        return format!("{}{MARKER}", &line[..end]);
    }
    let stop = lead + one_marker - MARKER.len();
    if stop >= line.len() {
        let from = line.ceil_char_boundary(line.len() - one_marker);
        return format!("{MARKER}{}", &line[from..]);
    }
    let from = line.ceil_char_boundary(lead);
    let stop = line.floor_char_boundary(stop);
    format!("{MARKER}{}{MARKER}", &line[from..stop])
}

/// The cells of a row, for sizing.
fn cells(r: &FindRow) -> [Cell; 4] {
    [
        Cell::Atom(Atom::uint(r.offset)),
        Cell::Atom(Atom::uint(r.line)),
        Cell::Atom(Atom::uint(r.column)),
        Cell::Atom(Atom::text(r.text.as_str())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_whole() {
        assert_eq!(clip("abc", 1), "abc");
        let exact = "x".repeat(MAX_LINE_BYTES);
        assert_eq!(clip(&exact, 4000), exact);
    }

    #[test]
    fn long_lines_keep_the_match_in_view() {
        let line: String = (0..10_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let head = clip(&line, 10);
        assert_eq!(head.len(), MAX_LINE_BYTES);
        assert!(head.ends_with(MARKER) && line.starts_with(&head[..4093]));

        let middle = clip(&line, 5000);
        assert_eq!(middle.len(), MAX_LINE_BYTES);
        assert_eq!(&middle[3..middle.len() - 3], &line[3976..3976 + 4090]);

        let tail = clip(&line, 9990);
        assert_eq!(tail.len(), MAX_LINE_BYTES);
        assert_eq!(&tail[3..], &line[10_000 - 4093..]);
    }

    #[test]
    fn clipping_respects_characters() {
        let line = "é".repeat(3000);
        for at in [0, 1500, 2000, 5998] {
            let t = clip(&line, at);
            assert!(t.len() <= MAX_LINE_BYTES, "{at}: {}", t.len());
        }
    }
}
