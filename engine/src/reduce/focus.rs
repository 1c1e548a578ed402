//! ⋯N (failure focus): a failing process's output narrowed to the lines around its diagnostics.
//!
//! Lines are classified on the compute plane for large inputs (anchor indices collected in source
//! order); the window union and the gap encoding are a sequential pass, so the output does not
//! depend on the worker count.

use std::borrow::Cow;

use super::anchor::is_anchor;
use super::lines::Lines;
use super::marker::{gap_marker, gap_marker_len};
use super::parallel::{map_ranges, on_plane, worth_parallel};
use super::splice::Splice;
use crate::compute::ComputePlane;

/// Lines classified per parallel task.
const CLASSIFY_CHUNK_LINES: usize = 4096;
/// Lines kept before each anchor.
const BEFORE: usize = 2;
/// Lines kept after each anchor.
const AFTER: usize = 6;

/// Applies ⋯N (only meant for a process that exited unsuccessfully): over the logical lines (a
/// final unterminated line counts), keeps lines 0–1, the last two and `[i−2, i+6]` around every
/// anchor line i; each maximal dropped gap of G lines becomes `⋯G\n` only where that is shorter
/// than the gap. No anchor → unchanged. Returns `Cow::Borrowed` when nothing was dropped.
pub fn failure_focus<'a>(plane: &ComputePlane, text: &'a str) -> Cow<'a, str> {
    let parallel = worth_parallel(text.len());
    on_plane(plane, parallel, || focus(text, parallel))
}

/// The focus pass, classifying on the current Rayon pool when `parallel`.
fn focus(text: &str, parallel: bool) -> Cow<'_, str> {
    let lines = Lines::split(text, parallel);
    let n = lines.len();
    let anchors: Vec<usize> = map_ranges(n, CLASSIFY_CHUNK_LINES, parallel, |range| {
        range
            .filter(|&i| is_anchor(lines.line(i).as_bytes()))
            .collect::<Vec<usize>>()
    })
    .concat();
    if anchors.is_empty() {
        return Cow::Borrowed(text);
    }

    let mut keep = vec![false; n];
    for i in [0, 1, n.saturating_sub(2), n - 1] {
        if let Some(slot) = keep.get_mut(i) {
            *slot = true;
        }
    }
    for &anchor in &anchors {
        let window = anchor.saturating_sub(BEFORE)..(anchor + AFTER + 1).min(n);
        keep[window].fill(true);
    }

    let mut splice = Splice::new(text);
    let mut i = 0;
    while i < n {
        if keep[i] {
            i += 1;
            continue;
        }
        let gap_start = i;
        while i < n && !keep[i] {
            i += 1;
        }
        let gap = lines.bytes_of(gap_start..i);
        let count = i - gap_start;
        if gap_marker_len(count) < gap.len() {
            splice.replace(gap.start, gap.end, &gap_marker(count));
        }
    }
    splice.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Cow<'_, str> {
        focus(text, false)
    }

    /// The contract's 55-line failing log: 2 + 20 noise + anchor + 6 + 24 + 2.
    fn failing_log(final_lf: bool) -> String {
        let mut text = String::from("setup\ncommand\n");
        for i in 0..20 {
            text.push_str(&format!("noise-{i}\n"));
        }
        text.push_str("error[E0308]: mismatched types\n");
        for i in 0..6 {
            text.push_str(&format!("detail-{i}\n"));
        }
        for i in 20..44 {
            text.push_str(&format!("noise-{i}\n"));
        }
        text.push_str("summary\ndone");
        if final_lf {
            text.push('\n');
        }
        text
    }

    #[test]
    fn worked_example_55_lines() {
        for final_lf in [true, false] {
            let text = failing_log(final_lf);
            assert_eq!(text.split_inclusive('\n').count(), 55);
            let mut expected = String::from("setup\ncommand\n⋯18\nnoise-18\nnoise-19\n");
            expected.push_str("error[E0308]: mismatched types\n");
            for i in 0..6 {
                expected.push_str(&format!("detail-{i}\n"));
            }
            expected.push_str("⋯24\nsummary\ndone");
            if final_lf {
                expected.push('\n');
            }
            assert_eq!(run(&text), expected);
        }
    }

    #[test]
    fn no_anchor_is_unchanged() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        assert!(matches!(run(&text), Cow::Borrowed(_)));
        assert!(matches!(run(""), Cow::Borrowed(_)));
    }

    #[test]
    fn gap_markers_only_when_shorter() {
        // Anchor on line 2 keeps lines 0..=8; two lines are dropped before the last two.
        // `⋯2\n` is 5 bytes: a 5-byte gap stays verbatim, a 6-byte gap collapses.
        let head = "a\nb\nerror\n1\n2\n3\n4\n5\n6\n";
        let even = format!("{head}w\nxy\nlast1\nlast2\n");
        assert!(matches!(run(&even), Cow::Borrowed(_)));
        let longer = format!("{head}w\nxyz\nlast1\nlast2\n");
        assert_eq!(run(&longer), format!("{head}⋯2\nlast1\nlast2\n"));
        // One dropped 1-byte line: never worth a marker.
        let one = format!("{head}\nlast1\nlast2\n");
        assert!(matches!(run(&one), Cow::Borrowed(_)));
    }

    #[test]
    fn unterminated_last_line_is_a_logical_line() {
        // 12 lines, the last one unterminated: lines 10 and 11 are the last two.
        let text = "a\nb\nFATAL\n1\n2\n3\n4\n5\n6\nlong dropped line\nkept\nend";
        assert_eq!(run(text), "a\nb\nFATAL\n1\n2\n3\n4\n5\n6\n⋯1\nkept\nend");
    }

    #[test]
    fn windows_merge_and_clamp() {
        let mut text = String::new();
        for i in 0..40 {
            let line = if i == 1 || i == 15 || i == 19 || i == 38 {
                format!("line {i} failed\n")
            } else {
                format!("line {i} fine\n")
            };
            text.push_str(&line);
        }
        let kept: Vec<usize> = (0..=7).chain(13..=25).chain(36..40).collect();
        let mut expected = String::new();
        let mut previous = None;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if kept.contains(&i) {
                expected.push_str(line);
            } else if previous.is_some_and(|p: usize| kept.contains(&p)) || i == 0 {
                let gap = (i..).take_while(|j| !kept.contains(j)).count();
                expected.push_str(&format!("⋯{gap}\n"));
            }
            previous = Some(i);
        }
        assert_eq!(run(&text), expected);
    }

    #[test]
    fn tiny_inputs() {
        assert!(matches!(run("error"), Cow::Borrowed(_)));
        assert!(matches!(run("error\nx\n"), Cow::Borrowed(_)));
        assert!(matches!(run("a\nb\nc\nerror\n"), Cow::Borrowed(_)));
    }
}
