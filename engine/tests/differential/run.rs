//! Running one case with one binary, and comparing two outcomes.

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::fixture;

/// How a case talks to `ash`.
#[derive(Debug, Clone)]
pub enum Kind {
    /// `ash run` with this request document on stdin.
    Run(String),
    /// `ash ason` with these bytes on stdin.
    Ason(Vec<u8>),
    /// `ash rpc` with these frames (length-prefixed), each after the answer to the one before
    /// unless a cancel follows it, then end of input.
    Rpc(Vec<String>),
    /// `ash rpc` with these frames written at once, then end of input.
    Pipelined(Vec<String>),
}

/// The workspace a case starts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The fixture, with no `.ash` (no request has mutated it yet).
    Fixture,
    /// The fixture with a `.ash` directory of the user's (no state-directory marker).
    UserStateDir,
}

/// One differential case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub kind: Kind,
    pub start: Start,
}

/// What one binary did with a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub exit: Option<i32>,
    /// stdout (`run`, `ason`), or the answers one by one (`rpc`), normalised.
    pub out: Vec<String>,
    pub stderr: String,
    /// The workspace afterwards: one line per entry.
    pub tree: Vec<String>,
}

/// Every case finishes in milliseconds; only the reference's FIFO read hangs this long.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `case` with `exe` in a fresh fixture.
pub fn run(exe: &Path, case: &Case) -> Outcome {
    let root = tempfile::tempdir().unwrap();
    fixture::build(root.path());
    if case.start == Start::UserStateDir {
        fixture::user_state_dir(root.path());
    }
    let ws = root.path().join("ws");
    let (sub, input, lockstep) = match &case.kind {
        Kind::Run(doc) => ("run", vec![doc.as_bytes().to_vec()], false),
        Kind::Ason(bytes) => ("ason", vec![bytes.clone()], false),
        Kind::Rpc(frames) => ("rpc", frames.iter().map(|f| framed(f)).collect(), true),
        Kind::Pipelined(frames) => (
            "rpc",
            vec![frames.iter().flat_map(|f| framed(f)).collect()],
            false,
        ),
    };
    let waits: Vec<bool> = match &case.kind {
        Kind::Rpc(frames) => (0..frames.len())
            .map(|i| {
                frames
                    .get(i + 1)
                    .is_none_or(|next| !next.contains("\no:k\n"))
            })
            .collect(),
        _ => vec![false; input.len()],
    };
    let mut child = Command::new(exe)
        .arg(sub)
        .current_dir(&ws)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("TZ", "UTC")
        .env("HOME", root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let rpc = sub == "rpc";
    let reader = std::thread::spawn(move || {
        if !rpc {
            let mut b = Vec::new();
            let _ = stdout.read_to_end(&mut b);
            let _ = tx.send(b);
            return;
        }
        loop {
            let mut len = [0u8; 4];
            if stdout.read_exact(&mut len).is_err() {
                return;
            }
            let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
            if stdout.read_exact(&mut frame).is_err() {
                let _ = tx.send(b"(torn frame)".to_vec());
                return;
            }
            if tx.send(frame).is_err() {
                return;
            }
        }
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.read_to_end(&mut b);
        b
    });
    let mut got: Vec<Vec<u8>> = Vec::new();
    for (bytes, wait) in input.iter().zip(&waits) {
        // In lockstep, a cancel is sent once the request before it had time to start, so it
        // cancels a running request on both sides.
        if lockstep && is_cancel(bytes) {
            std::thread::sleep(Duration::from_millis(200));
        }
        if stdin.write_all(bytes).is_err() {
            break;
        }
        let _ = stdin.flush();
        if lockstep && *wait {
            match rx.recv_timeout(TIMEOUT) {
                Ok(frame) => got.push(frame),
                Err(_) => break,
            }
        }
    }
    drop(stdin);
    let deadline = Instant::now() + TIMEOUT;
    let exit = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = reader.join();
    got.extend(rx.try_iter());
    let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
    // A command's output may name the (temporary) workspace; both runs see `<root>`.
    let shown_root = root.path().display().to_string();
    let out = got
        .iter()
        .map(|f| normalise(&String::from_utf8_lossy(f)).replace(&shown_root, "<root>"))
        .collect();
    Outcome {
        exit,
        out,
        stderr,
        tree: tree(&ws),
    }
}

/// Whether a framed request is a cancel.
fn is_cancel(framed: &[u8]) -> bool {
    framed.len() > 4 && String::from_utf8_lossy(&framed[4..]).contains("\no:k\n")
}

/// One length-prefixed frame.
fn framed(frame: &str) -> Vec<u8> {
    let mut bytes = (frame.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(frame.as_bytes());
    bytes
}

/// The elapsed-ms cell of every exec row becomes `MS` (the one row after each
/// `d{k,c,ms,…}:` header; its `k` and `c` cells never hold a comma).
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_header = false;
    for line in text.split_inclusive('\n') {
        if after_header {
            after_header = false;
            let mut cells = line.splitn(4, ',');
            if let (Some(k), Some(c), Some(_ms), Some(rest)) =
                (cells.next(), cells.next(), cells.next(), cells.next())
            {
                out.push_str(&format!("{k},{c},MS,{rest}"));
                continue;
            }
        }
        after_header = line.starts_with("d{k,c,ms,");
        out.push_str(line);
    }
    out
}

/// Every entry under `ws` (links not followed), sorted: path, kind, mode, and the content's
/// digest or the link target.
fn tree(ws: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(ws, ws, &mut out);
    out.sort();
    out
}

fn walk(ws: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(ws).unwrap().display().to_string();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mode = meta.permissions().mode() & 0o7777;
        let t = meta.file_type();
        let line = if t.is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            format!("{rel} link -> {}", target.display())
        } else if t.is_dir() {
            walk(ws, &path, out);
            format!("{rel} dir {mode:o}")
        } else if t.is_fifo() {
            format!("{rel} fifo {mode:o}")
        } else if t.is_file() {
            let bytes = std::fs::read(&path).unwrap_or_default();
            format!("{rel} file {mode:o} {}", blake3::hash(&bytes).to_hex())
        } else {
            format!("{rel} other {mode:o}")
        };
        out.push(line);
    }
}

/// What differs between two outcomes, in words; `None` when they are the same.
pub fn difference(ours: &Outcome, theirs: &Outcome) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let mut d = String::new();
    if ours.exit != theirs.exit {
        d.push_str(&format!(
            "exit: ours {:?}, reference {:?}\n",
            ours.exit, theirs.exit
        ));
    }
    if ours.out != theirs.out {
        d.push_str(&format!(
            "--- ours\n{}\n--- reference\n{}\n",
            ours.out.join("\n·\n"),
            theirs.out.join("\n·\n")
        ));
    }
    if ours.stderr != theirs.stderr {
        d.push_str(&format!(
            "stderr: ours {:?}, reference {:?}\n",
            ours.stderr, theirs.stderr
        ));
    }
    if ours.tree != theirs.tree {
        let only = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|l| !b.contains(l)).cloned().collect()
        };
        d.push_str(&format!(
            "workspace: only ours {:?}; only the reference {:?}\n",
            only(&ours.tree, &theirs.tree),
            only(&theirs.tree, &ours.tree)
        ));
    }
    Some(d)
}
