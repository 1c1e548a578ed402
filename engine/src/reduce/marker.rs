//! The reducer markers `×N`, `×N#K` and `⋯G`, and their byte lengths.

/// `×` (U+00D7, 2 bytes), the repetition sign of `×N` and `×N#K`.
const TIMES: &str = "\u{d7}";
/// `⋯` (U+22EF, 3 bytes), the gap sign of `⋯G`.
const ELLIPSIS: &str = "\u{22ef}";

/// Number of decimal digits of `n`.
pub(crate) fn decimal_len(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Byte length of `×N\n`.
pub(crate) fn line_marker_len(n: usize) -> usize {
    TIMES.len() + decimal_len(n) + 1
}

/// `×N\n`.
pub(crate) fn line_marker(n: usize) -> String {
    format!("{TIMES}{n}\n")
}

/// Byte length of `×N#K\n`.
pub(crate) fn block_marker_len(n: usize, k: usize) -> usize {
    TIMES.len() + decimal_len(n) + 1 + decimal_len(k) + 1
}

/// `×N#K\n`.
pub(crate) fn block_marker(n: usize, k: usize) -> String {
    format!("{TIMES}{n}#{k}\n")
}

/// Byte length of `⋯G\n`.
pub(crate) fn gap_marker_len(g: usize) -> usize {
    ELLIPSIS.len() + decimal_len(g) + 1
}

/// `⋯G\n`.
pub(crate) fn gap_marker(g: usize) -> String {
    format!("{ELLIPSIS}{g}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_match_the_rendered_markers() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, usize::MAX] {
            assert_eq!(decimal_len(n), n.to_string().len(), "{n}");
            assert_eq!(line_marker_len(n), line_marker(n).len());
            assert_eq!(block_marker_len(n, 32), block_marker(n, 32).len());
            assert_eq!(gap_marker_len(n), gap_marker(n).len());
        }
        assert_eq!(line_marker(5), "×5\n");
        assert_eq!(block_marker(6, 2), "×6#2\n");
        assert_eq!(gap_marker(18), "⋯18\n");
        assert_eq!(line_marker_len(5), 4);
        assert_eq!(gap_marker_len(18), 6);
    }
}
