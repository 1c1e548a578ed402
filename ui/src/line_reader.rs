//! Reads input line by line without ever holding more than a bounded amount of one line.

use std::io::{self, BufRead, ErrorKind};

/// One input line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// 1-based line number (blank lines count).
    pub number: u64,
    /// What the line held.
    pub content: LineContent,
}

/// The content of one input line, without its `\n` (and a trailing `\r`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineContent {
    /// Valid UTF-8 within the limit.
    Text(String),
    /// Longer than the limit: the bytes were skipped up to the next newline.
    TooLong(usize),
    /// Not UTF-8; the first invalid byte is at this offset.
    NotUtf8(usize),
}

/// A line reader with a per-line byte limit.
pub(crate) struct LineReader<R> {
    inner: R,
    limit: usize,
    number: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Reads `inner`, accepting lines of at most `limit` bytes.
    pub fn new(inner: R, limit: usize) -> Self {
        Self {
            inner,
            limit,
            number: 0,
        }
    }

    /// The next line, or `None` at end of input. A line longer than the limit is consumed
    /// up to its newline without being buffered.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut buf = Vec::new();
        let mut total = 0usize;
        let mut too_long = false;
        let mut consumed_any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !consumed_any {
                    return Ok(None);
                }
                break;
            }
            consumed_any = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            total = total.saturating_add(take);
            if !too_long {
                // A trailing `\r` is not part of the line, so allow one byte for it.
                if total > self.limit.saturating_add(1) {
                    too_long = true;
                    buf = Vec::new();
                } else {
                    buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.inner.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        let content = if too_long {
            LineContent::TooLong(total)
        } else {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            if buf.len() > self.limit {
                LineContent::TooLong(buf.len())
            } else {
                match String::from_utf8(buf) {
                    Ok(text) => LineContent::Text(text),
                    Err(e) => LineContent::NotUtf8(e.utf8_error().valid_up_to()),
                }
            }
        };
        Ok(Some(Line {
            number: self.number,
            content,
        }))
    }
}

/// The message for a line that is not UTF-8.
pub(crate) fn not_utf8_message(offset: usize) -> String {
    format!("line is not valid UTF-8 (first invalid byte at offset {offset}); send UTF-8 text")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], limit: usize, capacity: usize) -> Vec<Line> {
        let mut r = LineReader::new(BufReader::with_capacity(capacity, input), limit);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            out.push(line);
        }
        out
    }

    fn text(number: u64, s: &str) -> Line {
        Line {
            number,
            content: LineContent::Text(s.into()),
        }
    }

    #[test]
    fn splits_lines_and_strips_line_endings() {
        for cap in [1, 2, 3, 64] {
            let got = lines(b"one\r\n\ntwo\nlast", 10, cap);
            assert_eq!(
                got,
                vec![text(1, "one"), text(2, ""), text(3, "two"), text(4, "last")]
            );
        }
        assert!(lines(b"", 10, 8).is_empty());
    }

    #[test]
    fn too_long_lines_are_skipped_to_the_newline() {
        for cap in [1, 4, 64] {
            let got = lines(b"abcdefghijkl\nok\n0123456789\n0123456789\r\n", 10, cap);
            assert_eq!(
                got,
                vec![
                    Line {
                        number: 1,
                        content: LineContent::TooLong(12)
                    },
                    text(2, "ok"),
                    text(3, "0123456789"),
                    text(4, "0123456789"),
                ]
            );
        }
        let got = lines(b"0123456789AB", 10, 4);
        assert_eq!(got[0].content, LineContent::TooLong(12));
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_offset() {
        let got = lines(b"ab\xffcd\nok\n", 10, 64);
        assert_eq!(got[0].content, LineContent::NotUtf8(2));
        assert_eq!(got[1], text(2, "ok"));
    }

    #[test]
    fn read_errors_are_returned() {
        struct Failing;
        impl io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        let mut r = LineReader::new(BufReader::new(Failing), 10);
        assert!(r.next_line().is_err());
    }
}
