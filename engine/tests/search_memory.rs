//! Search memory follows the request, not the tree: a search whose matching lines total 40 MB
//! (cut to what the answer holds, the complete result retained) stays far below them in peak
//! RSS, measured on the real `ash run` process with `wait4`.
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
