//! Exec reducer benchmark: reduction ratios (bytes and tokens) on three synthetic corpora and
//! projection throughput on 131,072-line inputs.
//!
//! Ratios use an unlimited budget (`usize::MAX`), so no head/tail cut happens and the ratio is the
//! reducers' alone. Throughput runs the whole `project_stream` pipeline (UTF-8 check, CRLF, ×N,
//! ×N#K, ⋯N for failing logs, head/tail at a 32 KiB budget = ⌊L/2⌋ for L = 64 KiB) on a 2-worker
//! compute plane. Token counts use tiktoken-rs's bundled `cl100k_base` and `o200k_base`, loaded on
//! first use.
//!
//! Run: `cargo bench -p ash-engine --bench reducers`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use ash_engine::compute::ComputePlane;
use ash_engine::reduce::{
    ExitOutcome, failure_focus, normalize, project_stream, repeat_blocks, repeat_lines,
};

/// Timed rounds per throughput case.
const ROUNDS: usize = 31;
/// Lines of the throughput inputs.
const THROUGHPUT_LINES: usize = 131_072;
/// Budget of the throughput runs: the failing stderr budget ⌊L/2⌋ for L = 64 KiB.
const THROUGHPUT_BUDGET: usize = 32 * 1024;

fn main() {
    let plane = ComputePlane::new(2).expect("2-worker compute plane");

    println!("reduction ratios (budget unlimited: no head/tail cut)");
    println!(
        "{:<44} {:>9} {:>8} {:>8} {:>7} {:>17} {:>17}",
        "corpus", "src B", "proj B", "ratio", "target", "cl100k src→proj", "o200k src→proj"
    );
    for (name, text, outcome, target) in [
        (
            "runs: 8,192 lines in 64 runs",
            runs(64, 128),
            ExitOutcome::Succeeded,
            1.0,
        ),
        (
            "blocks: 32 six-line blocks x 64",
            blocks(32, 64),
            ExitOutcome::Succeeded,
            2.0,
        ),
        (
            "failing: 32 anchors in 8,192 unique lines",
            failing(8192, 32),
            ExitOutcome::ExitedUnsuccessfully,
            5.0,
        ),
    ] {
        let projection = project_stream(&plane, text.as_bytes(), outcome, usize::MAX);
        let projected = projection.text.unwrap_or_default();
        let ratio = 100.0 * projected.len() as f64 / text.len() as f64;
        println!(
            "{:<44} {:>9} {:>8} {:>7.2}% {:>6}% {:>8}→{:<8} {:>8}→{:<8} {}",
            name,
            text.len(),
            projected.len(),
            ratio,
            target,
            cl100k(&text),
            cl100k(&projected),
            o200k(&text),
            o200k(&projected),
            if ratio <= target { "ok" } else { "MISS" },
        );
    }

    println!();
    println!(
        "throughput: project_stream, {THROUGHPUT_LINES} lines, {} workers, {ROUNDS} rounds (target p50 <= 50 ms)",
        plane.workers()
    );
    println!(
        "{:<44} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "input", "MiB", "out B", "p50 ms", "p90 ms", "min ms"
    );
    let mixed = mixed_log(THROUGHPUT_LINES);
    let unique = failing(THROUGHPUT_LINES, 512);
    let cases = [
        (
            "mixed build log, failed exit",
            &mixed,
            ExitOutcome::ExitedUnsuccessfully,
        ),
        ("mixed build log, success", &mixed, ExitOutcome::Succeeded),
        (
            "unique lines + 512 anchors, failed exit",
            &unique,
            ExitOutcome::ExitedUnsuccessfully,
        ),
        (
            "runs (1,024 x 128)",
            &runs(1024, 128),
            ExitOutcome::Succeeded,
        ),
        (
            "blocks (512 six-line blocks x 64)",
            &blocks(512, 64),
            ExitOutcome::Succeeded,
        ),
    ];
    for (name, text, outcome) in cases {
        let mut out = 0;
        let times = measure(|| {
            let p = project_stream(&plane, text.as_bytes(), outcome, THROUGHPUT_BUDGET);
            out = p.text.map_or(0, |t| t.len());
        });
        report(name, text.len(), out, &times);
    }

    println!();
    println!("stage breakdown on the unique-line failing log (p50 ms, stages fed their own input)");
    let normalized = normalize(&unique).into_owned();
    let after_lines = repeat_lines(&plane, &normalized).into_owned();
    let after_blocks = repeat_blocks(&plane, &after_lines).into_owned();
    let stage = |name: &str, times: Vec<Duration>| {
        println!("{:<44} {:>8.2}", name, ms(percentile(&times, 50)));
    };
    stage(
        "utf-8 check",
        measure(|| {
            black_box(std::str::from_utf8(black_box(unique.as_bytes())).is_ok());
        }),
    );
    stage(
        "normalize (CRLF)",
        measure(|| {
            black_box(normalize(&unique));
        }),
    );
    stage(
        "xN",
        measure(|| {
            black_box(repeat_lines(&plane, &normalized));
        }),
    );
    stage(
        "xN#K",
        measure(|| {
            black_box(repeat_blocks(&plane, &after_lines));
        }),
    );
    stage(
        "focus",
        measure(|| {
            black_box(failure_focus(&plane, &after_blocks));
        }),
    );
}

/// `runs` distinct ~48-byte lines, each repeated `each` times.
fn runs(runs: usize, each: usize) -> String {
    (0..runs)
        .map(|i| {
            format!(
                "   Compiling crate-{i:04} v1.{}.0 (/work/crates/{i:04})\n",
                i % 10
            )
            .repeat(each)
        })
        .collect()
}

/// `blocks` distinct six-line blocks, each repeated `each` times in a row.
fn blocks(blocks: usize, each: usize) -> String {
    (0..blocks)
        .map(|b| {
            let block: String = (0..6)
                .map(|j| {
                    format!(
                        "test suite_{b:04}::case_{j} ... ok ({} ms)\n",
                        (b * 7 + j) % 13
                    )
                })
                .collect();
            block.repeat(each)
        })
        .collect()
}

/// `lines` unique log lines of a failing run with `anchors` evenly spread error lines.
fn failing(lines: usize, anchors: usize) -> String {
    let every = lines / anchors;
    (0..lines)
        .map(|i| {
            if i % every == every / 2 {
                format!("error[E{:04}]: build failed at item {i}\n", i % 9973)
            } else {
                format!(
                    "[{i:06}] info: processed item {i} in {} ms\n",
                    (i * 37) % 1000
                )
            }
        })
        .collect()
}

/// A build-log-like mix: runs, repeated blocks, unique lines, CRLF lines and anchors.
fn mixed_log(lines: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut text = String::new();
    let mut count = 0;
    while count < lines {
        let n = match next(8) {
            0 | 1 => {
                let n = 1 + next(40);
                let line = format!("   Compiling crate-{} v0.{}.0\n", next(50), next(9));
                text.push_str(&line.repeat(n));
                n
            }
            2 => {
                let k = 2 + next(5);
                let n = 1 + next(20);
                let block: String = (0..k)
                    .map(|j| format!("  step {j} of job {}\n", next(30)))
                    .collect();
                text.push_str(&block.repeat(n));
                k * n
            }
            3 => {
                text.push_str(&format!("warning: unused variable `x{}`\r\n", next(1000)));
                1
            }
            4 if next(16) == 0 => {
                text.push_str(&format!("error[E0{}]: mismatched types\n", next(999)));
                1
            }
            _ => {
                let n = 1 + next(30);
                for _ in 0..n {
                    text.push_str(&format!(
                        "[{count:06}] test item_{} ... ok\n",
                        next(1 << 20)
                    ));
                }
                n
            }
        };
        count += n;
    }
    text
}

fn cl100k(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// Runs `work` twice to warm up, then `ROUNDS` timed times; returns sorted durations.
fn measure(mut work: impl FnMut()) -> Vec<Duration> {
    work();
    work();
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() - 1) * p / 100]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(name: &str, bytes: usize, out: usize, times: &[Duration]) {
    println!(
        "{:<44} {:>8.2} {:>8} {:>8.2} {:>8.2} {:>8.2}",
        name,
        bytes as f64 / (1024.0 * 1024.0),
        out,
        ms(percentile(times, 50)),
        ms(percentile(times, 90)),
        ms(times[0]),
    );
}
