//! A real `ash-broker` for tests, started the way the shell integration starts one.
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::mock_provider::MockProvider;

/// The broker binary, built beside `ansa` by `cargo test --workspace`, or the one
/// `ANSA_BENCH_BROKER_EXE` names (a bench built in another profile measuring a release broker).
pub fn broker_exe() -> PathBuf {
    let exe = std::env::var_os("ANSA_BENCH_BROKER_EXE").map_or_else(
        || Path::new(env!("CARGO_BIN_EXE_ansa")).with_file_name("ash-broker"),
        PathBuf::from,
    );
    assert!(
        exe.exists(),
        "{} is missing: build it with `cargo build -p ash-broker` (`cargo test --workspace` does)",
        exe.display()
    );
    exe
}

/// A fresh capability token.
pub fn token() -> String {
    let seed = format!("{:?}{}", Instant::now(), std::process::id());
    blake3::hash(seed.as_bytes()).to_hex().to_string()
}

/// A running broker started the way the shell integration starts one.
pub struct Broker {
    pub child: Child,
    pub socket: PathBuf,
    pub lease: PathBuf,
    pub token: String,
}

impl Broker {
    /// A broker for `mock` in `dir` (made private), serving this test process.
    pub fn start(dir: &Path, mock: &MockProvider) -> Broker {
        let ca = mock.ca_file().map(Path::to_path_buf);
        Broker::spawn(dir, &mock.base_url(), ca.as_deref())
    }

    /// A broker for the provider at `upstream` trusting `ca`.
    pub fn start_for(dir: &Path, upstream: &str, ca: &Path) -> Broker {
        Broker::spawn(dir, upstream, Some(ca))
    }

    /// A broker for `mock` that may hold at most `nofile` file descriptors (`ulimit -n`).
    pub fn start_limited(dir: &Path, mock: &MockProvider, nofile: u32) -> Broker {
        let ca = mock.ca_file().map(Path::to_path_buf);
        Broker::spawn_in(dir, &mock.base_url(), ca.as_deref(), Some(nofile))
    }

    fn spawn(dir: &Path, upstream: &str, ca: Option<&Path>) -> Broker {
        Broker::spawn_in(dir, upstream, ca, None)
    }

    fn spawn_in(dir: &Path, upstream: &str, ca: Option<&Path>, nofile: Option<u32>) -> Broker {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let socket = dir.join(format!("broker-{n}.sock"));
        let lease = dir.join(format!("broker-{n}.lease"));
        let token = token();
        let mut c = match nofile {
            // The shell lowers the limit, then becomes the broker.
            Some(n) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(broker_exe());
                c
            }
            None => Command::new(broker_exe()),
        };
        c.arg("--socket")
            .arg(&socket)
            .arg("--parent-pid")
            .arg(std::process::id().to_string())
            .arg("--lease")
            .arg(&lease)
            .arg("--upstream")
            .arg(upstream)
            .arg("--check-ms")
            .arg("100")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(ca) = ca {
            c.env("AI_CA_FILE", ca);
        }
        let mut child = c.spawn().unwrap();
        // A broker that refuses to start may exit before it reads this; its stderr says why.
        let _ = writeln!(child.stdin.take().unwrap(), "{token}");
        let deadline = Instant::now() + Duration::from_secs(10);
        // The lease is written once the broker handles signals.
        while !(socket.exists() && lease.exists()) {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                panic!("the broker exited ({status}): {err}");
            }
            assert!(Instant::now() < deadline, "no broker socket");
            std::thread::sleep(Duration::from_millis(5));
        }
        Broker {
            child,
            socket,
            lease,
            token,
        }
    }

    /// The shell's variables that route `ansa` through this broker.
    pub fn env(&self, token: &str) -> Vec<(&'static str, String)> {
        vec![
            ("ASH_BROKER_SOCKET", self.socket.display().to_string()),
            ("ASH_BROKER_TOKEN", token.to_owned()),
        ]
    }

    /// A raw HTTP/1.1 request on the socket; the status line and headers of the answer.
    pub fn raw(&self, head: &str) -> String {
        let mut stream = std::os::unix::net::UnixStream::connect(&self.socket).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let mut reader = BufReader::new(stream);
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                break;
            }
            answer.push_str(&line);
        }
        answer
    }
}

impl Broker {
    /// POSTs a body of `len` bytes for `url` on a fresh connection, written in 64 KiB pieces
    /// as the socket takes them (never held whole here); the status line and headers of the
    /// answer.
    pub fn upload(&self, url: &str, len: usize) -> String {
        let mut stream = std::os::unix::net::UnixStream::connect(&self.socket).unwrap();
        let head = format!(
            "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {}\r\nx-ash-broker-url: {url}\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n",
            self.token
        );
        stream.write_all(head.as_bytes()).unwrap();
        let piece = vec![b'x'; 64 * 1024];
        let mut left = len;
        while left > 0 {
            let n = left.min(piece.len());
            // A refusal may close the connection early; its answer is still read below.
            if stream.write_all(&piece[..n]).is_err() {
                break;
            }
            left -= n;
        }
        let mut reader = BufReader::new(stream);
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            answer.push_str(&line);
        }
        answer
    }

    /// The broker's peak resident memory (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        status_kib(self.child.id(), "VmHWM:")
    }
}

/// A `/proc/PID/status` figure in KiB.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
