//! The `mcp_tools` record (issue 45): the names the session's MCP tools are offered under
//! from this point of the journal on, so a journaled `mcp__…` call can always be traced to
//! the server and tool it meant, and recovery knows what the tool declared about itself.

use serde::{Deserialize, Serialize};

/// The MCP tools offered from here on (the whole list; it replaces the one before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpTools {
    /// Every offered tool, in offering order.
    pub tools: Vec<McpToolName>,
}

/// One offered MCP tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpToolName {
    /// The name the model calls (`mcp__SERVER__TOOL`).
    pub name: String,
    /// The server (a config name).
    pub server: String,
    /// The tool's own name on that server.
    pub tool: String,
    /// It declared `readOnlyHint`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// It declared `idempotentHint`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub idempotent: bool,
}

impl McpTools {
    /// The entry offered as `name`.
    pub fn find(&self, name: &str) -> Option<&McpToolName> {
        self.tools.iter().find(|t| t.name == name)
    }
}
