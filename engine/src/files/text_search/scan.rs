//! Matching one file's bytes: one match per line, the first occurrence, CR-stripped lines.
//!
//! Line semantics: lines are split on LF; a CR directly before an LF is stripped (a CR at the very
//! end of an unterminated last line is kept, since it is not a CRLF line end); the empty tail after
//! a final LF is not a line.
//!
//! Speed: rather than running the regex once per line, the *candidate* regex runs over the whole
//! buffer to jump to the next line that can match; the *line* regex then confirms on the
//! CR-stripped line and gives the column. A file is scanned a segment of whole lines at a time
//! ([`Matcher::scan_file`]), and "the whole buffer" here is the whole segment. This is exact as
//! long as every per-line match is also a whole-buffer match at the same offset. The candidate is
//! the pattern compiled in multi-line mode (so `^`/`$` work at LFs); that holds except for (a)
//! text anchors `\A`/`\z` and flag groups that clear `m`, which get per-line scanning
//! throughout, and (b) `$` before a stripped CR, which gets per-line scanning in segments
//! containing CRLF.

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

    /// True when only the count was kept ([`FileMatches::count_only`], or a scan past its
    /// [`Limits::keep_bytes`]).
    pub(super) fn lines_dropped(&self) -> bool {
        self.dropped.is_some()
    }

    /// Bytes the lines and rows take as they are collected, before any copy.
    fn collected_bytes(text: usize, rows: usize) -> usize {
        text + rows * std::mem::size_of::<LineMatch>()
    }

    /// Bytes the matches hold.
    pub(super) fn held_bytes(&self) -> usize {
        self.text.capacity() + self.rows.capacity() * std::mem::size_of::<LineMatch>()
    }

    /// Starts collecting a file's matches in the buffers of these (which are forgotten), as
    /// `limits` say.
    pub(super) fn start_lines(&mut self, limits: Limits) -> Lines {
        self.clear();
        Lines {
            text: std::mem::take(&mut self.text).into_bytes(),
            rows: std::mem::take(&mut self.rows),
            limits,
            counted: None,
        }
    }

    /// Makes the collected `lines` these matches, or forgets them with `Err` if they are not
    /// UTF-8 text, or a row does not end on a character (bytes changed under the scan). Lines
    /// that went past [`Limits::keep_bytes`] leave only their count and text bytes
    /// ([`FileMatches::lines_dropped`]).
    #[inline]
    pub(super) fn finish_lines(&mut self, lines: Lines) -> Result<(), ScanStop> {
        if let Some(counted) = lines.counted {
            let Lines { text, rows, .. } = lines;
            self.reuse(text, rows);
            self.dropped = Some(counted);
            return Ok(());
        }
        let Lines { text, rows, .. } = lines;
        let text = match String::from_utf8(text) {
            Ok(text) if rows.iter().all(|row| text.is_char_boundary(row.end)) => {
                self.text = text;
                self.rows = rows;
                return Ok(());
            }
            Ok(text) => text.into_bytes(),
            Err(torn) => torn.into_bytes(),
        };
        self.reuse(text, rows);
        Err(ScanStop::Torn)
    }

    /// Forgets the collected `lines` (and these matches), keeping their buffers for the next
    /// file's.
    pub(super) fn discard_lines(&mut self, lines: Lines) {
        let Lines { text, rows, .. } = lines;
        self.reuse(text, rows);
    }

    /// Takes the buffers `text` and `rows` back, emptied, as these (empty) matches'.
    fn reuse(&mut self, mut text: Vec<u8>, rows: Vec<LineMatch>) {
        text.clear();
        // Empty, so always UTF-8.
        self.text = String::from_utf8(text).unwrap_or_default();
        self.rows = rows;
        self.clear();
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

/// Why a scan stopped without its matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScanStop {
    /// The file has more matching lines than allowed.
    TooManyMatches,
    /// The matched lines are not UTF-8 text although the file was: its bytes changed while
    /// it was scanned (a mapped file written meanwhile).
    Torn,
}

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
    finds: Finds,
    strategy: Strategy,
}

/// What finds a query's matches.
#[derive(Debug, Clone)]
enum Finds {
    /// A case-sensitive literal without line ends is found by `memmem` directly: the same
    /// SIMD finder the regex would use as its prefilter, without a regex search per candidate
    /// (and without compiling two regexes it would never run, a tenth of a millisecond
    /// before the first file is read).
    Literal(Box<Finder<'static>>),
    /// The candidate regex finds lines that may match; the line regex confirms them.
    Regexes { candidate: Regex, line: Regex },
}

impl Matcher {
    /// Compiles `query`: a literal is regex-escaped; errors carry the `regex` crate's text.
    pub fn new(query: &str, flags: MatchFlags) -> Result<Matcher, regex::Error> {
        let pattern = if flags.regex {
            query.to_owned()
        } else {
            regex::escape(query)
        };
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
        let finds = if strategy == Strategy::Literal && !flags.case_insensitive {
            Finds::Literal(Box::new(Finder::new(query.as_bytes()).into_owned()))
        } else {
            let build = |multi_line: bool| {
                RegexBuilder::new(&pattern)
                    .case_insensitive(flags.case_insensitive)
                    .multi_line(multi_line)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
            };
            Finds::Regexes {
                line: build(false)?,
                candidate: build(true)?,
            }
        };
        Ok(Matcher { finds, strategy })
    }

    /// The finder of a case-sensitive literal without line ends: a file it does not occur in
    /// has no match.
    pub(super) fn literal(&self) -> Option<&Finder<'static>> {
        match &self.finds {
            Finds::Literal(finder) => Some(finder),
            Finds::Regexes { .. } => None,
        }
    }

    /// Finds the first match of every matching line; `Err` past `max` matches.
    #[cfg(test)]
    pub(super) fn scan(&self, text: &str, crlf: bool, max: usize) -> Result<FileMatches, ScanStop> {
        let mut out = FileMatches::default();
        self.scan_into(text.as_bytes(), crlf, max, &mut out)?;
        Ok(out)
    }

    /// Finds the first match of every matching line of `buf`, a file that was UTF-8 when it
    /// was checked, into `out`, which is cleared first; `Err` past `max` matches, or if the
    /// matched lines are no longer UTF-8 text.
    #[cfg(test)]
    pub(super) fn scan_into(
        &self,
        buf: &[u8],
        crlf: bool,
        max: usize,
        out: &mut FileMatches,
    ) -> Result<(), ScanStop> {
        let mut lines = out.start_lines(Limits::keeping_all(max));
        let scanned = self.scan_segment(buf, crlf, 1, 0, &mut lines);
        out.finish_lines(lines).and(scanned.map(|_| ()))
    }

    /// Checks that the file `bytes` is UTF-8 text and finds the first match of every matching
    /// line into `out`, a segment of about [`CHECK_BLOCK`] whole lines at a time: each segment
    /// is checked and then scanned while it is in the first level cache, and a segment
    /// without the literal is not scanned at all. Lines before a scanned segment are counted
    /// only when one is (or when they are [`COUNT_LAG_BYTES`] behind). `Err` past
    /// `limits.max` matches, or if the matched lines are no longer UTF-8 text. `done` is told,
    /// after each segment, the offset before which the scan reads `bytes` no more.
    pub(super) fn scan_file(
        &self,
        bytes: &[u8],
        limits: Limits,
        out: &mut FileMatches,
        done: &mut impl FnMut(usize),
    ) -> Result<FileText, ScanStop> {
        self.scan_file_from(bytes, &mut Cursor::default(), limits, None, out, done)
    }

    /// [`Matcher::scan_file`] from `cursor` on, which it moves: with `pause` given, the scan
    /// stops after the first segment that leaves at least `pause` bytes of lines collected,
    /// before the file's end ([`Cursor::at_end`] says which), and goes on where it stopped
    /// when called again with the same cursor and bytes. A file scanned in several calls
    /// gives, call after call, the rows one call gives (the cursor keeps the line count), so
    /// its matches can be handed on a part at a time. `crlf` of the text is for the bytes
    /// scanned so far.
    pub(super) fn scan_file_from(
        &self,
        bytes: &[u8],
        cursor: &mut Cursor,
        limits: Limits,
        pause: Option<usize>,
        out: &mut FileMatches,
        done: &mut impl FnMut(usize),
    ) -> Result<FileText, ScanStop> {
        let mut lines = out.start_lines(limits);
        let Cursor {
            mut start,
            mut counted,
            mut number,
            mut crlf_any,
        } = *cursor;
        let mut full = false;
        while start < bytes.len() && !full {
            let end = segment_end(bytes, start);
            let segment = &bytes[start..end];
            let TextKind::Utf8 { crlf, match_from } = text_kind(segment, self.literal()) else {
                // The file is skipped: its lines so far are dropped unchecked.
                out.discard_lines(lines);
                return Ok(FileText::NotUtf8);
            };
            crlf_any |= crlf;
            if let Some(from) = match_from {
                number += count_lf(&bytes[counted..start]) as u64;
                match self.scan_segment(segment, crlf, number, from, &mut lines) {
                    // The scan counted the segment's lines up to `reached`; only the rest
                    // of it is left to count.
                    Ok(reached) => {
                        counted = start + reached.offset;
                        number = reached.line;
                    }
                    Err(stop) => {
                        out.discard_lines(lines);
                        return Err(stop);
                    }
                }
            } else if end - counted > COUNT_LAG_BYTES {
                // Counted now, so that the bytes behind need not be read again.
                number += count_lf(&bytes[counted..end]) as u64;
                counted = end;
            }
            start = end;
            done(counted);
            full = pause.is_some_and(|pause| lines.collected() >= pause);
        }
        *cursor = Cursor {
            start,
            counted,
            number,
            crlf_any,
        };
        out.finish_lines(lines)?;
        Ok(FileText::Text { crlf: crlf_any })
    }

    /// Adds the matching lines of `segment` to `lines`: whole lines of a file (it ends after
    /// an LF or at the file's end) whose first is line `first_line`, with `crlf` true when the
    /// segment has a CRLF line end, and says how far it counted lines. A file scanned a
    /// segment at a time gives the rows the whole file gives: no line spans two segments,
    /// and a segment starts a line, as `^` needs. No match starts before byte `from` (where
    /// [`text_kind`] found the literal first, so the search for it does not run twice).
    #[inline]
    pub(super) fn scan_segment(
        &self,
        segment: &[u8],
        crlf: bool,
        first_line: u64,
        from: usize,
        lines: &mut Lines,
    ) -> Result<Reached, ScanStop> {
        let per_line = match self.strategy {
            Strategy::PerLine => true,
            Strategy::ConfirmUnlessCrlf => crlf,
            Strategy::Literal | Strategy::Confirm => false,
        };
        match &self.finds {
            Finds::Regexes { line, .. } if per_line => scan_lines(line, segment, first_line, lines),
            Finds::Literal(_) | Finds::Regexes { .. } => {
                self.scan_buffer(segment, first_line, from, lines)
            }
        }
    }

    fn scan_buffer(
        &self,
        buf: &[u8],
        first_line: u64,
        from: usize,
        out: &mut Lines,
    ) -> Result<Reached, ScanStop> {
        // `pos` is always the start of line `number`.
        let mut pos = 0;
        let mut number = first_line;
        while pos < buf.len() {
            let start = pos.max(from);
            let found = match &self.finds {
                Finds::Literal(finder) => buf
                    .get(start..)
                    .and_then(|rest| finder.find(rest))
                    .map(|i| start + i),
                Finds::Regexes { candidate, .. } => candidate
                    .find_at(buf, start.min(buf.len()))
                    .map(|m| m.start()),
            };
            let Some(at) = found else {
                break;
            };
            let skipped = &buf[pos..at];
            let newlines = count_lf(skipped);
            if newlines > 0 {
                number += newlines as u64;
                pos += memchr::memrchr(b'\n', skipped).map_or(0, |i| i + 1);
            }
            let line_start = pos;
            if line_start >= buf.len() {
                break;
            }
            let line_end = find_lf(buf, at);
            let line = line_start..strip_cr(buf, line_start, line_end);
            let column = match &self.finds {
                Finds::Regexes { line: confirm, .. } if self.strategy != Strategy::Literal => {
                    confirm.find(&buf[line.clone()]).map(|found| found.start())
                }
                Finds::Literal(_) | Finds::Regexes { .. } => Some(at - line_start),
            };
            if let Some(column) = column {
                out.push(number, column, &buf[line])?;
            }
            pos = line_end + 1;
            number += 1;
        }
        Ok(Reached::at(buf, pos, number))
    }
}

/// Scans `buf` a line at a time with the line regex `line_regex`.
fn scan_lines(
    line_regex: &Regex,
    buf: &[u8],
    first_line: u64,
    out: &mut Lines,
) -> Result<Reached, ScanStop> {
    let mut start = 0;
    let mut number = first_line;
    while start < buf.len() {
        let end = find_lf(buf, start);
        let line = start..strip_cr(buf, start, end);
        if let Some(found) = line_regex.find(&buf[line.clone()]) {
            out.push(number, found.start(), &buf[line])?;
        }
        start = end + 1;
        number += 1;
    }
    Ok(Reached::at(buf, start, number))
}

/// How far a segment's scan counted lines: `offset` bytes into the segment is the start of
/// line `line` (or the segment's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reached {
    /// Bytes into the segment: a line start, or its length.
    pub(super) offset: usize,
    /// The line that starts there.
    pub(super) line: u64,
}

impl Reached {
    /// Where a scan of `segment` stopped, at line `line` starting at `pos`: a line past an
    /// unterminated last line (which ends the file) starts at the segment's end.
    fn at(segment: &[u8], pos: usize, line: u64) -> Reached {
        Reached {
            offset: pos.min(segment.len()),
            line,
        }
    }
}

/// How far a scan of a file collects its matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    /// Matching lines past which the scan stops with [`ScanStop::TooManyMatches`].
    pub(super) max: usize,
    /// Bytes of collected lines and rows past which lines are only counted, not kept: a scan
    /// holds no more than this, whatever the file.
    pub(super) keep_bytes: usize,
}

impl Limits {
    /// Up to `max` lines, all kept.
    #[cfg(test)]
    pub(super) fn keeping_all(max: usize) -> Limits {
        Limits {
            max,
            keep_bytes: usize::MAX,
        }
    }
}

/// Where [`Matcher::scan_file_from`] goes on: the next segment's start, and the lines before
/// it counted so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cursor {
    start: usize,
    /// Lines before this offset are `number - 1`.
    counted: usize,
    number: u64,
    crlf_any: bool,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor {
            start: 0,
            counted: 0,
            number: 1,
            crlf_any: false,
        }
    }
}

impl Cursor {
    /// True once the scan of a file of `len` bytes has reached its end.
    pub(super) fn at_end(&self, len: usize) -> bool {
        self.start >= len
    }
}

/// Bytes of lines a scan may leave uncounted behind it, in a file with no match for that
/// long: past them they are counted while they are still cached, so the scan never reads far
/// back (a mapped file's pages behind the scan can then be given back, `mapped.rs`).
const COUNT_LAG_BYTES: usize = 4 << 20;

/// The matched lines of a scan as they are found: their bytes, and their rows. The lines are
/// copied as bytes and validated together once, after the scan
/// ([`FileMatches::finish_lines`]), so that bytes changing under the scan can never make a
/// `str` that is not UTF-8.
pub(super) struct Lines {
    text: Vec<u8>,
    rows: Vec<LineMatch>,
    limits: Limits,
    /// Lines and their text bytes, once past [`Limits::keep_bytes`]: from then on lines are
    /// only counted.
    counted: Option<(usize, usize)>,
}

impl Lines {
    /// Bytes the kept lines and rows take.
    fn collected(&self) -> usize {
        FileMatches::collected_bytes(self.text.len(), self.rows.len())
    }

    /// Adds line `number`, whose first match is `offset` bytes in.
    #[inline]
    fn push(&mut self, number: u64, offset: usize, line: &[u8]) -> Result<(), ScanStop> {
        if let Some((count, bytes)) = &mut self.counted {
            if *count >= self.limits.max {
                return Err(ScanStop::TooManyMatches);
            }
            *count += 1;
            *bytes += line.len();
            return Ok(());
        }
        if self.rows.len() >= self.limits.max {
            return Err(ScanStop::TooManyMatches);
        }
        let with_line =
            FileMatches::collected_bytes(self.text.len() + line.len(), self.rows.len() + 1);
        if with_line > self.limits.keep_bytes {
            // The lines kept so far are of no use once the file is past its budget.
            self.counted = Some((self.rows.len() + 1, self.text.len() + line.len()));
            self.text.clear();
            self.rows.clear();
            return Ok(());
        }
        self.text.extend_from_slice(line);
        self.rows.push(LineMatch {
            line: number,
            column: offset as u64 + 1,
            end: self.text.len(),
        });
        Ok(())
    }
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
pub(super) fn count_lf(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
}

/// Bytes checked at a time by [`text_kind`] (a test uses smaller blocks): small enough that the CR search finds them in
/// the first level cache where the UTF-8 check left them.
#[cfg(not(test))]
const CHECK_BLOCK: usize = 32 * 1024;
/// Small in unit tests, so that their files span many segments (and a streamed file many
/// parts).
#[cfg(test)]
const CHECK_BLOCK: usize = 4 * 1024;

/// What [`Matcher::scan_file`] found the file to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileText {
    /// Not UTF-8: the file is skipped.
    NotUtf8,
    /// UTF-8, with `crlf` true when it has a CRLF line end.
    Text { crlf: bool },
}

/// Where the segment of [`Matcher::scan_file`] that starts at `start` ends: after the first LF
/// past [`CHECK_BLOCK`] bytes, or at the end.
///
/// The search runs forward: searching back from the cut for the last LF before it read the
/// segment's end first, against the direction the caches fetch ahead in, and cost more than
/// checking the whole segment did in a mapped file.
fn segment_end(bytes: &[u8], start: usize) -> usize {
    let cut = start + CHECK_BLOCK;
    if cut >= bytes.len() {
        return bytes.len();
    }
    memchr::memchr(b'\n', &bytes[cut..]).map_or(bytes.len(), |at| cut + at + 1)
}

/// What [`text_kind`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// Not UTF-8: the file is skipped.
    NotUtf8,
    /// UTF-8, with `crlf` true when it has a CRLF line end, and `match_from` where a match
    /// can start first: where the matcher's literal finder found the literal first, 0 when
    /// none was given, and `None` only when it was given and found nothing.
    Utf8 {
        crlf: bool,
        match_from: Option<usize>,
    },
}

/// Checks that `buf` is UTF-8, whether it has a CR and, with `literal`, whether the literal
/// occurs, a block at a time, so a file larger than the caches streams from memory once for
/// all three rather than once for each.
///
/// Blocks end before a byte that starts a character (a UTF-8 text cut there is UTF-8 exactly
/// when each piece is), so no character is split between two checks; the literal is looked
/// for in each block and the literal's length less one byte after it, so an occurrence that
/// starts in a block is found there.
pub(super) fn text_kind(buf: &[u8], literal: Option<&Finder<'_>>) -> TextKind {
    text_kind_in_blocks(buf, literal, CHECK_BLOCK)
}

/// [`text_kind`] with blocks of `block` bytes.
pub(super) fn text_kind_in_blocks(
    buf: &[u8],
    mut literal: Option<&Finder<'_>>,
    block: usize,
) -> TextKind {
    let mut cr = false;
    let mut found = literal.is_none().then_some(0);
    let mut start = 0;
    while start < buf.len() {
        let cut = (start + block).min(buf.len());
        let continues = |at: usize| at < buf.len() && (buf[at] & 0xC0) == 0x80;
        let mut end = cut;
        while end > start && continues(end) {
            end -= 1;
        }
        if end == start {
            // A block shorter than its first character (or a run of stray continuation
            // bytes, which the check then finds) ends after it instead.
            end = cut;
            while continues(end) {
                end += 1;
            }
        }
        let piece = &buf[start..end];
        if simdutf8::basic::from_utf8(piece).is_err() {
            return TextKind::NotUtf8;
        }
        // Most files have no CR at all, and the single-byte search is the faster one.
        cr = cr || memchr::memchr(b'\r', piece).is_some();
        if let Some(finder) = literal {
            let reach = (end + finder.needle().len().saturating_sub(1)).min(buf.len());
            if let Some(at) = finder.find(&buf[start..reach]) {
                found = Some(start + at);
                literal = None;
            }
        }
        start = end;
    }
    TextKind::Utf8 {
        crlf: cr && memchr::memmem::find(buf, b"\r\n").is_some(),
        match_from: found,
    }
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
