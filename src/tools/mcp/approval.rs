//! What an ask-mode approval of an MCP call shows and binds: the server, the tool and the
//! whole arguments object. The digest covers exactly those three, so a decision (once, or for
//! the session) applies to that very call and no other.

use ansa_sessions::protocol::ApprovalRequest;
use ansa_sessions::{CallId, RequestId};
use serde_json::{Map, Value, json};

use super::McpArgs;
use crate::canonical::canonical;

/// An MCP call put to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpApproval {
    /// The canonical action: `{"arguments":…,"server":…,"tool":…}` with sorted keys.
    pub action: String,
    /// Hex BLAKE3 of the action under a domain tag.
    pub digest: String,
    /// One line: `call mcp SERVER TOOL`.
    pub summary: String,
    /// The rows shown under it: the server and tool, then every line of the arguments.
    rows: Vec<String>,
}

/// The digest an approval of `server`/`tool` with `arguments` binds (what runs must hash the same).
pub fn call_digest(server: &str, tool: &str, arguments: &Map<String, Value>) -> String {
    digest_of(&canonical_action(server, tool, arguments))
}

fn canonical_action(server: &str, tool: &str, arguments: &Map<String, Value>) -> String {
    canonical(&json!({"server": server, "tool": tool, "arguments": arguments}))
}

fn digest_of(action: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"ansa-mcp-call/1\n");
    h.update(action.as_bytes());
    h.finalize().to_hex().to_string()
}

impl McpApproval {
    /// The approval of `args`.
    pub fn new(args: &McpArgs) -> Self {
        let action = canonical_action(&args.server, &args.tool, &args.arguments);
        let pretty = serde_json::to_string_pretty(&Value::Object(args.arguments.clone()))
            .unwrap_or_else(|_| action.clone());
        let mut summary = format!("call mcp {} {}", args.server, args.tool);
        if args.hints.destructive {
            summary.push_str(" (the server says it may be destructive)");
        }
        McpApproval {
            digest: digest_of(&action),
            action,
            summary,
            // One row per line: a frontend shows rows as lines and pages through them all.
            rows: [
                format!("MCP server {}, tool {}", args.server, args.tool),
                "arguments:".to_owned(),
            ]
            .into_iter()
            .chain(pretty.lines().map(str::to_owned))
            .collect(),
        }
    }

    /// What a frontend is asked for call `call_id` of turn `request_id`.
    pub fn request(&self, request_id: RequestId, call_id: CallId, tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            request_id,
            call_id,
            tool: tool.to_owned(),
            action: self.action.clone(),
            digest: self.digest.clone(),
            summary: self.summary.clone(),
            argv: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: None,
            diffs: Vec::new(),
            actions: self.rows.clone(),
            created: Vec::new(),
            withheld: None,
            outside_sandbox: false,
        }
    }
}
