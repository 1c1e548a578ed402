//! Errors of tool registration (programmer-facing) and tool-call admission (model-facing).

use super::schema::SchemaError;
use ansa_sessions::Mode;

/// A tool that could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Names are what models type: lowercase ASCII, digits and `_`, at most 64 bytes.
    #[error("tool name {name:?} is invalid (use 1-64 of a-z, 0-9, _)")]
    BadName {
        /// The rejected name.
        name: String,
    },
    /// Two tools with one name would make calls ambiguous.
    #[error("tool `{name}` is already registered")]
    Duplicate {
        /// The duplicated name.
        name: String,
    },
    /// The model only sees the description; an empty one is useless.
    #[error("tool `{name}` has an empty description")]
    NoDescription {
        /// The tool.
        name: String,
    },
    /// Arguments are always a JSON object.
    #[error("tool `{name}`: the schema root must be a non-nullable object")]
    NotAnObject {
        /// The tool.
        name: String,
    },
    /// The schema uses an unknown keyword or is not strict.
    #[error("tool `{name}`: {source}")]
    Schema {
        /// The tool.
        name: String,
        /// What is wrong with the schema.
        source: SchemaError,
    },
}

/// Why a model's tool call was refused; the `Display` text is the tool output the model gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// No tool has that name.
    #[error("Unknown tool `{name}`. Nothing was executed. Call one of the available tools: {}.", .available.join(", "))]
    UnknownTool {
        /// The name the model used.
        name: String,
        /// Tools offered in the current mode.
        available: Vec<String>,
    },
    /// The tool exists but the current mode does not offer it.
    #[error("Tool `{name}` is not available in {} mode (it can change files or run commands). Nothing was executed. Use one of: {}.", mode_name(*.mode), .available.join(", "))]
    NotInMode {
        /// The tool.
        name: String,
        /// The current mode.
        mode: Mode,
        /// Tools offered in that mode.
        available: Vec<String>,
    },
    /// The arguments string is not one JSON value.
    #[error(
        "The arguments for tool `{tool}` are not valid JSON: {detail} (line {line}, column {column}). Nothing was executed. Send a single JSON object that matches the tool's schema."
    )]
    BadJson {
        /// The tool.
        tool: String,
        /// 1-based line of the error in the arguments string.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's explanation.
        detail: String,
    },
    /// The arguments violate the schema or a domain rule.
    #[error("Invalid arguments for tool `{tool}`: {}: {problem}. Nothing was executed. Fix: {hint}.", location(.path))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Where in the arguments (`edits[1].old`); empty for the object itself.
        path: String,
        /// What is wrong.
        problem: String,
        /// What to do instead.
        hint: String,
    },
}

fn location(path: &str) -> String {
    if path.is_empty() {
        "the arguments object".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Basic => "basic",
        Mode::Plan => "plan",
        Mode::Orchestrate => "orchestrate",
    }
}
