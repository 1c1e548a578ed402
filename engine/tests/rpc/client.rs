//! A test client that drives `ash rpc` as a subprocess over pipes.

use crate::common::cell;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running `ash rpc`.
pub struct Rpc {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: BufReader<ChildStdout>,
}

/// A framed payload.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(payload);
    out
}

/// A handshake document.
pub fn handshake(frm: u64, out: u64, ops: u64, cap: u64, root: &str) -> String {
    format!(
        "t:0\ni:7\na{{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}}:\n1,0,0,1,0,0,{frm},{out},{ops},{cap},{root},nonce-7\n"
    )
}

/// The default handshake: 1 MiB frames, 64 KiB output, every op and capability, root `.`.
pub fn default_handshake() -> String {
    handshake(1 << 20, 65536, 1023, 15, ".")
}

/// A 64-byte read of `path`.
pub fn read(id: u64, path: &str) -> String {
    format!("t:1\ni:{id}\no:r\na{{p,m,o,n}}:\n[{path}],0,0,64\nu{{tok,rec,ms}}:\n1000,16,30000\n")
}

/// `sh -c SCRIPT` as an exec request.
pub fn sh(id: u64, script: &str) -> String {
    format!(
        "t:1\ni:{id}\no:x\na{{x,v,c,e,in,f}}:\nsh,[-c,{}],.,[],~,0\nu{{tok,rec,ms}}:\n1000,16,60000\n",
        cell(script)
    )
}

/// A cancel of `target`.
pub fn cancel(id: u64, target: u64) -> String {
    format!("t:1\ni:{id}\no:k\na{{i}}:\n{target}\nu{{tok,rec,ms}}:\n64,1,30000\n")
}

impl Rpc {
    /// Starts `ash rpc` in `cwd`.
    pub fn start(cwd: &Path) -> Rpc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ash"))
            .arg("rpc")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ash rpc");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Rpc {
            child,
            stdin,
            stdout,
        }
    }

    /// Starts `ash rpc` in `cwd` and completes the default handshake.
    pub fn open(cwd: &Path) -> Rpc {
        let mut rpc = Rpc::start(cwd);
        rpc.send(&default_handshake());
        let hello = rpc.recv().expect("handshake answer");
        assert!(hello.starts_with("t:0\ni:7\ns:0\n"), "{hello}");
        rpc
    }

    /// Writes raw bytes.
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let _ = stdin.write_all(bytes);
        let _ = stdin.flush();
    }

    /// Writes one framed document.
    pub fn send(&mut self, doc: &str) {
        self.raw(&frame(doc.as_bytes()));
    }

    /// Reads one answer frame, or `None` at EOF.
    pub fn recv(&mut self) -> Option<String> {
        let mut len = [0u8; 4];
        self.stdout.read_exact(&mut len).ok()?;
        let mut payload = vec![0u8; u32::from_be_bytes(len) as usize];
        self.stdout.read_exact(&mut payload).ok()?;
        Some(String::from_utf8(payload).expect("answers are UTF-8"))
    }

    /// Closes stdin and collects (exit code, remaining answers, stderr).
    pub fn finish(mut self) -> (i32, Vec<String>, String) {
        self.stdin = None;
        let mut answers = Vec::new();
        while let Some(a) = self.recv() {
            answers.push(a);
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let status = self.child.wait().expect("wait for ash rpc");
        (status.code().unwrap_or(-1), answers, err)
    }
}

/// The `i` of an answer.
pub fn id_of(answer: &str) -> u64 {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("i:"))
        .and_then(|v| v.parse().ok())
        .expect("answer has an id")
}

/// The `s` of an answer.
pub fn status_of(answer: &str) -> u64 {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("s:"))
        .and_then(|v| v.parse().ok())
        .expect("answer has a status")
}

/// The error line (`code,retry,stage,x,a`) of an answer.
pub fn error_of(answer: &str) -> Option<String> {
    let mut lines = answer.lines();
    lines.find(|l| l.starts_with("e{c,q,p,x,a}:"))?;
    lines.next().map(str::to_owned)
}
