//! What a tool author writes: a tool's name, description, strict schema and validator, before
//! the registry compiles it.

use serde_json::Value;

use super::args::ToolArgs;
use super::schema::Violation;

/// Turns schema-valid arguments into typed ones, applying domain rules the schema cannot express.
pub type ParseFn = fn(Value) -> Result<ToolArgs, Violation>;

/// What a tool author writes: compiled into a [`ToolDescriptor`] by [`ToolRegistry::register`].
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Name the model calls.
    pub name: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// Strict JSON schema of the arguments object.
    pub schema: Value,
    /// Whether the tool never mutates anything (offered in plan mode).
    pub read_only: bool,
    /// Bumped whenever the implementation's behaviour changes (bound into sessions).
    pub implementation_revision: u32,
    /// Validator producing typed arguments.
    pub parse: ParseFn,
    /// Properties this variant of the tool does not offer that a call may still carry as
    /// `null` or `false` (what they mean when absent): dropped before validation, so a model
    /// or script that learned the other variant is not refused for saying "the default".
    /// Each entry is the property and why this variant does not offer it.
    pub unoffered_defaults: &'static [(&'static str, &'static str)],
}
