//! +/− line counts of a planned change, for the plan screen.

use similar::{Algorithm, DiffTag, TextDiff};
use std::collections::HashMap;

/// Above this many bytes on either side the counts come from a line multiset comparison
/// (linear; a moved line is not counted) instead of an exact diff, whose worst case is
/// quadratic. Deterministic either way: no time limit decides the result.
const EXACT_LIMIT: usize = 1 << 20;

/// How one file side reads.
pub(crate) enum Text<'a> {
    /// UTF-8 without NUL bytes.
    Lines(&'a str),
    /// Anything else: counts say nothing.
    Binary,
}

/// Classifies content as text or binary (a NUL byte, or not UTF-8).
pub(crate) fn text(bytes: &[u8]) -> Text<'_> {
    if memchr::memchr(0, bytes).is_some() {
        return Text::Binary;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Text::Lines(s),
        Err(_) => Text::Binary,
    }
}

/// Lines of a text (a last line without its newline counts).
pub(crate) fn count(s: &str) -> u64 {
    let newlines = bytecount::count(s.as_bytes(), b'\n') as u64;
    newlines + u64::from(!s.is_empty() && !s.ends_with('\n'))
}

/// (added, removed) lines going from `old` to `new`.
pub(crate) fn changed(old: &str, new: &str) -> (u64, u64) {
    if old.len() > EXACT_LIMIT || new.len() > EXACT_LIMIT {
        return multiset(old, new);
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(old, new);
    let (mut added, mut removed) = (0u64, 0u64);
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete => removed += old_range.len() as u64,
            DiffTag::Insert => added += new_range.len() as u64,
            DiffTag::Replace => {
                removed += old_range.len() as u64;
                added += new_range.len() as u64;
            }
        }
    }
    (added, removed)
}

fn multiset(old: &str, new: &str) -> (u64, u64) {
    let mut seen: HashMap<&str, i64> = HashMap::new();
    for line in old.split_inclusive('\n') {
        *seen.entry(line).or_default() += 1;
    }
    let mut added = 0u64;
    for line in new.split_inclusive('\n') {
        match seen.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => added += 1,
        }
    }
    let removed = seen.values().map(|&n| n.max(0) as u64).sum();
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_a_line_diff() {
        assert_eq!(changed("a\nb\nc\n", "a\nB\nc\nd\n"), (2, 1));
        assert_eq!(changed("", "x\ny"), (2, 0));
        assert_eq!(changed("x\n", ""), (0, 1));
        assert_eq!(count("x\ny"), 2);
        assert_eq!(count(""), 0);
    }

    #[test]
    fn the_multiset_fallback_agrees_on_plain_edits() {
        assert_eq!(multiset("a\nb\nc\n", "a\nB\nc\nd\n"), (2, 1));
    }

    #[test]
    fn nul_bytes_and_invalid_utf8_are_binary() {
        assert!(matches!(text(b"a\0b"), Text::Binary));
        assert!(matches!(text(&[0xff, 0xfe]), Text::Binary));
        assert!(matches!(text(b"fine\n"), Text::Lines(_)));
    }
}
