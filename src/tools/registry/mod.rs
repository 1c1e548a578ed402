//! The registry of compiled tool descriptors, mode filtering, and admission of tool calls.

use serde::Serialize;
use serde_json::Value;

use super::args::ToolArgs;
use super::error::{RegistryError, ToolCallError};
use super::mcp::McpToolSpec;
use super::schema::{Schema, Violation};
use super::spec::ToolSpec;
use super::standard::{SandboxArgument, offline_specs_with, standard_specs_with};

mod dynamic;

/// A registered tool: its provider-facing view plus the compiled validator.
#[derive(Debug, Clone)]
pub struct ToolDescriptor {
    spec: ToolSpec,
    compiled: Schema,
}

impl ToolDescriptor {
    /// The tool's name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The tool's description.
    pub fn description(&self) -> &'static str {
        self.spec.description
    }

    /// The schema document as registered.
    pub fn schema(&self) -> &Value {
        &self.spec.schema
    }

    /// Whether the tool is offered in plan mode.
    pub fn read_only(&self) -> bool {
        self.spec.read_only
    }

    /// Whether this is orchestrate mode's `delegate`.
    pub fn delegates(&self) -> bool {
        self.spec.name == super::delegate::DELEGATE_TOOL
    }

    /// The implementation revision.
    pub fn implementation_revision(&self) -> u32 {
        self.spec.implementation_revision
    }

    /// Validates raw JSON arguments into typed ones; nothing is executed on failure.
    pub fn validate(&self, arguments: &str) -> Result<ToolArgs, ToolCallError> {
        let tool = self.spec.name.to_owned();
        let mut value: Value =
            serde_json::from_str(arguments).map_err(|err| ToolCallError::BadJson {
                tool: tool.clone(),
                line: err.line(),
                column: err.column(),
                detail: strip_position(&err.to_string()),
            })?;
        let invalid = |violation: Violation| ToolCallError::InvalidArguments {
            tool: tool.clone(),
            path: violation.path,
            problem: violation.problem,
            hint: violation.hint,
        };
        drop_unoffered_defaults(self.spec.unoffered_defaults, &mut value).map_err(invalid)?;
        self.compiled.validate(&value).map_err(invalid)?;
        (self.spec.parse)(value).map_err(invalid)
    }
}

/// Removes the properties a tool does not offer when they carry their default (`null` or
/// `false`); any other value is refused by name, since it asks for something this session
/// cannot do.
fn drop_unoffered_defaults(unoffered: &[(&str, &str)], value: &mut Value) -> Result<(), Violation> {
    let Value::Object(map) = value else {
        return Ok(());
    };
    for &(name, why) in unoffered {
        match map.get(name) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {
                map.remove(name);
            }
            Some(other) => {
                return Err(Violation {
                    path: name.to_owned(),
                    problem: format!("is {other}, but {why}"),
                    hint: format!("omit `{name}`"),
                });
            }
        }
    }
    Ok(())
}

/// Removes `minimum`/`maximum` from a schema and every schema inside it.
fn strip_bounds(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.remove("minimum");
            map.remove("maximum");
            if let Some(Value::Object(props)) = map.get_mut("properties") {
                props.values_mut().for_each(strip_bounds);
            }
            if let Some(items) = map.get_mut("items") {
                strip_bounds(items);
            }
        }
        Value::Array(list) => list.iter_mut().for_each(strip_bounds),
        _ => {}
    }
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

/// The mode of a turn (the session protocol's): `Plan` offers and accepts only `read_only`
/// tools.
pub use ansa_sessions::Mode;

fn admits(mode: Mode, descriptor: &ToolDescriptor) -> bool {
    match mode {
        Mode::Orchestrate => true,
        // Children run in basic or plan mode: only an orchestrating turn delegates.
        Mode::Basic => !descriptor.delegates(),
        Mode::Plan => descriptor.read_only(),
    }
}

/// The provider-facing view of one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderTool {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
    /// Whether the provider is asked to enforce the schema (`strict: true`): every standard
    /// tool; an MCP tool only when its schema meets the strict rules.
    pub strict: bool,
}

/// A call that passed admission: ready for an executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmittedCall {
    /// Tool name (an MCP tool's is owned, see `dynamic.rs`).
    pub name: String,
    /// Revision of the implementation that will run it.
    pub implementation_revision: u32,
    /// Typed arguments.
    pub args: ToolArgs,
}

/// Compiled tools in registration order, which is the order providers see.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<ToolDescriptor>,
    /// The MCP servers' tools of this request, after the standard ones (`dynamic.rs`).
    mcp: Vec<McpToolSpec>,
    /// MCP tools offered before whose server is gone now: admitted, not offered.
    mcp_withdrawn: Vec<McpToolSpec>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The standard tool set of the spec: what a live session offers.
    pub fn standard() -> Result<Self, RegistryError> {
        Self::of(standard_specs_with(SandboxArgument::Absent))
    }

    /// The offline profile's set: the standard tools and `get_test_value`.
    pub fn offline() -> Result<Self, RegistryError> {
        Self::of(offline_specs_with(SandboxArgument::Absent))
    }

    /// The registry of a session without an OS sandbox, of the given profile.
    pub fn for_profile(offline: bool) -> Result<Self, RegistryError> {
        Self::for_session(offline, SandboxArgument::Absent)
    }

    /// The registry of a session: its profile, and whether `exec` offers the sandbox argument.
    pub fn for_session(offline: bool, sandbox: SandboxArgument) -> Result<Self, RegistryError> {
        if offline {
            Self::of(offline_specs_with(sandbox))
        } else {
            Self::of(standard_specs_with(sandbox))
        }
    }

    fn of(specs: Vec<ToolSpec>) -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        for spec in specs {
            registry.register(spec)?;
        }
        Ok(registry)
    }

    /// Compiles and adds a tool; rejects bad names, duplicates and non-strict or unknown schema keywords.
    pub fn register(&mut self, spec: ToolSpec) -> Result<(), RegistryError> {
        let name = spec.name;
        let valid_name = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid_name {
            return Err(RegistryError::BadName {
                name: name.to_owned(),
            });
        }
        if self.get(name).is_some() {
            return Err(RegistryError::Duplicate {
                name: name.to_owned(),
            });
        }
        if spec.description.trim().is_empty() {
            return Err(RegistryError::NoDescription {
                name: name.to_owned(),
            });
        }
        let compiled = Schema::compile(&spec.schema).map_err(|source| RegistryError::Schema {
            name: name.to_owned(),
            source,
        })?;
        if spec.schema.get("type") != Some(&Value::from("object")) {
            return Err(RegistryError::NotAnObject {
                name: name.to_owned(),
            });
        }
        self.tools.push(ToolDescriptor { spec, compiled });
        Ok(())
    }

    /// The descriptor named `name`, whatever the mode.
    pub fn get(&self, name: &str) -> Option<&ToolDescriptor> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    /// Descriptors offered in `mode`, in registration order.
    pub fn tools(&self, mode: Mode) -> impl Iterator<Item = &ToolDescriptor> {
        self.tools.iter().filter(move |tool| admits(mode, tool))
    }

    /// What the provider is shown in `mode`: names, descriptions and schemas, without the
    /// numeric bounds, which admission enforces with a precise message instead (they cost
    /// tokens on every request and rarely change what a model sends).
    pub fn provider_tools(&self, mode: Mode) -> Vec<ProviderTool> {
        self.tools(mode)
            .map(|tool| {
                let mut parameters = tool.schema().clone();
                strip_bounds(&mut parameters);
                ProviderTool {
                    name: tool.name().to_owned(),
                    description: tool.description().to_owned(),
                    parameters,
                    strict: true,
                }
            })
            .chain(self.mcp_provider_tools(mode))
            .collect()
    }

    /// Admits one model tool call in `mode`: the tool must be offered and its arguments valid.
    pub fn admit(
        &self,
        mode: Mode,
        name: &str,
        arguments: &str,
    ) -> Result<AdmittedCall, ToolCallError> {
        if let Some(tool) = self.mcp_callable(name) {
            return self.admit_mcp(mode, tool, arguments);
        }
        let Some(tool) = self.get(name) else {
            return Err(ToolCallError::UnknownTool {
                name: name.to_owned(),
                available: self.names(mode),
            });
        };
        if !admits(mode, tool) {
            return Err(ToolCallError::NotInMode {
                name: name.to_owned(),
                mode,
                available: self.names(mode),
            });
        }
        Ok(AdmittedCall {
            name: tool.name().to_owned(),
            implementation_revision: tool.implementation_revision(),
            args: tool.validate(arguments)?,
        })
    }

    fn names(&self, mode: Mode) -> Vec<String> {
        self.tools(mode)
            .map(|tool| tool.name().to_owned())
            .chain(self.mcp_names(mode))
            .collect()
    }
}

#[cfg(test)]
mod tests;
