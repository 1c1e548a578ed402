//! Bounded, chunked reads of retained values: only the requested range is touched (spooled
//! values are read from disk chunk by chunk), the deadline is checked between chunks, and a
//! [`Sink`] hashes and validates a selection while keeping only its head.

use crate::deadline::Deadline;
use crate::protocol::{Digest, ErrorCode, ErrorRecord, Stage};
use crate::store::Body;
use std::borrow::Cow;
use std::ops::ControlFlow;

/// Bytes handed to a chunk callback at a time.
const CHUNK: u64 = 1 << 20;

/// 402 at the execute stage.
pub(super) fn timed_out() -> ErrorRecord {
    ErrorRecord::typical_at(ErrorCode::TimedOut, Stage::Execute)
}

/// Calls `each(offset, bytes)` on consecutive pieces of `[start, end)` (clamped to the value)
/// until it breaks.
pub(super) fn chunks(
    body: &Body,
    start: u64,
    end: u64,
    deadline: Deadline,
    mut each: impl FnMut(u64, &[u8]) -> ControlFlow<()>,
) -> Result<(), ErrorRecord> {
    let end = end.min(body.len());
    let mut at = start.min(end);
    while at < end {
        deadline.check().map_err(|_| timed_out())?;
        let n = (end - at).min(CHUNK);
        let flow = match range(body, at, at + n)? {
            Cow::Borrowed(bytes) => each(at, bytes),
            Cow::Owned(bytes) => each(at, &bytes),
        };
        if flow.is_break() {
            break;
        }
        at += n;
    }
    Ok(())
}

/// Bytes `[start, end)` of the value (clamped): borrowed when resident, read from disk when
/// spooled.
pub(super) fn range(body: &Body, start: u64, end: u64) -> Result<Cow<'_, [u8]>, ErrorRecord> {
    let end = end.min(body.len());
    let start = start.min(end);
    match body {
        Body::Memory(bytes) => bytes
            .get(start as usize..end as usize)
            .map(Cow::Borrowed)
            .ok_or(ErrorRecord::internal_execute()),
        Body::Spool(_) => body
            .read_range(start, end - start)
            .map(Cow::Owned)
            .map_err(|_| ErrorRecord::store_io()),
    }
}

/// Index of the first LF in `bytes` at or after `from`.
pub(super) fn find_lf(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| from + i)
}

/// UTF-8 validation across chunk boundaries.
#[derive(Debug, Default)]
pub(super) struct Utf8Stream {
    /// An incomplete character at the end of the last chunk.
    carry: Vec<u8>,
    invalid: bool,
}

impl Utf8Stream {
    /// Validates the next piece.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if self.invalid {
            return;
        }
        if let Some(&lead) = self.carry.first() {
            let width = match lead {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let take = (width - self.carry.len()).min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < width {
                return;
            }
            if std::str::from_utf8(&self.carry).is_err() {
                self.invalid = true;
                return;
            }
            self.carry.clear();
        }
        if let Err(e) = std::str::from_utf8(bytes) {
            match e.error_len() {
                Some(_) => self.invalid = true,
                None => self.carry = bytes[e.valid_up_to()..].to_vec(),
            }
        }
    }

    /// Whether everything fed was UTF-8 (no character left unfinished).
    pub fn is_valid(&self) -> bool {
        !self.invalid && self.carry.is_empty()
    }
}

/// A selection read as a stream: its length, digest, UTF-8 validity and first bytes.
#[derive(Debug)]
pub(super) struct Selected {
    /// Bytes selected.
    pub len: u64,
    /// BLAKE3 of the selection.
    pub digest: Digest,
    /// Whether the selection is UTF-8.
    pub utf8: bool,
    /// The first bytes (all of them when the selection is no longer than the cap).
    pub head: Vec<u8>,
}

/// Consumes a selection piece by piece, keeping at most `cap` bytes of it.
pub(super) struct Sink {
    hasher: blake3::Hasher,
    utf8: Utf8Stream,
    head: Vec<u8>,
    cap: usize,
    len: u64,
}

impl Sink {
    /// A sink keeping the first `cap` bytes.
    pub fn new(cap: usize) -> Sink {
        Sink {
            hasher: blake3::Hasher::new(),
            utf8: Utf8Stream::default(),
            head: Vec::new(),
            cap,
            len: 0,
        }
    }

    /// Takes the next piece of the selection.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.utf8.feed(bytes);
        let keep = (self.cap - self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..keep]);
        self.len += bytes.len() as u64;
    }

    /// The selection as read.
    pub fn finish(self) -> Selected {
        Selected {
            len: self.len,
            digest: Digest(*self.hasher.finalize().as_bytes()),
            utf8: self.utf8.is_valid(),
            head: self.head,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid_in_pieces(bytes: &[u8], size: usize) -> bool {
        let mut s = Utf8Stream::default();
        for piece in bytes.chunks(size) {
            s.feed(piece);
        }
        s.is_valid()
    }

    #[test]
    fn utf8_is_tracked_across_every_split() {
        let text = "a€😀é\u{80}z".as_bytes();
        for size in 1..=text.len() {
            assert!(valid_in_pieces(text, size), "split every {size} bytes");
        }
        // Without `z` and the last byte of U+0080, a character is left unfinished.
        let cut = &text[..text.len() - 2];
        for size in 1..=cut.len() {
            assert!(!valid_in_pieces(cut, size), "unfinished, pieces of {size}");
        }
        for bad in [&b"\xE2\x28\xA1"[..], b"a\xff", b"\xF0\x9F\x98", b"\xC0\x80"] {
            for size in 1..=bad.len() {
                assert!(!valid_in_pieces(bad, size), "{bad:?} in pieces of {size}");
            }
        }
    }

    #[test]
    fn a_sink_hashes_everything_and_keeps_the_head() {
        let mut sink = Sink::new(3);
        sink.feed(b"ab");
        sink.feed(b"cde");
        let s = sink.finish();
        assert_eq!(s.len, 5);
        assert_eq!(s.head, b"abc");
        assert_eq!(s.digest, Digest(*blake3::hash(b"abcde").as_bytes()));
        assert!(s.utf8);
    }
}
