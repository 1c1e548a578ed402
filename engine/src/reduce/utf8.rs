//! Chunk-by-chunk UTF-8 validation for captures that arrive (and spool) in pieces.

/// Validates a byte stream fed in arbitrary chunks; a character split across chunks is carried
/// over (at most 3 bytes) and checked once the rest arrives.
#[derive(Debug, Clone, Default)]
pub struct Utf8Tracker {
    /// The incomplete character at the end of the bytes seen so far.
    pending: [u8; 4],
    pending_len: usize,
    invalid: bool,
}

impl Utf8Tracker {
    /// A tracker that has seen nothing (the empty stream is valid).
    pub fn new() -> Utf8Tracker {
        Utf8Tracker::default()
    }

    /// Feeds the next chunk of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.invalid {
            return;
        }
        let mut rest = chunk;
        if self.pending_len > 0 {
            let width = sequence_width(self.pending[0]);
            let take = (width - self.pending_len).min(rest.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&rest[..take]);
            self.pending_len += take;
            rest = &rest[take..];
            match std::str::from_utf8(&self.pending[..self.pending_len]) {
                Ok(_) => self.pending_len = 0,
                // Still a valid prefix; the chunk was too short to finish it.
                Err(err) if err.error_len().is_none() => return,
                Err(_) => {
                    self.invalid = true;
                    return;
                }
            }
        }
        if let Err(err) = std::str::from_utf8(rest) {
            if err.error_len().is_some() {
                self.invalid = true;
                return;
            }
            let tail = &rest[err.valid_up_to()..];
            self.pending[..tail.len()].copy_from_slice(tail);
            self.pending_len = tail.len();
        }
    }

    /// Whether the bytes so far are valid UTF-8 or a valid prefix of it (a split character may
    /// still be waiting for its remaining bytes).
    pub fn valid_so_far(&self) -> bool {
        !self.invalid
    }

    /// Whether the whole stream is valid UTF-8: nothing invalid and no character left unfinished.
    pub fn is_valid(&self) -> bool {
        !self.invalid && self.pending_len == 0
    }
}

/// Byte length announced by a UTF-8 lead byte (1 for bytes that cannot lead, which then fail
/// validation on their own).
fn sequence_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunked(bytes: &[u8], sizes: &[usize]) -> Utf8Tracker {
        let mut tracker = Utf8Tracker::new();
        let mut rest = bytes;
        let mut k = 0;
        while !rest.is_empty() {
            let size = sizes[k % sizes.len()].clamp(1, rest.len());
            tracker.push(&rest[..size]);
            rest = &rest[size..];
            k += 1;
        }
        tracker
    }

    #[test]
    fn split_sequences_are_joined() {
        let text = "aé€😀z".as_bytes();
        for split in 0..=text.len() {
            let mut tracker = Utf8Tracker::new();
            tracker.push(&text[..split]);
            assert!(tracker.valid_so_far());
            tracker.push(&text[split..]);
            assert!(tracker.is_valid(), "split at {split}");
        }
        for size in 1..5 {
            assert!(chunked(text, &[size]).is_valid(), "chunks of {size}");
        }
        // A 4-byte character fed one byte at a time, then an empty chunk.
        let mut tracker = chunked("😀".as_bytes(), &[1]);
        tracker.push(&[]);
        assert!(tracker.is_valid());
    }

    #[test]
    fn unfinished_character_at_the_end_is_invalid() {
        let mut tracker = Utf8Tracker::new();
        tracker.push(&"€".as_bytes()[..2]);
        assert!(tracker.valid_so_far());
        assert!(!tracker.is_valid());
        assert!(Utf8Tracker::new().is_valid());
    }

    #[test]
    fn invalid_bytes_are_caught_in_any_chunking() {
        let cases: [&[u8]; 6] = [
            b"ab\xffcd",
            b"\xc3(",
            b"\xe2\x82(",
            b"\xed\xa0\x80",     // surrogate
            b"\xf0\x80\x80\x80", // overlong
            b"\xf4\x90\x80\x80", // above U+10FFFF
        ];
        for bytes in cases {
            for size in 1..=bytes.len() {
                let tracker = chunked(bytes, &[size]);
                assert!(!tracker.is_valid(), "{bytes:?} in chunks of {size}");
                assert!(!tracker.valid_so_far(), "{bytes:?} in chunks of {size}");
            }
        }
    }

    #[test]
    fn agrees_with_std_on_generated_streams() {
        let pieces: [&[u8]; 8] = [
            b"a",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\n",
            b"\x80",
            b"\xe2\x82",
            b"\xf0",
        ];
        let mut state = 0x1234_5678_u64;
        for _ in 0..2000 {
            let mut bytes = Vec::new();
            for _ in 0..12 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                // Mostly valid pieces, with an occasional stray or truncated sequence.
                let choices = if state.is_multiple_of(5) { 8 } else { 5 };
                let piece = pieces[(state >> 33) as usize % choices];
                bytes.extend_from_slice(piece);
            }
            let expected = std::str::from_utf8(&bytes).is_ok();
            for size in [1, 2, 3, 5, 7] {
                assert_eq!(chunked(&bytes, &[size]).is_valid(), expected, "{bytes:?}");
            }
        }
    }
}
