//! The `mcp_servers` event (issue 45): every configured MCP server, its state, how many
//! tools it offers and its last error. Published when a server's state changes and in
//! answer to the `mcp_status` command (`/mcp`).

use serde::{Deserialize, Serialize};

/// The session's MCP servers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServers {
    /// One row per configured server, in name order.
    pub servers: Vec<McpServerRow>,
}

/// One server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerRow {
    /// The config name.
    pub name: String,
    /// Where it is in its life.
    pub state: McpServerState,
    /// Tools it offers now.
    pub tools: usize,
    /// Its most recent failure (one line, from the server: sanitise before a terminal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// Spawned or connecting; its tools are not known yet.
    Starting,
    /// Its tools are offered.
    Ready,
    /// It could not start (spawn error, handshake error, startup timeout) or stopped answering.
    Failed,
    /// It exited (or its connection closed) after it was ready.
    Exited,
    /// A call is starting it again.
    Restarting,
    /// `enabled: false` in the config: never started.
    Disabled,
}

impl McpServerState {
    /// The word frontends print.
    pub fn as_str(self) -> &'static str {
        match self {
            McpServerState::Starting => "starting",
            McpServerState::Ready => "ready",
            McpServerState::Failed => "failed",
            McpServerState::Exited => "exited",
            McpServerState::Restarting => "restarting",
            McpServerState::Disabled => "disabled",
        }
    }
}

impl McpServerRow {
    /// Whether the server is of no use now (failed to start, or exited).
    pub fn is_down(&self) -> bool {
        matches!(self.state, McpServerState::Failed | McpServerState::Exited)
    }
}
