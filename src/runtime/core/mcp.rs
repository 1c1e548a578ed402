//! MCP in the core (issue 45): the `mcp_servers` event (on every change of the servers'
//! states, and in answer to `mcp_status`). Tool rows name their server through
//! `Core::tool_status`.

use std::sync::Arc;

use ansa_mcp::{McpHub, ServerState, ServerStatus};
use ansa_sessions::protocol::{EventBody, McpServerRow, McpServerState, McpServers};

use super::Core;

/// What the core knows of the MCP servers.
#[derive(Default)]
pub(super) struct McpView {
    /// The session's hub, when it has servers.
    hub: Option<Arc<McpHub>>,
    /// The rows last published.
    last: Option<Vec<McpServerRow>>,
}

impl std::fmt::Debug for McpView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpView")
            .field("hub", &self.hub.is_some())
            .field("last", &self.last)
            .finish()
    }
}

fn rows(statuses: &[ServerStatus]) -> Vec<McpServerRow> {
    statuses
        .iter()
        .map(|s| McpServerRow {
            name: s.name.to_string(),
            state: state(s.state),
            tools: s.tools,
            last_error: s.last_error.clone(),
        })
        .collect()
}

fn state(state: ServerState) -> McpServerState {
    match state {
        ServerState::Starting => McpServerState::Starting,
        ServerState::Ready => McpServerState::Ready,
        ServerState::Failed => McpServerState::Failed,
        ServerState::Exited => McpServerState::Exited,
        ServerState::Restarting => McpServerState::Restarting,
        ServerState::Disabled => McpServerState::Disabled,
    }
}

impl Core {
    /// The session's hub, for `mcp_status`.
    pub fn set_mcp_hub(&mut self, hub: Arc<McpHub>) {
        self.mcp.hub = Some(hub);
    }

    /// Publishes the servers' states when they differ from what frontends last saw.
    pub fn mcp_statuses(&mut self, statuses: &[ServerStatus]) {
        let rows = rows(statuses);
        if self.mcp.last.as_ref() == Some(&rows) {
            return;
        }
        self.mcp.last = Some(rows.clone());
        self.events
            .publish(EventBody::McpServers(McpServers { servers: rows }));
    }

    /// Answers `mcp_status`: every server as it is now (an empty list without servers).
    pub fn mcp_status(&mut self) {
        let rows = match &self.mcp.hub {
            Some(hub) => rows(&hub.statuses()),
            None => Vec::new(),
        };
        self.mcp.last = Some(rows.clone());
        self.events
            .publish(EventBody::McpServers(McpServers { servers: rows }));
    }
}
