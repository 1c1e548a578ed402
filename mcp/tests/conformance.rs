//! The MCP project's own client conformance scenarios (npm `@modelcontextprotocol/conformance`
//! on Node 22) run against ansa's client through the driver `tests/conformance/driver.rs`. A
//! scenario passes when the suite exits 0 and none of its checks failed.

mod support;

use std::path::Path;
use std::process::Command;

use support::{modules, node};

/// The driver binary cargo builds for this package.
const DRIVER: &str = env!("CARGO_BIN_EXE_ansa-mcp-conformance");

/// Runs one client scenario of the suite against the driver; panics with the suite's output
/// when it fails.
fn scenario(name: &str) {
    let suite = modules().join("@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        suite.is_file(),
        "{} is missing: reinstall the MCP npm packages (cargo xtask test)",
        suite.display()
    );
    // The suite splits `--command` on spaces.
    assert!(
        !DRIVER.contains(' '),
        "the driver's path has a space, which the suite's --command cannot carry: {DRIVER}"
    );
    let results = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(node())
        .arg(&suite)
        .args(["client", "--command", DRIVER, "--scenario", name])
        .arg("--output-dir")
        .arg(results.path())
        .current_dir(results.path())
        .output()
        .unwrap_or_else(|e| panic!("node: {e}"));
    let report = format!(
        "conformance {name}: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    let checks = checks(results.path());
    assert!(!checks.is_empty(), "no checks.json written\n{report}");
    let failed: Vec<&serde_json::Value> = checks
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "ERROR")))
        .collect();
    assert!(failed.is_empty(), "failed checks: {failed:#?}\n{report}");
    assert!(
        checks.iter().any(|c| c["status"] == "SUCCESS"),
        "no check succeeded: {checks:#?}\n{report}"
    );
}

/// Every check of every `checks.json` under `dir`.
fn checks(dir: &Path) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n == "checks.json") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
                let parsed: Vec<serde_json::Value> = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                found.extend(parsed);
            }
        }
    }
    found
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn initialize() {
    scenario("initialize");
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn tools_call() {
    scenario("tools_call");
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn sse_retry() {
    scenario("sse-retry");
}
