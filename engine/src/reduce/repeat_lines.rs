//! ×N: each maximal run of identical LF-terminated lines collapses to the line plus `×N`.
//!
//! Runs are found per 1,024-line partition (on the compute plane for large inputs) and the runs
//! that touch a partition boundary are merged in source order, so the output is the sequential
//! algorithm's byte for byte whatever the worker count.

use std::borrow::Cow;

use super::lines::Lines;
use super::marker::{line_marker, line_marker_len};
use super::parallel::{map_ranges, on_plane, worth_parallel};
use super::splice::Splice;
use crate::compute::ComputePlane;

/// Lines per partition.
const PARTITION_LINES: usize = 1024;
/// Inputs with at least this many lines are partitioned.
const PARTITION_MIN_LINES: usize = 2048;

/// Applies ×N: a run of N ≥ 2 identical LF-terminated lines becomes the line once plus `×N\n` iff
/// the marker is shorter than the N−1 omitted lines; a final unterminated line never collapses.
/// Returns `Cow::Borrowed` when nothing collapsed.
pub fn repeat_lines<'a>(plane: &ComputePlane, text: &'a str) -> Cow<'a, str> {
    let parallel = worth_parallel(text.len());
    on_plane(plane, parallel, || {
        collapse_runs(text, parallel, PARTITION_LINES)
    })
}

/// A run of `count` identical lines starting at line `first`.
#[derive(Debug, Clone, Copy)]
struct Run {
    first: usize,
    count: usize,
}

/// ×N with an explicit partition size (`usize::MAX` = one partition, the sequential algorithm).
fn collapse_runs(text: &str, parallel: bool, partition: usize) -> Cow<'_, str> {
    let lines = Lines::split(text, parallel);
    let n = lines.len();
    let partition = if n >= PARTITION_MIN_LINES {
        partition
    } else {
        n.max(1)
    };
    let parts = map_ranges(n, partition, parallel, |range| {
        let mut runs = Vec::new();
        let mut i = range.start;
        while i < range.end {
            let line = lines.line(i);
            let mut j = i + 1;
            while j < range.end && lines.line(j) == line {
                j += 1;
            }
            runs.push(Run {
                first: i,
                count: j - i,
            });
            i = j;
        }
        runs
    });

    let mut splice = Splice::new(text);
    let mut open: Option<Run> = None;
    for part in parts {
        for (index, run) in part.into_iter().enumerate() {
            match open {
                // Only a partition's first run can continue the previous partition's last one.
                Some(ref mut prev)
                    if index == 0 && lines.line(prev.first) == lines.line(run.first) =>
                {
                    prev.count += run.count;
                }
                Some(prev) => {
                    emit(&lines, &mut splice, prev);
                    open = Some(run);
                }
                None => open = Some(run),
            }
        }
    }
    if let Some(last) = open {
        emit(&lines, &mut splice, last);
    }
    splice.finish()
}

/// Replaces the omitted lines of `run` with its marker when that saves bytes.
fn emit(lines: &Lines<'_>, splice: &mut Splice<'_>, run: Run) {
    if run.count < 2 {
        return;
    }
    let line_len = lines.line(run.first).len();
    // An unterminated line is unique in the text, so a run of N ≥ 2 is always LF-terminated.
    if line_marker_len(run.count) < (run.count - 1) * line_len {
        let omitted = lines.bytes_of(run.first + 1..run.first + run.count);
        splice.replace(omitted.start, omitted.end, &line_marker(run.count));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Straightforward reference: one pass over `split_inclusive` lines.
    pub(crate) fn reference(text: &str) -> String {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut i = 0;
        while i < lines.len() {
            let mut j = i + 1;
            while j < lines.len() && lines[j] == lines[i] && lines[i].ends_with('\n') {
                j += 1;
            }
            let n = j - i;
            let marker = format!("×{n}\n");
            if n >= 2 && marker.len() < (n - 1) * lines[i].len() {
                out.push_str(lines[i]);
                out.push_str(&marker);
            } else {
                for line in &lines[i..j] {
                    out.push_str(line);
                }
            }
            i = j;
        }
        out
    }

    fn run(text: &str) -> Cow<'_, str> {
        collapse_runs(text, false, PARTITION_LINES)
    }

    #[test]
    fn worked_examples() {
        assert_eq!(run(&"alpha\n".repeat(5)), "alpha\n×5\n");
        assert!(matches!(run("x\nx\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn collapses_only_when_the_marker_is_shorter() {
        // `×3\n` is 4 bytes: two omitted `ab\n` (6 bytes) save, two omitted `x\n` (4 bytes) do not.
        assert_eq!(run("ab\nab\nab\n"), "ab\n×3\n");
        assert!(matches!(run("x\nx\nx\n"), Cow::Borrowed(_)));
        assert_eq!(run("x\nx\nx\nx\n"), "x\n×4\n");
        // Blank lines: `×5\n` (4 B) vs 4 omitted bytes → kept; six save.
        assert!(matches!(run(&"\n".repeat(5)), Cow::Borrowed(_)));
        assert_eq!(run(&"\n".repeat(6)), "\n×6\n");
        // 10 needs a two-digit marker: `x\n`×10 → 5 B marker vs 18 B.
        assert_eq!(run(&"x\n".repeat(10)), "x\n×10\n");
    }

    #[test]
    fn final_unterminated_line_never_collapses() {
        assert_eq!(run("ab\nab\nab\nab"), "ab\n×3\nab");
        assert!(matches!(run("ab\nab"), Cow::Borrowed(_)));
        assert_eq!(run("é\né\né\né\n"), "é\n×4\n");
    }

    #[test]
    fn runs_merge_across_partitions() {
        // Runs straddling every boundary of small partitions, including a run spanning three.
        let mut text = String::new();
        for (line, count) in [("a\n", 3), ("b\n", 5), ("c\n", 1), ("dd\n", 9), ("e\n", 2)] {
            text.push_str(&line.repeat(count));
        }
        let text = text.repeat(300) + "tail";
        let expected = reference(&text);
        for partition in [1, 2, 3, 4, 7, 1024, usize::MAX] {
            for parallel in [false, true] {
                assert_eq!(
                    collapse_runs(&text, parallel, partition),
                    expected,
                    "{partition}"
                );
            }
        }
    }
}
