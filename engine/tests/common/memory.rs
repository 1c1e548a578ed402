//! Memory of a real `ash` child process: its peak RSS, and a client that floods `ash rpc` with
//! cancels without ever reading an answer. Shared by the memory tests and the memory bench.

// Every includer uses only part of it.
#![allow(dead_code)]
#![allow(
    unsafe_code,
    reason = "wait4 fills a rusage of the child: its peak RSS"
)]

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Runs `ash run` (the binary at `ash`) with `request` in `cwd` and reaps it with `wait4`:
/// (its answer, its peak RSS in KiB).
#[expect(
    clippy::zombie_processes,
    reason = "reaped with wait4, which also gives its rusage"
)]
pub fn run_with_peak(ash: &str, cwd: &Path, request: &str) -> (String, u64) {
    let mut child = Command::new(ash)
        .arg("run")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ash run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.as_bytes())
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
    (answer, u64::try_from(usage.ru_maxrss).unwrap_or(0))
}

/// A `/proc/<pid>/status` field in KiB (`VmRSS`, `VmHWM`).
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// Writes `total` framed cancels of an unknown id to `stdin` from a thread, never reading an
/// answer, and returns once the writes stall (the server stopped reading) or all are written:
/// the number written.
pub fn flood_cancels(mut stdin: ChildStdin, total: usize) -> usize {
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    std::thread::spawn(move || {
        let mut batch = Vec::new();
        for i in 0..total {
            let cancel = format!(
                "t:1\ni:{}\no:k\na{{i}}:\n999999999\nu{{tok,rec,ms}}:\n64,1,30000\n",
                i + 1
            );
            batch.extend_from_slice(&(cancel.len() as u32).to_be_bytes());
            batch.extend_from_slice(cancel.as_bytes());
            if batch.len() >= 32 * 1024 {
                if stdin.write_all(&batch).is_err() {
                    return;
                }
                batch.clear();
                counter.store(i + 1, Ordering::Relaxed);
            }
        }
        let _ = stdin.write_all(&batch);
        counter.store(total, Ordering::Relaxed);
    });
    let mut last = usize::MAX;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = sent.load(Ordering::Relaxed);
        if now == last || now == total {
            return now;
        }
        last = now;
    }
}
