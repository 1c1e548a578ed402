//! Drives the built `ansa` binary over JSONL in a temporary home and workspace.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single expected event may take.
pub const WAIT: Duration = Duration::from_secs(20);

/// A temporary ANSA_HOME, HOME and workspace.
pub struct World {
    pub dir: tempfile::TempDir,
}

impl World {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "ansa", "ws"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("ansa"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        World { dir }
    }

    pub fn ansa_home(&self) -> PathBuf {
        self.dir.path().join("ansa")
    }

    pub fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a scripted-provider file and returns its path.
    pub fn script(&self, name: &str, turns: Value) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, json!({ "turns": turns }).to_string()).unwrap();
        p
    }

    /// Writes the project config of the workspace.
    pub fn project_config(&self, body: Value) {
        let d = self.ws().join(".ansa");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("config.json"), body.to_string()).unwrap();
    }

    /// A command for the ansa binary in this world.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ansa"));
        c.args(args)
            .current_dir(self.ws())
            .env("ANSA_HOME", self.ansa_home())
            .env("HOME", self.dir.path().join("home"))
            .env_remove("AI_PROVIDER")
            .env_remove("AI_MODEL")
            .env_remove("AI_ENDPOINT")
            .env_remove("AI_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("AI_CA_FILE")
            .env_remove("ANSA_CRASH_AT")
            .env("NO_COLOR", "1");
        c
    }

    /// Starts `ansa --offline-jsonl` with extra arguments.
    pub fn jsonl(&self, extra: &[&str]) -> Jsonl {
        self.jsonl_with(extra, &[])
    }

    /// Starts `ansa --offline-jsonl` whose stdout is not read after the first event until
    /// the returned sender is used.
    pub fn jsonl_stalled(&self, extra: &[&str]) -> (Jsonl, std::sync::mpsc::Sender<()>) {
        let mut args = vec!["--offline-jsonl"];
        args.extend_from_slice(extra);
        let (tx, rx) = channel();
        (Jsonl::spawn_gated(self.command(&args), Some(rx)), tx)
    }

    /// Starts `ansa --offline-jsonl` with extra arguments and environment.
    pub fn jsonl_with(&self, extra: &[&str], env: &[(&str, &str)]) -> Jsonl {
        let mut args = vec!["--offline-jsonl"];
        args.extend_from_slice(extra);
        let mut c = self.command(&args);
        for (k, v) in env {
            c.env(k, v);
        }
        Jsonl::spawn(c)
    }
}

/// A running JSONL session.
pub struct Jsonl {
    pub child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Value>,
    pub seen: Vec<Value>,
    pub session: String,
    pub incarnation: String,
    next_command: u64,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Jsonl {
    pub fn spawn(c: Command) -> Self {
        Self::spawn_gated(c, None)
    }

    /// Like [`Jsonl::spawn`], but after the first event stdout is not read until `gate`
    /// receives something (a client that stops reading).
    pub fn spawn_gated(mut c: Command, gate: Option<Receiver<()>>) -> Self {
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, events) = channel();
        std::thread::spawn(move || {
            let mut gate = gate;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let first = gate.take();
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("event is not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
                if let Some(g) = first {
                    let _ = g.recv();
                }
            }
        });
        let err = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let err2 = err.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                err2.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let stdin = child.stdin.take();
        let mut j = Jsonl {
            child,
            stdin,
            events,
            seen: Vec::new(),
            session: String::new(),
            incarnation: String::new(),
            next_command: 1,
            stderr: err,
        };
        let first = j
            .next()
            .unwrap_or_else(|| panic!("no first event; stderr: {}", j.stderr()));
        assert_eq!(
            first["type"], "snapshot",
            "first event must be a snapshot: {first}"
        );
        j.session = first["session"].as_str().unwrap().to_owned();
        j.incarnation = first["incarnation"].as_str().unwrap().to_owned();
        j
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The next event, or None when the stream ended or timed out.
    pub fn next(&mut self) -> Option<Value> {
        match self.events.recv_timeout(WAIT) {
            Ok(v) => {
                self.seen.push(v.clone());
                Some(v)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Waits for an event matching `pred`, returning it.
    pub fn expect(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            match self.next() {
                Some(v) if pred(&v) => return v,
                Some(_) => {}
                None => break,
            }
        }
        panic!(
            "did not see {what}; events so far:\n{}\nstderr:\n{}",
            self.seen
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            self.stderr()
        );
    }

    /// Waits for an event of `type` (and optional field equalities).
    pub fn expect_type(&mut self, kind: &str, fields: &[(&str, Value)]) -> Value {
        let what = format!("{kind} {fields:?}");
        self.expect(&what, |v| {
            v["type"] == kind && fields.iter().all(|(k, want)| &v[*k] == want)
        })
    }

    /// Sends a raw line.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a command with the envelope filled in; returns its command_id.
    pub fn send(&mut self, kind: &str, payload: Value) -> String {
        let id = format!("{}-c-{}", self.incarnation, self.next_command);
        self.next_command += 1;
        self.send_as(&id, kind, payload);
        id
    }

    /// Sends a command with a chosen command_id.
    pub fn send_as(&mut self, id: &str, kind: &str, payload: Value) {
        let mut cmd = json!({
            "schema_version": 1,
            "session": self.session,
            "incarnation": self.incarnation,
            "turn": 0,
            "command_id": id,
            "type": kind,
        });
        for (k, v) in payload.as_object().unwrap() {
            cmd[k] = v.clone();
        }
        self.send_line(&cmd.to_string());
    }

    /// Submits a task and returns its request_id.
    pub fn submit(&mut self, text: &str) -> u64 {
        let id = self.send("submit", json!({ "text": text }));
        let ev = self.expect_type("command_accepted", &[("command_id", json!(id))]);
        ev["request_id"].as_u64().unwrap()
    }

    /// Waits for the final answer of a turn.
    pub fn answer(&mut self, request_id: u64) -> String {
        let delta = self.expect_type("text_delta", &[("request_id", json!(request_id))]);
        self.expect_type(
            "done",
            &[("request_id", json!(request_id)), ("durable", json!(true))],
        );
        delta["text"].as_str().unwrap().to_owned()
    }

    /// Closes stdin and waits for the process; returns its exit code.
    pub fn finish(mut self) -> (i32, Vec<Value>) {
        drop(self.stdin.take());
        while self.next().is_some() {}
        let status = self.child.wait().unwrap();
        (status.code().unwrap_or(-1), self.seen)
    }

    /// How many tool calls were reported started so far.
    pub fn tools_started(&self) -> usize {
        self.seen
            .iter()
            .filter(|e| e["type"] == "tool_status" && e["status"] == "started")
            .count()
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// SIGKILLs the process and waits for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the process to die (for self-inflicted crash points).
    pub fn wait_dead(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "ansa did not die; stderr: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Whether a process exists (and is not a zombie).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}

/// Polls until `cond` holds or the wait runs out.
pub fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads a pid written by a test command.
pub fn read_pid(path: &Path) -> i32 {
    eventually(&format!("pid file {}", path.display()), || {
        std::fs::read_to_string(path).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
    });
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The only session directory under the world's home.
pub fn only_session_dir(world: &World) -> PathBuf {
    only_session_in(&world.ansa_home().join("sessions"))
}

/// The only session directory in `sessions` (a home's `sessions/`; its index files aside).
pub fn only_session_in(sessions: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(dirs.len(), 1, "sessions: {dirs:?}");
    dirs[0].clone()
}

/// Every journal part of the session in `dir`, concatenated.
pub fn journal_text(dir: &Path) -> String {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("journal-")
        })
        .collect();
    parts.sort();
    parts
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// A finished offline session whose first journal part has one byte changed where `from` first
/// occurs (replaced by `to`, same length), so its checksum no longer matches; its directory.
pub fn damaged_session(world: &World, from: &str, to: &str) -> PathBuf {
    let out = world.command(&["--offline", "hello"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let dir = only_session_dir(world);
    let part = dir.join("journal-000001.jsonl");
    let text = std::fs::read_to_string(&part).unwrap();
    let damaged = text.replacen(from, to, 1);
    assert_ne!(damaged, text, "{from:?} is in the journal");
    std::fs::write(&part, damaged).unwrap();
    dir
}
