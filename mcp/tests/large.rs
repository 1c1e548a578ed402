//! A 50 MB tool result from a real server (server-filesystem reading a 50 MB file) arrives
//! whole, with the client's peak memory a small multiple of the result. The measurement runs
//! in a child process of its own, so no other test's memory counts.

mod support;

use std::io::Write;
use std::process::Command;

use ansa_mcp::{CancelFlag, Content};
use serde_json::json;
use support::*;

/// 64 bytes of printable ASCII and a newline: the same length in JSON but for the newline.
const LINE: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,\n";
/// 50 MiB, a whole number of lines.
const RESULT_BYTES: usize = 50 * 1024 * 1024 / LINE.len() * LINE.len();
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
    // On the wire the result is the text twice (content and structuredContent): one ~100 MB
    // line, parsed into two 50 MB strings (with serde_json's scratch buffer), the line freed,
    // then moved into rmcp's `CallToolResult` (built directly: rmcp's untagged `ServerResult`
    // copied it about six times, 8.2× in all). Measured at 5.2× with the debug build's
    // baseline; seven times the result leaves room for noise, and a client holding a further
    // copy of the line or both strings, or buffering without bound, exceeds it.
    let bound_kib = (7 * RESULT_BYTES / 1024) as u64;
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
    // Written line by line, so the test's own copy does not count in the peak.
    let file = root.join("big.txt");
    {
        let mut out =
            std::io::BufWriter::new(std::fs::File::create(&file).unwrap_or_else(|e| panic!("{e}")));
        for i in 0..RESULT_BYTES / LINE.len() {
            out.write_all(LINE.as_bytes())
                .unwrap_or_else(|e| panic!("line {i}: {e}"));
        }
        out.flush().unwrap_or_else(|e| panic!("{e}"));
    }
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
            let changed = got
                .as_bytes()
                .chunks(LINE.len())
                .position(|chunk| chunk != LINE.as_bytes());
            assert_eq!(changed, None, "the text arrived changed at that line");
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
