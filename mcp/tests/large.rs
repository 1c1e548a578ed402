//! A 50 MB tool result from a real server (server-filesystem reading a 50 MB file) arrives
//! whole, with the client's peak memory a small multiple of the result. The measurement runs
//! in a child process of its own, so no other test's memory counts.

mod support;

use std::process::Command;

use ansa_mcp::{CancelFlag, Content};
use serde_json::json;
use support::*;

const RESULT_BYTES: usize = 50 * 1024 * 1024;
/// The child prints its peak RSS after this.
const PEAK: &str = "peak-rss-kib=";

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_50_mb_result_arrives_whole_with_bounded_memory() {
    let out = Command::new(std::env::current_exe().unwrap_or_else(|e| panic!("{e}")))
        .args([
            "--include-ignored",
            "--exact",
            "child_reads_50_mb",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let peak: u64 = stdout
        .lines()
        .find_map(|l| l.split_once(PEAK).map(|(_, v)| v))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("the child printed no peak: {stdout}\n{stderr}"));
    // On the wire the result is the text twice (content and structuredContent, JSON-escaped):
    // ~100 MB in one line, parsed into two 50 MB strings. Eight times the result allows the
    // line buffer, the parsed copy and the process's own baseline, and nothing more: a client
    // that kept several copies, or buffered the stream unboundedly, exceeds it.
    let bound_kib = (8 * RESULT_BYTES / 1024) as u64;
    assert!(
        peak <= bound_kib,
        "peak RSS {peak} KiB over the bound of {bound_kib} KiB"
    );
    println!("peak RSS of the client reading a 50 MB result: {peak} KiB");
}

#[test]
#[ignore = "the child process of a_50_mb_result_arrives_whole_with_bounded_memory"]
fn child_reads_50_mb() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap_or_else(|e| panic!("{e}"));
    // Printable ASCII lines, so the text is the same length in JSON.
    let line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,;:!?-_+=\n";
    let text = line.repeat(RESULT_BYTES / line.len() + 1);
    let text = &text[..RESULT_BYTES];
    let file = root.join("big.txt");
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
    let config = stdio(
        "fs",
        node().display().to_string(),
        vec![
            filesystem_script().display().to_string(),
            root.display().to_string(),
        ],
    );
    let hub = start(vec![config], &dir.path().join("logs"));
    assert_ready(&hub, "fs");
    let result = hub
        .call(
            &name("fs"),
            "read_text_file",
            args(json!({"path": file.display().to_string()})),
            &CancelFlag::new(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!result.is_error);
    match result.content.first() {
        Some(Content::Text(got)) => {
            assert_eq!(got.len(), RESULT_BYTES);
            assert!(got == text, "the text arrived changed");
        }
        other => panic!("expected text, got {:?}", other.map(|_| "another block")),
    }
    drop(result);
    hub.shutdown();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_else(|e| panic!("{e}"));
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no VmHWM in /proc/self/status"));
    println!("{PEAK}{peak}");
}
