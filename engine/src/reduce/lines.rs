//! LF-inclusive line tables and line fingerprints shared by the reducers.

use std::ops::Range;

use super::parallel::map_ranges;

/// Bytes per chunk when LF positions are found on the compute plane.
const SPLIT_CHUNK_BYTES: usize = 64 * 1024;
/// Lines per chunk when fingerprints are computed on the compute plane.
const FINGERPRINT_CHUNK_LINES: usize = 4096;

/// The LF-inclusive lines of a text; a final unterminated line is the last entry.
#[derive(Debug)]
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Exclusive byte end of each line.
    ends: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Splits `text`, finding LFs on the current Rayon pool when `parallel`.
    pub(crate) fn split(text: &'a str, parallel: bool) -> Lines<'a> {
        let bytes = text.as_bytes();
        let parts = map_ranges(bytes.len(), SPLIT_CHUNK_BYTES, parallel, |range| {
            let mut ends = Vec::new();
            push_line_ends(&bytes[range.clone()], range.start, &mut ends);
            ends
        });
        let mut ends = Vec::with_capacity(parts.iter().map(Vec::len).sum::<usize>() + 1);
        for part in parts {
            ends.extend_from_slice(&part);
        }
        if !bytes.is_empty() && bytes[bytes.len() - 1] != b'\n' {
            ends.push(bytes.len());
        }
        Lines { text, ends }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// Number of lines, a final unterminated line included.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Number of LF-terminated lines (they always come first).
    pub(crate) fn complete(&self) -> usize {
        if self.text.is_empty() || self.text.ends_with('\n') {
            self.len()
        } else {
            self.len() - 1
        }
    }

    /// Byte offset where line `i` starts.
    pub(crate) fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] }
    }

    /// Exclusive byte offset where line `i` ends (after its LF, if any).
    pub(crate) fn end(&self, i: usize) -> usize {
        self.ends[i]
    }

    /// Line `i` including its LF.
    pub(crate) fn line(&self, i: usize) -> &'a str {
        &self.text[self.start(i)..self.end(i)]
    }

    /// Byte range covered by the non-empty line range `lines`.
    pub(crate) fn bytes_of(&self, lines: Range<usize>) -> Range<usize> {
        self.start(lines.start)..self.end(lines.end - 1)
    }

    /// Fingerprints of the first `count` lines: equal lines always get equal fingerprints, so a
    /// fingerprint match only proposes equality and must be confirmed on the bytes.
    pub(crate) fn fingerprints(&self, count: usize, parallel: bool) -> Vec<u64> {
        let parts = map_ranges(count, FINGERPRINT_CHUNK_LINES, parallel, |range| {
            range
                .map(|i| fingerprint(self.line(i).as_bytes()))
                .collect::<Vec<u64>>()
        });
        let mut ids = Vec::with_capacity(count);
        for part in parts {
            ids.extend_from_slice(&part);
        }
        ids
    }
}

/// Appends `base + i + 1` for every LF at index `i` of `bytes`.
fn push_line_ends(bytes: &[u8], base: usize, ends: &mut Vec<usize>) {
    // 32-byte blocks reduced to a bit mask so the compiler can vectorise the comparison.
    let mut blocks = bytes.chunks_exact(32);
    let mut offset = base;
    for block in &mut blocks {
        let mut mask: u32 = 0;
        for (j, &b) in block.iter().enumerate() {
            mask |= u32::from(b == b'\n') << j;
        }
        while mask != 0 {
            ends.push(offset + mask.trailing_zeros() as usize + 1);
            mask &= mask - 1;
        }
        offset += 32;
    }
    for (j, &b) in blocks.remainder().iter().enumerate() {
        if b == b'\n' {
            ends.push(offset + j + 1);
        }
    }
}

/// A fast 64-bit fingerprint of a line (folded multiply over 8-byte words, length-seeded).
pub(crate) fn fingerprint(bytes: &[u8]) -> u64 {
    const SEED: u64 = 0xa076_1d64_78bd_642f;
    const MUL: u64 = 0xe703_7ed1_a0b4_28db;
    let mut h = SEED ^ (bytes.len() as u64).wrapping_mul(MUL);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        h = fold(h ^ u64::from_le_bytes(w), MUL);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = fold(h ^ u64::from_le_bytes(w), MUL);
    }
    fold(h, SEED)
}

/// Full 64×64→128 multiply folded back to 64 bits.
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str, parallel: bool) -> Vec<&str> {
        let lines = Lines::split(text, parallel);
        (0..lines.len()).map(|i| lines.line(i)).collect()
    }

    #[test]
    fn splits_lf_inclusive_with_unterminated_tail() {
        assert!(table("", false).is_empty());
        assert_eq!(table("a\nb", false), vec!["a\n", "b"]);
        assert_eq!(table("a\n\nb\n", false), vec!["a\n", "\n", "b\n"]);
        assert_eq!(Lines::split("a\nb", false).complete(), 1);
        assert_eq!(Lines::split("a\nb\n", false).complete(), 2);
        assert_eq!(Lines::split("", false).complete(), 0);
    }

    #[test]
    fn chunked_split_matches_std() {
        let mut text = String::new();
        for i in 0..40_000 {
            text.push_str(&"é".repeat(i % 7));
            if i % 3 != 0 {
                text.push('\n');
            }
        }
        text.push_str("tail");
        let expected: Vec<&str> = text.split_inclusive('\n').collect();
        assert_eq!(table(&text, false), expected);
        assert_eq!(table(&text, true), expected);
    }

    #[test]
    fn fingerprints_follow_bytes() {
        assert_eq!(fingerprint(b"abc\n"), fingerprint(b"abc\n"));
        assert_ne!(fingerprint(b"abc\n"), fingerprint(b"abd\n"));
        assert_ne!(fingerprint(b""), fingerprint(b"\0"));
        assert_ne!(fingerprint(b"12345678"), fingerprint(b"12345678\0"));
    }
}
