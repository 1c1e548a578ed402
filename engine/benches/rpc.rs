//! `ash rpc` transport benchmark over pipes: warm round trips (a cancel of an unknown id, a
//! 64-byte read) and 10,000-frame pipelined bursts (reads, then cancels of unknown ids) written
//! by a separate thread without reading.
//!
//! Run: `cargo bench -p ash-engine --bench rpc` (drives the release `ash` binary Cargo builds
//! for the bench profile).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const CANCEL_WARMUP: u64 = 200;
const CANCEL_ROUNDS: u64 = 3_000;
/// Reads per fresh session: a 64-byte read answer is ~170 bytes, so a session's 64 KiB output
/// ceiling (docs/contract/ash-protocol.md §5, charged with every successful answer) lasts a few hundred reads.
const READS_PER_SESSION: u64 = 300;
const READ_WARMUP: u64 = 20;
const READ_SESSIONS: u64 = 12;
const BURST: u64 = 10_000;

fn frame(payload: &str) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(payload.as_bytes());
    out
}

/// The default handshake: 1 MiB frames, 64 KiB output, every op and capability, root `.`.
const HANDSHAKE: &str = "t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,.,nonce-7\n";

/// A cancel of an id that was never sent (capability-free, costs no output).
fn cancel(id: u64) -> String {
    format!(
        "t:1\ni:{id}\no:k\na{{i}}:\n{}\nu{{tok,rec,ms}}:\n64,1,30000\n",
        id + 1_000_000
    )
}

/// A 64-byte byte-mode read of `a.txt`.
fn read(id: u64) -> String {
    format!("t:1\ni:{id}\no:r\na{{p,m,o,n}}:\n[a.txt],0,0,64\nu{{tok,rec,ms}}:\n1000,16,30000\n")
}

struct Rpc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Rpc {
    fn open(ws: &Path) -> Rpc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ash"))
            .arg("rpc")
            .current_dir(ws)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn ash rpc");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut rpc = Rpc {
            child,
            stdin,
            stdout,
        };
        rpc.send(&frame(HANDSHAKE));
        let hello = rpc.recv();
        assert!(hello.starts_with("t:0\ni:7\ns:0\n"), "{hello}");
        rpc
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write frame");
    }

    fn recv(&mut self) -> String {
        let mut len = [0u8; 4];
        self.stdout.read_exact(&mut len).expect("answer prefix");
        let mut payload = vec![0u8; u32::from_be_bytes(len) as usize];
        self.stdout
            .read_exact(&mut payload)
            .expect("answer payload");
        String::from_utf8(payload).expect("answers are UTF-8")
    }

    /// One write-frame → read-answer round trip; returns the elapsed time and the answer.
    fn round_trip(&mut self, framed: &[u8]) -> (Duration, String) {
        let start = Instant::now();
        self.send(framed);
        let answer = self.recv();
        (start.elapsed(), answer)
    }

    fn close(mut self) {
        self.stdin = None;
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        let status = self.child.wait().expect("wait for ash rpc");
        assert!(status.success(), "ash rpc exited with {status}");
        assert!(rest.is_empty(), "unexpected trailing answers");
    }
}

/// `0` for success, otherwise the error code (`600`, `602`, …) or `s<N>` without one.
fn outcome(answer: &str) -> String {
    let status = answer
        .lines()
        .find_map(|l| l.strip_prefix("s:"))
        .expect("answer has a status");
    if status == "0" {
        return "s:0".to_owned();
    }
    let mut lines = answer.lines();
    match lines.find(|l| l.starts_with("e{")).and(lines.next()) {
        Some(err) => err.split(',').next().unwrap_or(err).to_owned(),
        None => format!("s:{status}"),
    }
}

fn id_of(answer: &str) -> u64 {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("i:"))
        .and_then(|v| v.parse().ok())
        .expect("answer has an id")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

struct Burst {
    rate: f64,
    elapsed: Duration,
    outcomes: BTreeMap<String, u64>,
}

/// Writes `BURST` framed requests from a separate thread without reading, and reads every
/// answer on this one; timed from the first write to the last answer.
fn burst(ws: &Path, make: fn(u64) -> String) -> Burst {
    let mut rpc = Rpc::open(ws);
    let bytes: Vec<u8> = (1..=BURST).flat_map(|i| frame(&make(i))).collect();
    let mut stdin = rpc.stdin.take().expect("stdin");
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&bytes).expect("write burst");
        drop(stdin);
    });
    let mut outcomes = BTreeMap::new();
    for i in 1..=BURST {
        let answer = rpc.recv();
        assert_eq!(id_of(&answer), i, "answers come back in input order");
        *outcomes.entry(outcome(&answer)).or_insert(0) += 1;
    }
    let elapsed = start.elapsed();
    writer.join().expect("writer thread");
    rpc.close();
    Burst {
        rate: BURST as f64 / elapsed.as_secs_f64(),
        elapsed,
        outcomes,
    }
}

fn describe(outcomes: &BTreeMap<String, u64>) -> String {
    outcomes
        .iter()
        .map(|(k, v)| format!("{v} × {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() {
    let dir = tempfile::tempdir().expect("temp workspace");
    let ws = dir.path();
    std::fs::write(ws.join("a.txt"), "x".repeat(64)).expect("write a.txt");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());

    // (a) cancel of an unknown id, one warm session.
    let mut rpc = Rpc::open(ws);
    let mut cancels = Vec::new();
    for i in 1..=CANCEL_WARMUP + CANCEL_ROUNDS {
        let (t, answer) = rpc.round_trip(&frame(&cancel(i)));
        assert_eq!(outcome(&answer), "s:0", "{answer}");
        if i > CANCEL_WARMUP {
            cancels.push(t);
        }
    }
    rpc.close();
    cancels.sort();

    // (b) 64-byte reads, a fresh session every READS_PER_SESSION reads so the output ceiling
    // is never reached; every measured answer must be a success.
    let mut reads = Vec::new();
    for _ in 0..READ_SESSIONS {
        let mut rpc = Rpc::open(ws);
        for i in 1..=READS_PER_SESSION {
            let (t, answer) = rpc.round_trip(&frame(&read(i)));
            assert_eq!(outcome(&answer), "s:0", "read {i}: {answer}");
            if i > READ_WARMUP {
                reads.push(t);
            }
        }
        rpc.close();
    }
    reads.sort();

    // (c) pipelined bursts.
    let burst_reads = burst(ws, read);
    let burst_cancels = burst(ws, cancel);
    assert_eq!(
        burst_cancels.outcomes.get("s:0"),
        Some(&BURST),
        "every pipelined cancel succeeds"
    );

    println!("ash rpc over pipes ({cores} cores, release `ash`)");
    println!();
    println!("| case | samples | p50 ms | p95 ms | target |");
    println!("|---|---|---|---|---|");
    for (name, samples) in [
        ("cancel of an unknown id", &cancels),
        ("64-byte read (all `s:0`)", &reads),
    ] {
        let (p50, p95) = (percentile(samples, 50), percentile(samples, 95));
        let ok = ms(p50) <= 0.15 && ms(p95) <= 0.3;
        println!(
            "| {name} | {} | {:.3} | {:.3} | ≤ 0.15 / ≤ 0.3 {} |",
            samples.len(),
            ms(p50),
            ms(p95),
            if ok { "✔" } else { "✘" }
        );
    }
    println!();
    println!("| burst ({BURST} pipelined) | elapsed ms | req/s | answers | target |");
    println!("|---|---|---|---|---|");
    for (name, b) in [
        ("64-byte reads, one session", &burst_reads),
        ("cancels of unknown ids", &burst_cancels),
    ] {
        println!(
            "| {name} | {:.1} | {:.0} | {} | ≥ 20,000 {} |",
            ms(b.elapsed),
            b.rate,
            describe(&b.outcomes),
            if b.rate >= 20_000.0 { "✔" } else { "✘" }
        );
    }
}
