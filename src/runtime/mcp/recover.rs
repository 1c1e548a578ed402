//! An MCP call with an intent and no outcome after a crash. It is never re-run by ansa. A
//! tool that declared `readOnlyHint` or `idempotentHint` (as the `mcp_tools` record in force
//! says) gets an ordinary failed outcome that tells the model it may call it again; any other
//! is `effect_unknown`, which blocks Resume until the user looks.

use ansa_sessions::mcp::McpTools;
use ansa_sessions::{Record, Seq, ToolOutcomeStatus};

/// The `mcp_tools` record in force at journal position `at` (the last one before it).
pub fn tools_at(records: &[(Seq, Record)], at: Seq) -> Option<&McpTools> {
    records
        .iter()
        .take_while(|(seq, _)| *seq < at)
        .filter_map(|(_, r)| match r {
            Record::McpTools(t) => Some(t),
            _ => None,
        })
        .last()
}

/// The outcome of MCP call `tool` interrupted by a crash, given the record in force.
pub fn interrupted(tool: &str, tools: Option<&McpTools>) -> (ToolOutcomeStatus, String) {
    let entry = tools.and_then(|t| t.find(tool));
    let (server, name) = entry.map_or(("?", tool), |e| (e.server.as_str(), e.tool.as_str()));
    match entry {
        Some(e) if e.read_only || e.idempotent => {
            let declared = if e.read_only {
                "readOnlyHint"
            } else {
                "idempotentHint"
            };
            (
                ToolOutcomeStatus::Error,
                format!(
                    "The runtime stopped while MCP tool `{name}` of server `{server}` was running, and its result was not saved. It declared {declared}, so calling it again is safe by its own account; it was not re-run automatically. Call it again if you still need the result."
                ),
            )
        }
        _ => (
            ToolOutcomeStatus::EffectUnknown,
            format!(
                "The runtime stopped while MCP tool `{name}` of server `{server}` was running: whether it did anything on the server's side is unknown. It was not re-run and will not be; check with the user before relying on it or calling it again."
            ),
        ),
    }
}
