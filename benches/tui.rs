//! Carbon TUI benchmarks (issue 9 targets), against the release binary in a real pseudo-terminal:
//! - start to first frame (process spawn until the footer is drawn) — ≤ 30 ms; and the same
//!   for a live session on a signed-in account (issue 15: unchanged, ≤ 10 ms; no network);
//! - steady memory with 1,000 exchanges in the session's history — ≤ 40 MB;
//! - issue 45: what three configured MCP servers (stdio, the npm reference servers found
//!   through `ANSA_MCP_MODULES`, as `cargo xtask test` installs them) add to the first frame
//!   (≤ 5 ms: they start in the background) and to ansa's peak RSS once all three are
//!   connected (≤ 20 MiB).
//!
//! The harness answers the terminal's cursor-position queries (`ESC [ 6 n`) like a terminal
//! would. Run: `cargo bench -p ansa --bench tui`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::pty::{OpenptyResult, Winsize, openpty};

#[path = "support/signed_in.rs"]
mod signed_in;

/// Text of the footer: drawn once the first frame is complete.
const FOOTER: &str = "Enter send";
const RUNS: usize = 30;

fn main() {
    // `ANSA_BENCH_EXE` measures another build (an A/B against an older commit).
    let exe_path =
        std::env::var("ANSA_BENCH_EXE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ansa").into());
    let exe = exe_path.as_str();
    let dir = tempfile::tempdir().unwrap();
    first_frames(
        exe,
        dir.path(),
        &[Start::Offline, Start::ApiKey, Start::SignedIn],
    );
    memory(exe, dir.path());
    match std::env::var_os("ANSA_MCP_MODULES").filter(|m| !m.is_empty()) {
        Some(modules) => {
            let modules = Path::new(&modules);
            first_frames(
                exe,
                dir.path(),
                &[Start::Offline, Start::OfflineMcp(modules)],
            );
            mcp_memory(exe, dir.path(), None);
            mcp_memory(exe, dir.path(), Some(modules));
        }
        None => println!(
            "MCP cases not measured: ANSA_MCP_MODULES is not set (`cargo xtask test` installs \
             the packages; or `npm install --prefix DIR node@22 @modelcontextprotocol/server-everything \
             @modelcontextprotocol/server-filesystem` and ANSA_MCP_MODULES=DIR/node_modules)"
        ),
    }
}

struct Pty {
    master: std::fs::File,
    child: Child,
    screen: Vec<u8>,
}

impl Pty {
    fn spawn(exe: &str, args: &[&str], home: &Path, cwd: &Path) -> Pty {
        Pty::spawn_with(exe, args, home, cwd, &[])
    }

    fn spawn_with(exe: &str, args: &[&str], home: &Path, cwd: &Path, env: &[(&str, &str)]) -> Pty {
        let size = Winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let OpenptyResult { master, slave } = openpty(Some(&size), None).unwrap();
        let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
        let child = Command::new(exe)
            .args(args)
            .current_dir(cwd)
            .env("ANSA_HOME", home)
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("AI_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .envs(env.iter().copied())
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

    /// Reads until the output contains `marker`, answering cursor-position queries.
    fn until(&mut self, marker: &str, limit: Duration) -> bool {
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
            if String::from_utf8_lossy(&self.screen).contains(marker) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
    }

    fn rss_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How the measured session starts.
#[derive(Clone, Copy)]
enum Start<'a> {
    /// `--offline`, a fresh home.
    Offline,
    /// Live (Responses) with an API key, for comparison; the endpoint is never contacted.
    ApiKey,
    /// Live (Responses, no API key) on a signed-in store; the endpoint is never contacted.
    SignedIn,
    /// `--offline`, a home whose config has three stdio MCP servers (from these modules).
    OfflineMcp(&'a Path),
}

/// A user config with three stdio MCP servers: server-everything twice and server-filesystem.
fn three_servers(home: &Path, modules: &Path, served: &Path) {
    let node = modules.join("node/bin/node");
    let everything = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let filesystem = modules.join("@modelcontextprotocol/server-filesystem/dist/index.js");
    for path in [&node, &everything, &filesystem] {
        assert!(
            path.exists(),
            "{} is missing under ANSA_MCP_MODULES",
            path.display()
        );
    }
    let config = serde_json::json!({"mcp_servers": {
        "everything": {"command": node, "args": [everything, "stdio"]},
        "again": {"command": node, "args": [everything, "stdio"]},
        "files": {"command": node, "args": [filesystem, served]},
    }});
    std::fs::create_dir_all(home).unwrap();
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
}

/// The label, arguments and environment of a start.
fn how(
    start: Start<'_>,
) -> (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
) {
    match start {
        Start::Offline => ("offline, fresh home", &["--offline"], &[]),
        Start::ApiKey => (
            "live with an API key",
            &[],
            &[
                ("AI_PROVIDER", "responses"),
                ("AI_ENDPOINT", "https://127.0.0.1:9/v1"),
                ("AI_MODEL", "gpt-5.5"),
                ("AI_API_KEY", "sk-bench-not-a-key"),
            ],
        ),
        Start::OfflineMcp(_) => ("offline, three MCP servers", &["--offline"], &[]),
        Start::SignedIn => (
            "live on a sign-in",
            &[],
            &[
                ("AI_PROVIDER", "responses"),
                // Nothing listens there: opening the TUI must not need the network.
                ("AI_ENDPOINT", "https://127.0.0.1:9/v1"),
                ("AI_MODEL", "gpt-5.5"),
            ],
        ),
    }
}

/// One start to its first frame, in a fresh home.
fn one_frame(exe: &str, root: &Path, start: Start<'_>, run: usize) -> Duration {
    let cwd = root.join("ws-frame");
    std::fs::create_dir_all(&cwd).unwrap();
    let (label, args, env) = how(start);
    let home = root.join(format!("home-frame-{label}-{run}"));
    match start {
        Start::SignedIn => signed_in::signed_in_home(&home),
        Start::OfflineMcp(modules) => three_servers(&home, modules, &cwd),
        Start::Offline | Start::ApiKey => {}
    }
    let t = Instant::now();
    let mut pty = Pty::spawn_with(exe, args, &home, &cwd, env);
    assert!(
        pty.until(FOOTER, Duration::from_secs(10)),
        "no first frame: {}",
        String::from_utf8_lossy(&pty.screen)
    );
    let took = t.elapsed();
    if matches!(start, Start::OfflineMcp(_)) {
        // Ctrl+D: ansa stops its servers on the way out; a kill would leave them to notice
        // the closed pipe on their own, and the next run would race them.
        pty.send(b"\x04");
        let _ = pty.child.wait();
    } else {
        pty.stop();
    }
    took
}

/// Start → first frame for each of `starts`, their runs interleaved (one of each per
/// round), so that a change of the machine's load falls on all of them alike and their
/// differences can be read even on a busy machine.
fn first_frames(exe: &str, root: &Path, starts: &[Start<'_>]) {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); starts.len()];
    for run in 0..RUNS {
        for (k, start) in starts.iter().enumerate() {
            times[k].push(one_frame(exe, root, *start, run));
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (start, mut times) in starts.iter().zip(times) {
        times.sort();
        println!(
            "start → first frame (pty, 120×40, {}): n={} p50={:.2} ms p95={:.2} ms min={:.2} ms",
            how(*start).0,
            times.len(),
            ms(times[times.len() / 2]),
            ms(times[(times.len() - 1) * 95 / 100]),
            ms(times[0])
        );
    }
}

fn memory(exe: &str, root: &Path) {
    let cwd = root.join("ws-memory");
    std::fs::create_dir_all(&cwd).unwrap();
    let home = root.join("home-memory");
    let session = root.join("session-1000");
    // 1,000 exchanges through the real runtime (offline provider), over JSONL.
    let mut jsonl = Command::new(exe)
        .args(["--offline-jsonl", "--session"])
        .arg(&session)
        .current_dir(&cwd)
        .env("ANSA_HOME", &home)
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
    for n in 0..1000 {
        let line = serde_json::json!({"schema_version":1,"session":"offline","incarnation":incarnation,
            "turn":0,"command_id":format!("m-{n}"),"type":"submit",
            "text":format!("exchange number {n}: please look up the value and explain it in a sentence or two")});
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let reader = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    assert!(jsonl.wait().unwrap().success());
    let _ = reader.join();
    let mut pty = Pty::spawn(
        exe,
        &["--offline", "--session", session.to_str().unwrap()],
        &home,
        &cwd,
    );
    assert!(pty.until(FOOTER, Duration::from_secs(20)), "no first frame");
    let opened = pty.rss_kb("VmRSS:");
    // Expand the history and page back through the journal.
    pty.send(b"\x06");
    for _ in 0..20 {
        pty.send(b"\x1b[5~");
    }
    std::thread::sleep(Duration::from_millis(500));
    let _ = pty.until("\u{0}never", Duration::from_millis(300));
    let paged = pty.rss_kb("VmRSS:");
    let peak = pty.rss_kb("VmHWM:");
    println!(
        "memory with 1,000 exchanges: RSS after first frame {:.1} MB, after expanding + 20 pages {:.1} MB, peak {:.1} MB",
        opened as f64 / 1024.0,
        paged as f64 / 1024.0,
        peak as f64 / 1024.0
    );
    pty.stop();
}

/// Peak RSS of ansa (not its servers) once `/mcp` lists every configured server ready: with
/// the three servers of [`three_servers`] when `modules` is given, else with none, the same
/// steps otherwise.
fn mcp_memory(exe: &str, root: &Path, modules: Option<&Path>) {
    let cwd = root.join("ws-mcp-memory");
    std::fs::create_dir_all(&cwd).unwrap();
    let label = if modules.is_some() { "three" } else { "no" };
    let home = root.join(format!("home-mcp-memory-{label}"));
    std::fs::create_dir_all(&home).unwrap();
    if let Some(modules) = modules {
        three_servers(&home, modules, &cwd);
    }
    let mut pty = Pty::spawn(exe, &["--offline"], &home, &cwd);
    assert!(pty.until(FOOTER, Duration::from_secs(10)), "no first frame");
    let want = if modules.is_some() {
        "ready · "
    } else {
        "no MCP servers"
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = pty.screen.len();
        pty.send(b"/mcp\r");
        let _ = pty.until("\u{0}never", Duration::from_millis(500));
        let shown = String::from_utf8_lossy(&pty.screen[seen..]).into_owned();
        let ready = shown.matches(want).count();
        if ready >= if modules.is_some() { 3 } else { 1 } {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the servers were not ready in 60 s: {shown}"
        );
    }
    let peak = pty.rss_kb("VmHWM:");
    println!(
        "peak RSS of ansa with {label} MCP servers connected (after /mcp lists them): {:.1} MB",
        peak as f64 / 1024.0
    );
    pty.send(b"\x04");
    let _ = pty.child.wait();
}
