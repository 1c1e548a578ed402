//! Benchmarks of the Carbon TUI text path: a 10,000-line Markdown answer (paragraphs, lists,
//! code) rendered at width 100, word wrap alone of 10,000 lines at width 100, and sanitize (`flowing`)
//! throughput on clean and hostile text. Prints the p50 (and min) of several runs.
//!
//! Run: `cargo bench -p ansa-ui --bench render`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use ansa_ui::sanitize::flowing;
use ansa_ui::tui::Theme;
use ansa_ui::tui::bench::BenchFrame;
use ansa_ui::tui::markdown::render_markdown;
use ansa_ui::tui::tail::render_preview;
use ansa_ui::tui::wrap::wrap_plain;
use ratatui::style::Style;

const LINES: usize = 10_000;
const WIDTH: u16 = 100;
const RUNS: usize = 21;

fn main() {
    streamed_frames();
    tool_rows_frame();
    children_frames(false);
    children_frames(true);
    streamed_table();
    resize_with_history();
    let answer = markdown_answer(LINES);
    let plain = plain_text(LINES);
    println!(
        "input: markdown {} lines / {:.2} MB, plain {} lines / {:.2} MB, width {WIDTH}",
        answer.lines().count(),
        mb(answer.len()),
        plain.lines().count(),
        mb(plain.len())
    );

    let mut out_lines = 0;
    let md = measure(|| {
        let lines = render_markdown(black_box(&answer), WIDTH, Theme { plain: false });
        out_lines = lines.len();
        black_box(lines);
    });
    report("render_markdown (10,000 lines)", md, LINES, out_lines);

    let wrap = measure(|| {
        let lines = wrap_plain(black_box(&plain), Style::default(), WIDTH);
        out_lines = lines.len();
        black_box(lines);
    });
    report("wrap_plain (10,000 lines)", wrap, LINES, out_lines);

    let clean = measure(|| {
        black_box(flowing(black_box(&answer)));
    });
    throughput("sanitize clean (borrowed)", clean, answer.len());

    let hostile = hostile_text(answer.len());
    let dirty = measure(|| {
        black_box(flowing(black_box(&hostile)));
    });
    throughput("sanitize hostile (rewritten)", dirty, hostile.len());
}

/// The p50 and min of `RUNS` runs after one warm-up.
fn measure(mut run: impl FnMut()) -> (Duration, Duration) {
    run();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[RUNS / 2], times[0])
}

fn report(name: &str, (p50, min): (Duration, Duration), lines: usize, out: usize) {
    let per_k = p50.as_secs_f64() * 1e3 / (lines as f64 / 1000.0);
    println!(
        "{name:<32} p50 {:>7.3} ms  min {:>7.3} ms  {per_k:.3} ms per 1,000 lines  ({out} lines out)",
        ms(p50),
        ms(min)
    );
}

fn throughput(name: &str, (p50, min): (Duration, Duration), bytes: usize) {
    println!(
        "{name:<32} p50 {:>7.3} ms  min {:>7.3} ms  {:.0} MB/s",
        ms(p50),
        ms(min),
        mb(bytes) / p50.as_secs_f64()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// A model answer of `lines` lines cycling through headings, paragraphs with emphasis, code
/// and links, lists, nested lists and fenced code.
fn markdown_answer(lines: usize) -> String {
    const BLOCK: &[&str] = &[
        "## Section heading",
        "",
        "The function **parses** the input with a *streaming* reader and returns `Result<T, E>` so",
        "that callers can decide what to do with errors; see [the docs](https://example.com/docs)",
        "for the details of the format, including edge cases such as empty lines and CRLF endings.",
        "",
        "- first item with a short note",
        "- second item that is long enough to wrap past the right edge of a hundred-column terminal",
        "  - nested item with `inline code` and ~~an old name~~",
        "  - another nested item",
        "1. step one",
        "2. step two, which explains something at length so that the wrapping has work to do here",
        "",
        "```rust",
        "fn main() {",
        "    let answer = compute(42).expect(\"the answer\"); // 漢字 and émoji 🦀 in a comment",
        "    println!(\"{answer}\");",
        "}",
        "```",
        "",
    ];
    let mut out = String::new();
    for i in 0..lines {
        out.push_str(BLOCK[i % BLOCK.len()]);
        out.push('\n');
    }
    out
}

/// `lines` lines of prose, some longer than the width.
fn plain_text(lines: usize) -> String {
    const LINE: &[&str] = &[
        "A plain line of prose that fits.",
        "A longer line of prose that goes on and on, well past the hundred columns of a terminal window, and wraps twice maybe.",
        "",
        "Mixed widths: 漢字 and emoji 🦀 and combining e\u{301} marks in one line of text here.",
    ];
    let mut out = String::new();
    for i in 0..lines {
        out.push_str(LINE[i % LINE.len()]);
        out.push('\n');
    }
    out
}

/// Text of about `len` bytes with an escape sequence or control every few words.
fn hostile_text(len: usize) -> String {
    const PIECES: &[&str] = &[
        "plain words here ",
        "\x1b[1;31mred\x1b[0m ",
        "\x1b]8;;https://x\x07link\x1b]8;;\x07 ",
        "bidi\u{202e}txet\u{202c} ",
        "cr\r\n",
        "\u{9b}2J ",
    ];
    let mut out = String::with_capacity(len + 64);
    let mut i = 0;
    while out.len() < len {
        out.push_str(PIECES[i % PIECES.len()]);
        i += 1;
    }
    out
}

/// A 10,000-line answer streamed 10 lines at a time: each frame renders the preview as the
/// live region does (the tail, at most 256 rows). Reports per-frame times over all frames.
fn streamed_frames() {
    let answer = markdown_answer(LINES);
    let cuts: Vec<usize> = answer
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .step_by(10)
        .collect();
    let mut frames = Vec::with_capacity(cuts.len());
    for cut in cuts {
        let t = Instant::now();
        black_box(render_preview(
            black_box(&answer[..cut]),
            WIDTH,
            Theme { plain: false },
            256,
        ));
        frames.push(t.elapsed());
    }
    frames.sort();
    let at = |q: f64| frames[((frames.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    println!(
        "streamed 10,000-line answer, one frame per 10 lines ({} frames): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        frames.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

/// A whole repaint of a running turn's live region: ten finished tool rows (each with three
/// output lines and a two-line diff) scrolled out above, one running row and a 200-line
/// preview, at 120×40.
fn tool_rows_frame() {
    let mut state = BenchFrame::new(120, 40, 0);
    state.running_with_tools(10, 200);
    state.frame();
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        state.repaint();
        let t = Instant::now();
        black_box(state.frame());
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "frame, ten tool rows + a 200-line preview, full repaint (120×40, 200 frames): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100]),
        ms(times[times.len() - 1])
    );
}

/// Three orchestrate children streaming (issue 48: ≤ 4 ms per frame): each frame one child's
/// event arrives (a tool call starting, with its status row's new count, or finishing) and
/// the live region is drawn, at 120×40; with `viewer`, Ctrl+O shows a child's transcript,
/// which follows its events.
fn children_frames(viewer: bool) {
    let mut state = BenchFrame::new(120, 40, 0);
    state.delegating(3);
    if viewer {
        state.toggle_viewer();
    }
    state.frame();
    let mut times = Vec::with_capacity(600);
    for step in 0..200u32 {
        for index in 1..=3 {
            let t = Instant::now();
            state.child_streams(index, step);
            black_box(state.frame());
            times.push(t.elapsed());
        }
    }
    times.sort();
    println!(
        "three children streaming{} (120×40, {} frames, one child event each): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        if viewer { ", Ctrl+O on a child" } else { "" },
        times.len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100]),
        ms(times[times.len() - 1])
    );
}

/// Resizes between 100 and 60 columns with the history pane open on a 1,000-exchange
/// session: the reflow is the pane's entries re-rendered at the new width and the live
/// region repainted.
fn resize_with_history() {
    let mut state = BenchFrame::new(100, 40, 1000);
    state.history_open(1000, 8);
    state.frame();
    let loaded = state.history_entries();
    assert!(loaded >= 32, "the pane holds {loaded} entries");
    let mut times = Vec::with_capacity(100);
    for n in 0..100 {
        let width = if n % 2 == 0 { 60 } else { 100 };
        let t = Instant::now();
        state.resize(width, 40);
        black_box(state.frame());
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "resize reflow, history pane open on a 1,000-exchange session ({loaded} entries loaded; 100↔60 columns, 100 resizes): p50 {:.3} ms, max {:.3} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}

/// A 200-row table streamed as a provider sends it, in chunks of about one cell (50 chunks a
/// second is one chunk per frame at the TUI's frame rate), at 100×32: each frame is the event
/// (finding finished blocks) and the real inline terminal drawing the live region.
fn streamed_table() {
    let mut text =
        String::from("The settings:\n\n| setting | value | what it does |\n|---|---:|---|\n");
    for k in 1..=200 {
        text.push_str(&format!(
            "| option_{k:03} | {} | sets knob {k} when the server starts |\n",
            8000 + k
        ));
    }
    text.push_str("\nAfter the table.\n");
    let ends: Vec<usize> = text
        .match_indices(" | ")
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let mut state = BenchFrame::new(100, 32, 0);
    state.submit();
    state.frame();
    let mut times = Vec::with_capacity(ends.len());
    for end in &ends {
        let t = Instant::now();
        state.stream_preview(&text[..*end]);
        black_box(state.frame());
        times.push(t.elapsed());
    }
    times.sort();
    let at = |q: f64| ms(times[((times.len() - 1) as f64 * q) as usize]);
    println!(
        "200-row table streamed in {} chunks, one frame each (100×32): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
