//! Resume of a 1,000-turn session to a usable TUI (issue 44: ≤ 150 ms): the release binary in
//! a real pseudo-terminal opens a session of 1,000 turns — each a prompt, a tool call with its
//! row and an answer, made through the real runtime over JSONL — and the time is taken from
//! the spawn until the last turn's answer (replayed from the runtime's `story` page, with its
//! tool row) and the footer are drawn. The first run is reported apart (cold page cache).
//!
//! Run: `cargo bench -p ansa --bench resume`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::pty::{OpenptyResult, Winsize, openpty};

const TURNS: usize = 1000;
const RUNS: usize = 20;
/// Drawn once the live region is complete.
const FOOTER: &str = "Enter send";

fn main() {
    let exe_path =
        std::env::var("ANSA_BENCH_EXE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ansa").into());
    let exe = exe_path.as_str();
    let dir = tempfile::tempdir().unwrap();
    let (cwd, home, session) = (
        dir.path().join("ws"),
        dir.path().join("home"),
        dir.path().join("session"),
    );
    std::fs::create_dir_all(&cwd).unwrap();
    let made = Instant::now();
    let last = make_session(exe, &cwd, &home, &session);
    let journal: u64 = std::fs::read_dir(&session)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "made a {TURNS}-turn session ({:.1} MB in its directory) in {:.1} s",
        journal as f64 / 1e6,
        made.elapsed().as_secs_f64()
    );
    let answer = format!("The test value for {}", ansa::provider::offline_key(&last));
    let mut times = Vec::new();
    for _ in 0..=RUNS {
        let t = Instant::now();
        let mut pty = Pty::spawn(exe, &session, &home, &cwd);
        assert!(
            pty.until(
                &[&answer, "get_test_value", FOOTER],
                Duration::from_secs(20)
            ),
            "the last turn was not replayed: {}",
            String::from_utf8_lossy(&pty.screen)
        );
        times.push(t.elapsed());
        pty.stop();
    }
    let cold = times.remove(0);
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "resume of a {TURNS}-turn session to a usable TUI (120×40, last three exchanges replayed with their tool rows): \
         median {:.1} ms, p90 {:.1} ms, max {:.1} ms over {RUNS} runs (first, cold: {:.1} ms); target ≤ 150 ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
        ms(times[times.len() - 1]),
        ms(cold)
    );
}

/// Makes the session through the real runtime (offline provider: each turn calls
/// `get_test_value` and answers); returns the last prompt.
fn make_session(exe: &str, cwd: &Path, home: &Path, session: &Path) -> String {
    let mut jsonl = Command::new(exe)
        .args(["--offline-jsonl", "--session"])
        .arg(session)
        .current_dir(cwd)
        .env("ANSA_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(jsonl.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut out, &mut first).unwrap();
    let snap: serde_json::Value = serde_json::from_str(&first).unwrap();
    let incarnation = snap["incarnation"].as_str().unwrap().to_owned();
    let mut stdin = jsonl.stdin.take().unwrap();
    let mut last = String::new();
    for n in 0..TURNS {
        last = format!("turn number {n}: look up the value and explain it in a sentence or two");
        let line = serde_json::json!({"schema_version":1,"session":"offline","incarnation":incarnation,
            "turn":0,"command_id":format!("r-{n}"),"type":"submit","text":last});
        writeln!(stdin, "{line}").unwrap();
        // One at a time: the runtime's FIFO is bounded.
        let mut event = String::new();
        while !event.contains("\"type\":\"done\"") {
            event.clear();
            assert!(std::io::BufRead::read_line(&mut out, &mut event).unwrap() > 0);
        }
    }
    drop(stdin);
    let reader = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    assert!(jsonl.wait().unwrap().success());
    let _ = reader.join();
    last
}

struct Pty {
    master: std::fs::File,
    child: Child,
    screen: Vec<u8>,
}

impl Pty {
    fn spawn(exe: &str, session: &Path, home: &Path, cwd: &Path) -> Pty {
        let size = Winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let OpenptyResult { master, slave } = openpty(Some(&size), None).unwrap();
        let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
        let child = Command::new(exe)
            .args(["--offline", "--session"])
            .arg(session)
            .current_dir(cwd)
            .env("ANSA_HOME", home)
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1")
            .stdin(stdio(&slave))
            .stdout(stdio(&slave))
            .stderr(stdio(&slave))
            .spawn()
            .unwrap();
        drop(slave);
        let flags = nix::fcntl::fcntl(&master, nix::fcntl::FcntlArg::F_GETFL).unwrap();
        let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
        nix::fcntl::fcntl(&master, nix::fcntl::FcntlArg::F_SETFL(flags)).unwrap();
        Pty {
            master: std::fs::File::from(master),
            child,
            screen: Vec::new(),
        }
    }

    /// Reads until the output contains every marker, answering cursor-position queries.
    fn until(&mut self, markers: &[&str], limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut buf = [0u8; 65536];
        let mut answered = 0;
        loop {
            match self.master.read(&mut buf) {
                Ok(0) => return false,
                Ok(n) => self.screen.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_micros(100));
                }
                Err(_) => return false,
            }
            let queries = self.screen.windows(4).filter(|w| w == b"\x1b[6n").count();
            while answered < queries {
                let _ = self.master.write_all(b"\x1b[1;1R");
                answered += 1;
            }
            let text = String::from_utf8_lossy(&self.screen);
            if markers.iter().all(|m| text.contains(m)) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
        }
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
