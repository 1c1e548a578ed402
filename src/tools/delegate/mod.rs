//! The `delegate` tool of orchestrate mode: one or more child tasks, each run by a child agent
//! with its own context on the same workspace (the runtime runs them:
//! `src/runtime/orchestrate/`; docs/orchestrate.md). Offered only in orchestrate mode, so a
//! child (basic or plan mode) can never delegate.

use serde::Deserialize;
use serde_json::{Value, json};

pub use ansa_sessions::child::{ChildProfile, DELEGATE_TOOL};

use super::args::ToolArgs;
use super::schema::Violation;
use super::spec::ToolSpec;

/// Most children one call may start (more wait for a slot: config `max_children`).
pub const MAX_TASKS: usize = 8;
/// Longest instruction of one child, in bytes.
pub const MAX_INSTRUCTION_BYTES: usize = 16 * 1024;
/// Most scope hints of one child.
pub const MAX_SCOPE: usize = 32;

/// `delegate`: the children to run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelegateArgs {
    /// The tasks, in the order their results come back.
    pub tasks: Vec<DelegateTask>,
}

/// One child task.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelegateTask {
    /// Everything the child needs to know: it does not see the parent's conversation.
    pub instruction: String,
    /// Its tools.
    pub profile: ChildProfile,
    /// Paths the child should work in (a hint written into its task, not a boundary).
    pub scope: Vec<String>,
}

impl DelegateArgs {
    fn check(&self) -> Result<(), Violation> {
        let bad = |path: String, problem: &str, hint: &str| Violation {
            path,
            problem: problem.to_owned(),
            hint: hint.to_owned(),
        };
        if self.tasks.is_empty() || self.tasks.len() > MAX_TASKS {
            return Err(bad(
                "tasks".into(),
                &format!("has {} tasks", self.tasks.len()),
                &format!("send 1 to {MAX_TASKS} tasks"),
            ));
        }
        for (i, task) in self.tasks.iter().enumerate() {
            if task.instruction.trim().is_empty() {
                return Err(bad(
                    format!("tasks[{i}].instruction"),
                    "is empty",
                    "write a self-contained instruction",
                ));
            }
            if task.instruction.len() > MAX_INSTRUCTION_BYTES {
                return Err(bad(
                    format!("tasks[{i}].instruction"),
                    &format!("is {} bytes", task.instruction.len()),
                    &format!("keep it under {MAX_INSTRUCTION_BYTES} bytes"),
                ));
            }
            if task.scope.len() > MAX_SCOPE {
                return Err(bad(
                    format!("tasks[{i}].scope"),
                    &format!("has {} paths", task.scope.len()),
                    &format!("name at most {MAX_SCOPE} paths"),
                ));
            }
        }
        Ok(())
    }

    /// The text a child's turn starts from: its instruction, and the scope hint when given.
    pub fn task_text(task: &DelegateTask) -> String {
        if task.scope.is_empty() {
            return task.instruction.clone();
        }
        format!(
            "{}\n\nWork in these paths (relative to the working directory): {}",
            task.instruction,
            task.scope.join(", ")
        )
    }
}

/// The tool's definition.
pub fn spec() -> ToolSpec {
    ToolSpec {
        name: DELEGATE_TOOL,
        description: "Run child agents in parallel on this workspace. Each task gets a fresh agent that sees only its instruction (write it self-contained: goal, files, constraints, what to report), the project instructions and the environment. profile read_only: read tools only; full: every tool. The result is each child's final answer and a retained @N with its whole transcript (read it with evidence). Children editing the same file may see stale-read errors and re-read.",
        schema: json!({
            "type": "object",
            "properties": {
                "tasks": {
                    "type": "array",
                    "description": "1 to 8 tasks; at most max_children run at once, the rest wait.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "instruction": {"type": "string"},
                            "profile": {"type": "string", "enum": ["read_only", "full"]},
                            "scope": {"type": "array", "items": {"type": "string"}, "description": "Paths the child should work in; may be empty."}
                        },
                        "required": ["instruction", "profile", "scope"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["tasks"],
            "additionalProperties": false
        }),
        read_only: false,
        implementation_revision: 1,
        unoffered_defaults: &[],
        parse,
    }
}

fn parse(value: Value) -> Result<ToolArgs, Violation> {
    let args: DelegateArgs = serde_json::from_value(value).map_err(|err| Violation {
        path: String::new(),
        problem: format!("could not be decoded ({err})"),
        hint: "send exactly the properties and types in the tool's schema".to_owned(),
    })?;
    args.check()?;
    Ok(ToolArgs::Delegate(args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Mode, ToolRegistry};

    #[test]
    fn delegate_is_offered_only_in_orchestrate_mode() {
        let registry = ToolRegistry::offline().unwrap();
        let names = |mode| {
            registry
                .provider_tools(mode)
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
        };
        assert!(names(Mode::Orchestrate).contains(&DELEGATE_TOOL.to_owned()));
        assert!(!names(Mode::Basic).contains(&DELEGATE_TOOL.to_owned()));
        assert!(!names(Mode::Plan).contains(&DELEGATE_TOOL.to_owned()));
        let call = r#"{"tasks":[{"instruction":"x","profile":"full","scope":[]}]}"#;
        assert!(registry.admit(Mode::Basic, DELEGATE_TOOL, call).is_err());
        assert!(
            registry
                .admit(Mode::Orchestrate, DELEGATE_TOOL, call)
                .is_ok()
        );
        // Orchestrate mode has every basic tool too.
        assert!(names(Mode::Orchestrate).contains(&"edit".to_owned()));
    }

    #[test]
    fn bad_tasks_are_refused_with_the_field() {
        let registry = ToolRegistry::offline().unwrap();
        let empty = r#"{"tasks":[{"instruction":"  ","profile":"full","scope":[]}]}"#;
        let err = registry
            .admit(Mode::Orchestrate, DELEGATE_TOOL, empty)
            .unwrap_err();
        assert!(err.to_string().contains("tasks[0].instruction"), "{err}");
        let none = r#"{"tasks":[]}"#;
        assert!(
            registry
                .admit(Mode::Orchestrate, DELEGATE_TOOL, none)
                .is_err()
        );
    }
}
