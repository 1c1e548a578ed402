//! Cross-module checks: the whole pipeline on large generated inputs is the same for any worker
//! count and equals the straightforward sequential references.

use std::borrow::Cow;

use super::repeat_blocks::tests::{Rng, reference as blocks_reference};
use super::repeat_lines::tests::reference as lines_reference;
use super::*;
use crate::compute::{ComputePlane, host_parallelism};

fn planes() -> Vec<ComputePlane> {
    let mut counts = vec![1, 2, 4, host_parallelism()];
    counts.dedup();
    counts
        .into_iter()
        .map(|workers| {
            let Ok(plane) = ComputePlane::new(workers) else {
                panic!("pool with {workers} workers");
            };
            plane
        })
        .collect()
}

/// A build-log-like text of at least `lines` lines: runs of every length (many crossing the
/// 1,024-line partition boundaries), repeated blocks, unique lines, anchors and CRLF.
fn generated_log(lines: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut text = String::new();
    let mut count = 0;
    while count < lines {
        match rng.below(6) {
            0 => {
                // A run; long ones straddle partition boundaries.
                let longest = if rng.below(8) == 0 { 3000 } else { 12 };
                let n = 1 + rng.below(longest);
                let line = format!("Compiling crate-{} v0.1.{}\n", rng.below(5), rng.below(3));
                text.push_str(&line.repeat(n));
                count += n;
            }
            1 => {
                let k = 2 + rng.below(6);
                let n = 1 + rng.below(40);
                let block: String = (0..k)
                    .map(|j| format!("step {j} of block {}\n", rng.below(4)))
                    .collect();
                text.push_str(&block.repeat(n));
                count += k * n;
            }
            2 => {
                let kind = [
                    "error: failed to link",
                    "warning: unused",
                    "TypeError: x",
                    "ok",
                ];
                text.push_str(&format!("{} #{}\n", kind[rng.below(4)], rng.below(100_000)));
                count += 1;
            }
            3 => {
                text.push_str("windows line\r\n");
                count += 1;
            }
            _ => {
                let n = 1 + rng.below(50);
                for _ in 0..n {
                    text.push_str(&format!("unique {} é\n", rng.below(1 << 30)));
                }
                count += n;
            }
        }
    }
    text.push_str("exit status 1");
    text
}

#[test]
fn stages_match_sequential_references() {
    let text = generated_log(120_000, 0xfeed);
    let normalized = normalize(&text);
    let lines_expected = lines_reference(&normalized);
    let blocks_expected = blocks_reference(&lines_expected);
    for plane in planes() {
        let lines = repeat_lines(&plane, &normalized);
        assert_eq!(lines, lines_expected, "×N, {} workers", plane.workers());
        let blocks = repeat_blocks(&plane, &lines);
        assert_eq!(blocks, blocks_expected, "×N#K, {} workers", plane.workers());
    }
}

#[test]
fn pipeline_is_worker_count_invariant() {
    let text = generated_log(400_000, 0xabcd);
    for outcome in [ExitOutcome::Succeeded, ExitOutcome::ExitedUnsuccessfully] {
        let results: Vec<Projection> = planes()
            .iter()
            .map(|plane| project_stream(plane, text.as_bytes(), outcome, usize::MAX))
            .collect();
        let first = &results[0];
        assert!(first.normalized && first.reduced && first.truncated);
        assert!(
            first
                .text
                .as_ref()
                .is_some_and(|t| t.len() < text.len() / 4)
        );
        for (index, result) in results.iter().enumerate() {
            assert_eq!(result, first, "{outcome:?}, plane #{index}");
        }
    }
    let focused: Vec<Cow<'_, str>> = planes().iter().map(|p| failure_focus(p, &text)).collect();
    assert!(focused.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn runs_straddling_every_partition_boundary() {
    // 1,023 + 2 + 1,022 + ... : every run crosses a 1,024-line boundary.
    let mut text = String::new();
    let mut total = 0;
    let mut i = 0;
    while total < 300_000 {
        let n = if i % 2 == 0 { 1023 } else { 2 + i % 5 };
        text.push_str(&format!("line {}\n", i % 3).repeat(n));
        total += n;
        i += 1;
    }
    let expected = lines_reference(&text);
    for plane in planes() {
        assert_eq!(
            repeat_lines(&plane, &text),
            expected,
            "{} workers",
            plane.workers()
        );
    }
}
