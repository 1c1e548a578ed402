//! Peak memory of the release `ash` binary where input could make it grow without bound:
//!
//! - search over 400 MB of matching lines (4,000,000 lines: past the 1,000,000-match ceiling,
//!   answered `601`), and over 90 MB (900,000 lines: cut to what L holds, the complete result
//!   retained), each with `tok 65536`, `rec 100000`, by `ash run`; peak RSS from `wait4`;
//! - the same search over long lines: 400 MB of matching 2,000-byte lines in 20 files of
//!   20 MB (200,000 lines, whose evidence is past the store's 256 MiB quota: answered `601`),
//!   and 200 MB of them in 10 files (cut, the complete result retained);
//! - `ash rpc` sent 2,000,000 cancels by a client that never reads an answer; peak RSS
//!   (`VmHWM`) once the client's writes stall or all are sent.
//!
//! Run: `cargo bench -p ash-engine --bench memory` (writes up to 400 MB at a time under the temp
//! dir).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "../tests/common/memory.rs"]
mod memory;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const ASH: &str = env!("CARGO_BIN_EXE_ash");

/// Writes `files` files of `lines` matching lines of `width` bytes each.
fn tree(dir: &Path, files: usize, lines: usize, width: usize) {
    let line = format!(
        "{:<w$}\n",
        "needle_marker and some filler text to make a line",
        w = width - 1
    );
    let body = line.repeat(lines);
    for i in 0..files {
        std::fs::write(dir.join(format!("f{i:04}.txt")), &body).expect("write");
    }
}

/// `s`, `z`, `r` and the error cells of an answer, for the report.
fn summary(answer: &str) -> String {
    let status = answer
        .lines()
        .filter(|l| l.starts_with("s:") || l.starts_with("z:") || l.starts_with("r:"))
        .collect::<Vec<_>>()
        .join(" ");
    let error = answer
        .lines()
        .skip_while(|l| !l.starts_with("e{"))
        .nth(1)
        .unwrap_or("");
    format!("{status} {error}")
}

fn search(dir: &Path, what: &str) {
    let request =
        "t:1\ni:1\no:g\na{q,p,f}:\nneedle_marker,[.],0\nu{tok,rec,ms}:\n65536,100000,600000\n";
    let started = Instant::now();
    let (answer, peak) = memory::run_with_peak(ASH, dir, request);
    println!(
        "search {what}: peak RSS {:.1} MiB, {:.2} s, answer {}",
        peak as f64 / 1024.0,
        started.elapsed().as_secs_f64(),
        summary(&answer)
    );
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
    let sent = memory::flood_cancels(stdin, total);
    let peak = memory::status_kib(child.id(), "VmHWM");
    let _ = child.kill();
    let _ = child.wait();
    println!(
        "ash rpc, {total} cancels never read: peak RSS {:.1} MiB, {} cancels written before the server stopped reading",
        peak as f64 / 1024.0,
        sent
    );
}

fn main() {
    let big = tempfile::tempdir().expect("temp dir");
    tree(big.path(), 100, 40_000, 100);
    search(big.path(), "400 MB, 4,000,000 matching lines");
    drop(big);
    let cut = tempfile::tempdir().expect("temp dir");
    tree(cut.path(), 90, 10_000, 100);
    search(cut.path(), "90 MB, 900,000 matching lines");
    drop(cut);
    let long = tempfile::tempdir().expect("temp dir");
    tree(long.path(), 20, 10_000, 2_000);
    search(
        long.path(),
        "400 MB, 200,000 matching lines of 2,000 B in 20 files",
    );
    drop(long);
    let long_cut = tempfile::tempdir().expect("temp dir");
    tree(long_cut.path(), 10, 10_000, 2_000);
    search(
        long_cut.path(),
        "200 MB, 100,000 matching lines of 2,000 B in 10 files",
    );
    drop(long_cut);
    let empty = tempfile::tempdir().expect("temp dir");
    unread_cancels(empty.path(), 2_000_000);
}
