//! Tools of MCP servers as the registry holds them (issue 45): each offered as
//! `mcp__SERVER__TOOL` with an owned name, description and schema, the typed arguments of one
//! call, and what an ask-mode approval of it shows and binds. Calling the server is the
//! runtime's (`src/runtime/mcp/`); nothing here does I/O.

mod approval;
mod naming;
mod output;

pub use approval::{McpApproval, call_digest};
pub use naming::offered_names;
pub use output::{McpOutput, RetainFn, render};

use serde_json::{Map, Value};

use super::schema::Schema;

/// What a server declares about a tool (`annotations`); hints, never guarantees, so they
/// only ever relax what ansa does where the user allowed it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct McpHints {
    /// `readOnlyHint`: changes nothing.
    pub read_only: bool,
    /// `idempotentHint`: calling it again with the same arguments has no further effect.
    pub idempotent: bool,
    /// `destructiveHint`.
    pub destructive: bool,
    /// `openWorldHint`: reaches outside (the network, other systems).
    pub open_world: bool,
}

/// One MCP tool as offered to the model.
#[derive(Debug, Clone)]
pub struct McpToolSpec {
    /// The name the model calls (`mcp__SERVER__TOOL`, sanitised and unique).
    pub name: String,
    /// The server's name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The description the server gave.
    pub description: String,
    /// The input schema exactly as the server gave it.
    pub schema: Value,
    /// Its annotations.
    pub hints: McpHints,
    /// The schema compiled, when it meets the provider's strict rules (then it is sent
    /// `strict: true` and arguments are checked here); `None`: sent non-strict as given, and
    /// the server checks the arguments.
    strict: Option<Schema>,
}

impl McpToolSpec {
    /// A tool named `name` (from [`offered_names`]) of `server`.
    pub fn new(
        name: String,
        server: String,
        tool: String,
        description: String,
        schema: Value,
        hints: McpHints,
    ) -> Self {
        let strict = Schema::compile(&schema)
            .ok()
            .filter(|_| schema.get("type") == Some(&Value::from("object")));
        McpToolSpec {
            name,
            server,
            tool,
            description,
            schema,
            hints,
            strict,
        }
    }

    /// Whether the schema is sent with `strict: true`.
    pub fn is_strict(&self) -> bool {
        self.strict.is_some()
    }

    /// The description the model sees: the server's, or a line naming the tool when it gave
    /// none (providers refuse an empty one).
    pub fn shown_description(&self) -> String {
        if self.description.trim().is_empty() {
            format!("Tool `{}` of MCP server `{}`.", self.tool, self.server)
        } else {
            self.description.clone()
        }
    }

    /// Checks a parsed arguments value: an object, and valid for a strict schema.
    pub(crate) fn check(
        &self,
        value: Value,
    ) -> Result<Map<String, Value>, super::schema::Violation> {
        if let Some(schema) = &self.strict {
            schema.validate(&value)?;
        }
        match value {
            Value::Object(map) => Ok(map),
            _ => Err(super::schema::Violation {
                path: String::new(),
                problem: "the arguments must be a JSON object".into(),
                hint: "send an object of the tool's parameters".into(),
            }),
        }
    }
}

/// The validated arguments of one MCP call: which server and tool, and the object sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpArgs {
    /// The server.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The arguments object, exactly as the model sent it.
    pub arguments: Map<String, Value>,
    /// What the tool declared when it was offered.
    pub hints: McpHints,
}

impl McpArgs {
    /// The short line of a status row: `SERVER TOOL`.
    pub fn target(&self) -> String {
        format!("{} {}", self.server, self.tool)
    }
}

#[cfg(test)]
mod tests;
