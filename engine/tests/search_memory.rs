//! Search memory follows the request, not the tree: a search whose matching lines total 40 MB
//! (cut to what the answer holds, the complete result retained) stays far below them in peak
//! RSS, measured on the real `ash run` process with `wait4`, whether its lines are short or
//! long.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "common/memory.rs"]
mod memory;

#[test]
fn a_search_of_40_mb_of_matching_lines_peaks_far_below_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let line = format!(
        "{:<99}\n",
        "needle_marker and some filler text to make a line"
    );
    let body = line.repeat(10_000);
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), &body).expect("write");
    }
    let (answer, peak_kib) = memory::run_with_peak(
        env!("CARGO_BIN_EXE_ash"),
        dir.path(),
        "t:1\ni:1\no:g\na{q,p,f}:\nneedle_marker,[.],0\nu{tok,rec,ms}:\n65536,100000,600000\n",
    );
    assert!(
        answer.contains("\ns:0\n") && answer.contains("z:11\nr:@1\n"),
        "{answer}"
    );
    let peak_mib = peak_kib / 1024;
    assert!(peak_mib < 64, "ash run peaked at {peak_mib} MiB");
}

#[test]
fn a_search_of_long_matching_lines_in_large_files_peaks_far_below_them() {
    // Three 20 MB files of 2,000-byte lines, every one matching: each file's matches are more
    // than a chunk may hold, and its mapped pages as many. (Before files past that were
    // handed on in parts: 118 MiB, as 400 MB of such lines in 20 files peaked at 144 MiB.)
    let dir = tempfile::tempdir().expect("temp dir");
    let line = format!(
        "{:<1999}\n",
        "needle_marker and some filler text to make a line"
    );
    let body = line.repeat(10_000);
    for i in 0..3 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), &body).expect("write");
    }
    let (answer, peak_kib) = memory::run_with_peak(
        env!("CARGO_BIN_EXE_ash"),
        dir.path(),
        "t:1\ni:1\no:g\na{q,p,f}:\nneedle_marker,[.],0\nu{tok,rec,ms}:\n65536,100000,600000\n",
    );
    assert!(
        answer.contains("\ns:0\n") && answer.contains("z:11\nr:@1\n"),
        "{answer}"
    );
    // The answer shows the first lines of the first file, whole, in line order.
    let shown: Vec<&str> = answer
        .lines()
        .skip_while(|l| !l.starts_with("d["))
        .skip(1)
        .take_while(|l| l.starts_with("1,"))
        .collect();
    assert!(shown.len() > 100, "{answer}");
    for (at, row) in shown.iter().enumerate() {
        let whole = format!("1,{},1,\"{}\"", at + 1, line.trim_end_matches('\n'));
        assert_eq!(*row, whole);
    }
    let peak_mib = peak_kib / 1024;
    assert!(peak_mib < 64, "ash run peaked at {peak_mib} MiB");
}
