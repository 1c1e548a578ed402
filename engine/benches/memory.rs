//! Peak memory of the release `ash` binary where input could make it grow without bound:
//!
//! - search over 400 MB of matching lines (4,000,000 lines: past the 1,000,000-match ceiling,
//!   answered `601`), and over 90 MB (900,000 lines: cut to what L holds, the complete result
//!   retained), each with `tok 65536`, `rec 100000`, by `ash run`; peak RSS from `wait4`;
//! - `ash rpc` sent 2,000,000 cancels by a client that never reads an answer; peak RSS
//!   (`VmHWM`) once the client's writes stall or all are sent.
//!
//! Run: `cargo bench -p ash-engine --bench memory` (writes ~500 MB under the temp dir).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const ASH: &str = env!("CARGO_BIN_EXE_ash");

/// Writes `files` files of `lines` matching lines of 100 bytes each.
fn tree(dir: &Path, files: usize, lines: usize) {
    let line = format!(
        "{:<99}\n",
        "needle_marker and some filler text to make a line"
    );
    let body = line.repeat(lines);
    for i in 0..files {
        std::fs::write(dir.join(format!("f{i:04}.txt")), &body).expect("write");
    }
}

/// Runs `ash run` with `request` in `cwd`; (first line of the answer, peak RSS in KiB).
#[expect(
    clippy::zombie_processes,
    reason = "reaped with wait4, which also gives its rusage"
)]
fn run_peak(cwd: &Path, request: &str) -> (String, i64) {
    let mut child = Command::new(ASH)
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
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4");
    let answer = reader.join().expect("reader");
    let status_line = answer
        .lines()
        .filter(|l| l.starts_with("s:") || l.starts_with("z:") || l.starts_with("r:"))
        .collect::<Vec<_>>()
        .join(" ");
    let errors = answer
        .lines()
        .skip_while(|l| !l.starts_with("e{"))
        .nth(1)
        .unwrap_or("")
        .to_owned();
    (format!("{status_line} {errors}"), usage.ru_maxrss)
}

fn search(dir: &Path, what: &str) {
    let request =
        "t:1\ni:1\no:g\na{q,p,f}:\nneedle_marker,[.],0\nu{tok,rec,ms}:\n65536,100000,600000\n";
    let started = Instant::now();
    let (answer, peak) = run_peak(dir, request);
    println!(
        "search {what}: peak RSS {:.1} MiB, {:.2} s, answer {answer}",
        peak as f64 / 1024.0,
        started.elapsed().as_secs_f64()
    );
}

fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

fn frame(payload: &str) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(payload.as_bytes());
    out
}

fn unread_cancels(dir: &Path, total: usize) {
    let mut child = Command::new(ASH)
        .arg("rpc")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ash rpc");
    let mut stdin = child.stdin.take().expect("stdin");
    let handshake = "t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,.,nonce-7\n";
    stdin.write_all(&frame(handshake)).expect("handshake");
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    std::thread::spawn(move || {
        let mut batch = Vec::new();
        for i in 0..total {
            let cancel = format!(
                "t:1\ni:{}\no:k\na{{i}}:\n999999999\nu{{tok,rec,ms}}:\n64,1,30000\n",
                i + 1
            );
            batch.extend_from_slice(&frame(&cancel));
            if batch.len() >= 64 * 1024 {
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
            break;
        }
        last = now;
    }
    let peak = vm_hwm_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    println!(
        "ash rpc, {total} cancels never read: peak RSS {:.1} MiB, {} cancels written before the server stopped reading",
        peak as f64 / 1024.0,
        sent.load(Ordering::Relaxed)
    );
}

fn main() {
    let big = tempfile::tempdir().expect("temp dir");
    tree(big.path(), 100, 40_000);
    search(big.path(), "400 MB, 4,000,000 matching lines");
    drop(big);
    let cut = tempfile::tempdir().expect("temp dir");
    tree(cut.path(), 90, 10_000);
    search(cut.path(), "90 MB, 900,000 matching lines");
    drop(cut);
    let empty = tempfile::tempdir().expect("temp dir");
    unread_cancels(empty.path(), 2_000_000);
}
