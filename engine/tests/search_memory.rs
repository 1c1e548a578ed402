//! Search memory follows the request, not the tree: a search whose matching lines total 40 MB
//! (cut to what the answer holds, the complete result retained) stays far below them in peak
//! RSS, measured on the real `ash run` process with `wait4`.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
#[expect(
    clippy::zombie_processes,
    reason = "reaped with wait4, which also gives its rusage"
)]
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_ash"))
        .arg("run")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ash run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(
            b"t:1\ni:1\no:g\na{q,p,f}:\nneedle_marker,[.],0\nu{tok,rec,ms}:\n65536,100000,600000\n",
        )
        .expect("write request");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).expect("read answer");
        out
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped; both out-pointers are valid.
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let answer = reader.join().expect("reader");
    assert!(
        answer.contains("\ns:0\n") && answer.contains("z:11\nr:@1\n"),
        "{answer}"
    );
    let peak_mib = usage.ru_maxrss / 1024;
    assert!(peak_mib < 64, "ash run peaked at {peak_mib} MiB");
}
