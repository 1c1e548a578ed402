//! A server's tool as ansa offers it to the model.

use rmcp::model::Tool;

use crate::config::ServerName;

/// The tool's behaviour hints (`annotations`); absent hints take the spec's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolHints {
    pub read_only: bool,
    pub idempotent: bool,
    pub destructive: bool,
    pub open_world: bool,
}

impl Default for ToolHints {
    /// The spec's defaults: not read-only, not idempotent, destructive, open world.
    fn default() -> Self {
        Self {
            read_only: false,
            idempotent: false,
            destructive: true,
            open_world: true,
        }
    }
}

/// One tool of one ready server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub server: ServerName,
    /// The name the server knows it by (what `call` takes), untouched.
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: serde_json::Value,
    pub hints: ToolHints,
}

impl McpTool {
    /// Converts rmcp's tool; the title is the tool's own, else its annotations'.
    pub fn from_rmcp(server: &ServerName, tool: Tool) -> Self {
        let defaults = ToolHints::default();
        let annotations = tool.annotations.as_ref();
        let hints = ToolHints {
            read_only: annotations
                .and_then(|a| a.read_only_hint)
                .unwrap_or(defaults.read_only),
            idempotent: annotations
                .and_then(|a| a.idempotent_hint)
                .unwrap_or(defaults.idempotent),
            destructive: annotations
                .and_then(|a| a.destructive_hint)
                .unwrap_or(defaults.destructive),
            open_world: annotations
                .and_then(|a| a.open_world_hint)
                .unwrap_or(defaults.open_world),
        };
        let title = tool
            .title
            .clone()
            .or_else(|| annotations.and_then(|a| a.title.clone()));
        Self {
            server: server.clone(),
            name: tool.name.into_owned(),
            title,
            description: tool.description.map(|d| d.into_owned()).unwrap_or_default(),
            input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
            hints,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_default_per_spec_and_are_read_from_annotations()
    -> Result<(), Box<dyn std::error::Error>> {
        let server = ServerName::new("s")?;
        let bare: Tool =
            serde_json::from_value(json!({"name": "a", "inputSchema": {"type": "object"}}))?;
        let bare = McpTool::from_rmcp(&server, bare);
        assert_eq!(bare.hints, ToolHints::default());
        assert_eq!(bare.description, "");
        let annotated: Tool = serde_json::from_value(json!({
            "name": "b", "description": "reads", "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"title": "B", "readOnlyHint": true, "idempotentHint": true, "destructiveHint": false, "openWorldHint": false}
        }))?;
        let annotated = McpTool::from_rmcp(&server, annotated);
        assert_eq!(
            annotated.hints,
            ToolHints {
                read_only: true,
                idempotent: true,
                destructive: false,
                open_world: false
            }
        );
        assert_eq!(annotated.title.as_deref(), Some("B"));
        assert_eq!(
            annotated.input_schema,
            json!({"type": "object", "properties": {}})
        );
        Ok(())
    }
}
