//! The registry's MCP tools: owned names, descriptions and schemas, replaced as a whole
//! whenever the session's servers change (the standard tools, and so their golden schema and
//! the request prefix providers cache, stay as they are, first).

use serde_json::Value;

use super::super::args::ToolArgs;
use super::super::error::ToolCallError;
use super::super::mcp::{McpArgs, McpToolSpec};
use super::{AdmittedCall, Mode, ProviderTool, ToolRegistry, strip_position};

/// The implementation revision of every MCP call (the server's own version is its business).
const MCP_REVISION: u32 = 1;

/// Plan mode offers an MCP tool only when it declares `readOnlyHint`.
fn offered(mode: Mode, tool: &McpToolSpec) -> bool {
    mode == Mode::Basic || tool.hints.read_only
}

impl ToolRegistry {
    /// Replaces the MCP tools (named by `crate::tools::mcp::offered_names`, so unique) and
    /// the ones withdrawn: no longer offered, still admitted when called (the call restarts
    /// their server).
    pub fn set_mcp(&mut self, tools: Vec<McpToolSpec>, withdrawn: Vec<McpToolSpec>) {
        self.mcp = tools;
        self.mcp_withdrawn = withdrawn;
    }

    /// The MCP tools withdrawn since they were offered.
    pub fn mcp_withdrawn(&self) -> &[McpToolSpec] {
        &self.mcp_withdrawn
    }

    /// The MCP tool a call of `name` runs: offered now, or withdrawn since.
    pub fn mcp_callable(&self, name: &str) -> Option<&McpToolSpec> {
        self.mcp_tool(name)
            .or_else(|| self.mcp_withdrawn.iter().find(|t| t.name == name))
    }

    /// The MCP tools offered now, whatever the mode.
    pub fn mcp_tools(&self) -> &[McpToolSpec] {
        &self.mcp
    }

    /// The MCP tool offered as `name`.
    pub fn mcp_tool(&self, name: &str) -> Option<&McpToolSpec> {
        self.mcp.iter().find(|t| t.name == name)
    }

    pub(super) fn mcp_names(&self, mode: Mode) -> impl Iterator<Item = String> + '_ {
        self.mcp
            .iter()
            .filter(move |t| offered(mode, t))
            .map(|t| t.name.clone())
    }

    /// The MCP tools as providers see them: the schema exactly as the server gave it,
    /// `strict` only when it meets the strict rules.
    pub(super) fn mcp_provider_tools(&self, mode: Mode) -> impl Iterator<Item = ProviderTool> + '_ {
        self.mcp
            .iter()
            .filter(move |t| offered(mode, t))
            .map(|t| ProviderTool {
                name: t.name.clone(),
                description: t.shown_description(),
                parameters: t.schema.clone(),
                strict: t.is_strict(),
            })
    }

    /// Admits a call of an MCP tool: offered in `mode`, arguments a JSON object (checked
    /// against a strict schema here; a non-strict one is the server's to check).
    pub(super) fn admit_mcp(
        &self,
        mode: Mode,
        tool: &McpToolSpec,
        arguments: &str,
    ) -> Result<AdmittedCall, ToolCallError> {
        if !offered(mode, tool) {
            return Err(ToolCallError::NotInMode {
                name: tool.name.clone(),
                mode,
                available: self.names(mode),
            });
        }
        let name = tool.name.clone();
        let value: Value =
            serde_json::from_str(arguments).map_err(|err| ToolCallError::BadJson {
                tool: name.clone(),
                line: err.line(),
                column: err.column(),
                detail: strip_position(&err.to_string()),
            })?;
        let arguments = tool
            .check(value)
            .map_err(|violation| ToolCallError::InvalidArguments {
                tool: name.clone(),
                path: violation.path,
                problem: violation.problem,
                hint: violation.hint,
            })?;
        Ok(AdmittedCall {
            name,
            implementation_revision: MCP_REVISION,
            args: ToolArgs::Mcp(McpArgs {
                server: tool.server.clone(),
                tool: tool.tool.clone(),
                arguments,
                hints: tool.hints,
            }),
        })
    }
}
