//! Shared pieces of the crate's tests against real MCP servers: where the npm servers are,
//! hub configs for them, the process table.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ansa_mcp::{ChildEnv, McpHub, ServerConfig, ServerName, ServerState, Transport};

// The process table, shared with the end-to-end tests of the `ansa` binary.
#[path = "../../../tests/support/processes.rs"]
mod processes;
#[allow(unused_imports, reason = "not every test binary looks at processes")]
pub use processes::{Process, alive_with, processes};

/// `node_modules` holding node@22, the conformance suite and the reference servers, as
/// `cargo xtask test` installs them (`ANSA_MCP_MODULES`).
pub fn modules() -> PathBuf {
    match std::env::var_os("ANSA_MCP_MODULES").filter(|m| !m.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "ANSA_MCP_MODULES is not set: run `cargo xtask test`, or install the packages with \
             `npm install --prefix DIR node@22.23.3 @modelcontextprotocol/conformance@0.1.16 \
             @modelcontextprotocol/server-everything@2026.8.31 \
             @modelcontextprotocol/server-filesystem@2026.8.31` and set ANSA_MCP_MODULES=DIR/node_modules"
        ),
    }
}

/// Node 22 from the `node` npm package.
pub fn node() -> PathBuf {
    let node = modules().join("node/bin/node");
    assert!(
        node.is_file(),
        "{} is missing: reinstall the MCP npm packages",
        node.display()
    );
    node
}

pub fn everything_script() -> PathBuf {
    modules().join("@modelcontextprotocol/server-everything/dist/index.js")
}

pub fn filesystem_script() -> PathBuf {
    modules().join("@modelcontextprotocol/server-filesystem/dist/index.js")
}

pub fn name(text: &str) -> ServerName {
    ServerName::new(text).unwrap_or_else(|e| panic!("{e}"))
}

pub fn stdio(server: &str, command: impl Into<String>, args: Vec<String>) -> ServerConfig {
    let mut config = ServerConfig::new(
        name(server),
        Transport::Stdio {
            command: command.into(),
            args,
            env: BTreeMap::new(),
            cwd: None,
        },
    );
    config.startup_timeout = Duration::from_secs(30);
    config
}

/// server-everything over stdio.
pub fn everything(server: &str) -> ServerConfig {
    stdio(
        server,
        node().display().to_string(),
        vec![everything_script().display().to_string(), "stdio".into()],
    )
}

/// A `sh -c SCRIPT` server (the script is a real process; nothing in it speaks for MCP).
pub fn sh(server: &str, script: &str) -> ServerConfig {
    stdio(server, "sh", vec!["-c".into(), script.into()])
}

/// The environment the tests pass as ansa's scrubbed base.
pub fn base_env() -> ChildEnv {
    let mut base: Vec<(OsString, OsString)> = Vec::new();
    for key in ["PATH", "HOME", "LANG", "TMPDIR"] {
        if let Some(value) = std::env::var_os(key) {
            base.push((key.into(), value));
        }
    }
    ChildEnv { base }
}

pub fn start(configs: Vec<ServerConfig>, logs: &Path) -> McpHub {
    let hub = McpHub::start(configs, logs, base_env());
    hub.settle(Instant::now() + Duration::from_secs(60));
    hub
}

pub fn state(hub: &McpHub, server: &str) -> (ServerState, Option<String>) {
    let status = hub
        .statuses()
        .into_iter()
        .find(|s| s.name.as_str() == server)
        .unwrap_or_else(|| panic!("no status for {server}"));
    (status.state, status.last_error)
}

pub fn assert_ready(hub: &McpHub, server: &str) {
    let (state, error) = state(hub, server);
    assert_eq!(state, ServerState::Ready, "{server}: {error:?}");
}

/// Polls `condition` every 20 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}

/// A loopback TCP port nobody listens on now.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("{e}"))
        .port()
}

/// The text of a result's first block.
pub fn first_text(result: &ansa_mcp::CallResult) -> String {
    match result.content.first() {
        Some(ansa_mcp::Content::Text(text)) => text.clone(),
        other => panic!("expected text, got {other:?}"),
    }
}

pub fn args(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}
