//! MCP end to end (issue 45): the built binary with `--offline --script` calling `mcp__…`
//! tools of the real npm reference servers (`@modelcontextprotocol/server-everything`,
//! `@modelcontextprotocol/server-filesystem`) found through `ANSA_MCP_MODULES`, and of
//! `probe.mjs`, a small server on the `@modelcontextprotocol/sdk` installed with them (for a
//! changing tool list and for seeing cancellations arrive). Without the packages these tests
//! fail with the command that installs them; they never pass silently.

mod ask;
mod cancel;
mod crash;
mod everything;
mod failures;
mod filesystem;
mod large;
mod list_changed;
mod progress;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Jsonl, World};

/// The install command named when the packages are missing (the versions `cargo xtask test`
/// installs).
const INSTALL: &str = "npm install --prefix DIR node@22.23.3 \
@modelcontextprotocol/conformance@0.1.16 @modelcontextprotocol/server-everything@2026.8.31 \
@modelcontextprotocol/server-filesystem@2026.8.31";

/// `node_modules` holding node 22 and the reference servers (`ANSA_MCP_MODULES`).
pub fn modules() -> PathBuf {
    match std::env::var_os("ANSA_MCP_MODULES").filter(|m| !m.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "ANSA_MCP_MODULES is not set: run `cargo xtask test`, or install the packages with \
             `{INSTALL}` and set ANSA_MCP_MODULES=DIR/node_modules"
        ),
    }
}

fn need(path: PathBuf) -> String {
    assert!(
        path.is_file(),
        "{} is missing: reinstall the MCP npm packages with `{INSTALL}`",
        path.display()
    );
    path.display().to_string()
}

/// Node 22 from the `node` npm package.
pub fn node() -> String {
    need(modules().join("node/bin/node"))
}

/// A word only this world's servers carry on their command line (to find them with `ps`).
pub fn marker(w: &World) -> String {
    let name = w.dir.path().file_name().unwrap().to_string_lossy();
    format!("ansa-mcp-test-{name}")
}

/// server-everything's entry script.
pub fn everything_script() -> String {
    need(modules().join("@modelcontextprotocol/server-everything/dist/index.js"))
}

/// A stdio config entry for server-everything; `marker` is an extra argument it ignores.
pub fn everything(marker: &str) -> Value {
    json!({"command": node(), "args": [everything_script(), "stdio", marker],
        "startup_timeout_ms": 60000})
}

/// A stdio config entry for server-filesystem serving `root`.
pub fn filesystem(root: &Path) -> Value {
    let script = need(modules().join("@modelcontextprotocol/server-filesystem/dist/index.js"));
    json!({"command": node(), "args": [script, root.display().to_string()],
        "startup_timeout_ms": 60000})
}

/// A stdio config entry for `probe.mjs` (a server on the SDK whose tool list grows and which
/// logs the cancellations it receives); `marker` is an extra argument it ignores.
pub fn probe(marker: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp/probe.mjs");
    need(modules().join("@modelcontextprotocol/sdk/dist/esm/server/mcp.js"));
    json!({"command": node(), "args": [script.display().to_string(),
        modules().display().to_string(), marker], "startup_timeout_ms": 60000})
}

/// Writes the user config with `servers` as `mcp_servers` and `extra` fields beside it.
pub fn user_config(w: &World, servers: Value, extra: Value) {
    let mut config = json!({"mcp_servers": servers});
    for (k, v) in extra.as_object().into_iter().flatten() {
        config[k] = v.clone();
    }
    std::fs::write(w.ansa_home().join("config.json"), config.to_string()).unwrap();
}

/// A scripted call of `name` with `arguments`.
pub fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// A JSONL session scripted with `turns`, with extra arguments.
pub fn session(w: &World, turns: Value, extra: &[&str]) -> Jsonl {
    let script = w.script("mcp.json", turns);
    let mut args = vec!["--script", script.to_str().unwrap()];
    args.extend_from_slice(extra);
    w.jsonl(&args)
}

/// The finished `tool_status` of the call of `tool`, waited for.
pub fn finished(s: &mut Jsonl, tool: &str) -> Value {
    s.expect(&format!("{tool} to end"), |v| {
        v["type"] == "tool_status"
            && v["tool"] == tool
            && v["status"] != "started"
            && v["status"] != "running"
    })
}

/// The bodies of every `tool_outcome` record of the session in `dir`, in journal order.
pub fn outcomes(dir: &Path) -> Vec<Value> {
    crate::harness::journal_text(dir)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "tool_outcome")
        .map(|r| r["body"].clone())
        .collect()
}
