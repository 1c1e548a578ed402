//! The standard tool set: schemas with exactly the argument shapes of the spec, and their parsers.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::args::{
    EditArgs, EvidenceArgs, ExecArgs, FilesArgs, GetTestValueArgs, ListArgs, RawExecArgs, ReadArgs,
    SearchArgs, SnapshotArgs, ToolArgs,
};
use super::schema::Violation;
use super::spec::ToolSpec;

/// Deserializes schema-valid arguments; a failure here means schema and struct disagree.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, Violation> {
    serde_json::from_value(value).map_err(|err| Violation {
        path: String::new(),
        problem: format!("could not be decoded ({err})"),
        hint: "send exactly the properties and types in the tool's schema".to_owned(),
    })
}

/// Paths are relative to the working directory (the base prompt says so once).
fn paths() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn depth() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 64, "description": "0 = the path only."})
}

fn text_or_null(what: &str) -> Value {
    json!({"type": ["string", "null"], "description": what})
}

fn read() -> ToolSpec {
    ToolSpec {
        name: "read",
        description: "Read files as numbered lines (or bytes); length null reads to the end.",
        schema: object(
            json!({
                "paths": paths(),
                "mode": {"type": "string", "enum": ["lines", "bytes"]},
                "offset": {"type": "integer", "minimum": 0, "description": "1-based line or 0-based byte."},
                "length": {"type": ["integer", "null"], "minimum": 1}
            }),
            &["paths", "mode", "offset", "length"],
        ),
        read_only: true,
        implementation_revision: 3,
        unoffered_defaults: &[],
        parse: |value| {
            let args: ReadArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Read(args))
        },
    }
}

fn list() -> ToolSpec {
    ToolSpec {
        name: "list",
        description: "List directory entries (symlinks not followed).",
        schema: object(
            json!({
                "paths": paths(),
                "depth": depth(),
                "include_hidden": {"type": "boolean"},
                "kind": {"type": "string", "enum": ["all", "files", "dirs"]}
            }),
            &["paths", "depth", "include_hidden", "kind"],
        ),
        read_only: true,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: ListArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::List(args))
        },
    }
}

fn search() -> ToolSpec {
    ToolSpec {
        name: "search",
        description: "Find text or a regex in files.",
        schema: object(
            json!({
                "query": {"type": "string"},
                "paths": paths(),
                "regex": {"type": "boolean", "description": "Rust regex syntax."},
                "case_insensitive": {"type": "boolean"},
                "include_hidden": {"type": "boolean"}
            }),
            &[
                "query",
                "paths",
                "regex",
                "case_insensitive",
                "include_hidden",
            ],
        ),
        read_only: true,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: SearchArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Search(args))
        },
    }
}

fn snapshot() -> ToolSpec {
    ToolSpec {
        name: "snapshot",
        description: "Record a tree's state as r:@N, or list changes since that baseline.",
        schema: object(
            json!({
                "paths": paths(),
                "depth": depth(),
                "include_hidden": {"type": "boolean"},
                "baseline": text_or_null("r:@N of an earlier snapshot with the same arguments, or null.")
            }),
            &["paths", "depth", "include_hidden", "baseline"],
        ),
        read_only: true,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: SnapshotArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Snapshot(args))
        },
    }
}

fn evidence() -> ToolSpec {
    ToolSpec {
        name: "evidence",
        description: "Read or search a retained @N instead of re-running.",
        schema: object(
            json!({
                "ref": {"type": "string"},
                "kind": {"type": "string", "enum": ["lines", "bytes", "search"]},
                "offset": {"type": "integer", "minimum": 0, "description": "1-based line, or 0-based byte."},
                "length": {"type": ["integer", "null"], "minimum": 1, "description": "null = to the end."},
                "query": {"type": ["string", "null"]},
                "regex": {"type": "boolean"},
                "case_insensitive": {"type": "boolean"}
            }),
            &[
                "ref",
                "kind",
                "offset",
                "length",
                "query",
                "regex",
                "case_insensitive",
            ],
        ),
        read_only: true,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: EvidenceArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Evidence(args))
        },
    }
}

/// Whether the session's commands run in an OS sandbox: only then does `exec` offer
/// `outside_sandbox`, which otherwise would cost every request its tokens and mean nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxArgument {
    /// No sandbox is configured: `exec` has no `outside_sandbox`.
    Absent,
    /// A sandbox is configured: `exec` offers `outside_sandbox`.
    Offered,
}

fn exec(sandbox: SandboxArgument) -> ToolSpec {
    let mut properties = json!({
        "program": {"type": "string"},
        "args": {"type": "array", "items": {"type": "string"}},
        "cwd": {"type": "string", "description": "\".\" = working dir."},
        "env": {"type": "array", "items": {"type": "string"}, "description": "Usually []. NAME=value or -NAME."},
        "stdin": {"type": ["string", "null"], "description": "Usually null."},
        "timeout_ms": {"type": ["integer", "null"], "minimum": 1, "maximum": 600000, "description": "Usually null (default)."}
    });
    let mut required = vec!["program", "args", "cwd", "env", "stdin", "timeout_ms"];
    let unoffered_defaults: &'static [(&'static str, &'static str)] = match sandbox {
        SandboxArgument::Offered => {
            properties["outside_sandbox"] = json!({"type": ["boolean", "null"], "description": "null/false (normal) = inside the OS sandbox. true = ask the user to run this one command outside it; only after the sandbox denied something needed."});
            required.push("outside_sandbox");
            &[]
        }
        SandboxArgument::Absent => &[(
            "outside_sandbox",
            "this session has no OS sandbox: every command already runs with the user's rights",
        )],
    };
    ToolSpec {
        name: "exec",
        description: "Run a program without a shell.",
        schema: object(properties, &required),
        read_only: false,
        implementation_revision: 3,
        unoffered_defaults,
        parse: |value| {
            let raw: RawExecArgs = typed(value)?;
            Ok(ToolArgs::Exec(ExecArgs::try_from(raw)?))
        },
    }
}

fn edit() -> ToolSpec {
    ToolSpec {
        name: "edit",
        description: "Replace exact text in files, all or nothing; each old must occur once in the file.",
        schema: object(
            json!({
                "files": {
                    "type": "array",
                    "items": object(
                        json!({
                            "path": {"type": "string"},
                            "edits": {
                                "type": "array",
                                "items": object(
                                    json!({
                                        "old": {"type": "string"},
                                        "new": {"type": "string"}
                                    }),
                                    &["old", "new"],
                                )
                            }
                        }),
                        &["path", "edits"],
                    )
                }
            }),
            &["files"],
        ),
        read_only: false,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: EditArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Edit(args))
        },
    }
}

fn files() -> ToolSpec {
    ToolSpec {
        name: "files",
        description: "Create, copy, move or remove files, all or nothing; never overwrites.",
        schema: object(
            json!({
                "actions": {
                    "type": "array",
                    "items": object(
                        json!({
                            "kind": {"type": "string", "enum": ["create", "copy", "move", "remove"]},
                            "path": {"type": "string"},
                            "to": text_or_null("For copy, move."),
                            "content": text_or_null("For create.")
                        }),
                        &["kind", "path", "to", "content"],
                    )
                }
            }),
            &["actions"],
        ),
        read_only: false,
        implementation_revision: 2,
        unoffered_defaults: &[],
        parse: |value| {
            let args: FilesArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Files(args))
        },
    }
}

fn get_test_value() -> ToolSpec {
    ToolSpec {
        name: "get_test_value",
        description: "Return the deterministic test value for a key (offline profile).",
        schema: object(
            json!({"key": {"type": "string", "description": "The key to look up."}}),
            &["key"],
        ),
        read_only: true,
        implementation_revision: 1,
        unoffered_defaults: &[],
        parse: |value| Ok(ToolArgs::GetTestValue(typed::<GetTestValueArgs>(value)?)),
    }
}

/// The standard tools in the order providers see them: the live profile's set, for a session
/// without an OS sandbox (the default).
pub fn standard_specs() -> Vec<ToolSpec> {
    standard_specs_with(SandboxArgument::Absent)
}

/// The standard tools, with `exec`'s sandbox argument as the session's sandbox needs it.
pub fn standard_specs_with(sandbox: SandboxArgument) -> Vec<ToolSpec> {
    vec![
        read(),
        list(),
        search(),
        snapshot(),
        evidence(),
        exec(sandbox),
        edit(),
        files(),
        super::delegate::spec(),
    ]
}

/// True when a call of tool `name` can change the workspace (a checkpoint is taken before the
/// first one of a turn); a name no tool has counts as one, so nothing goes uncaptured.
pub fn can_change_workspace(name: &str) -> bool {
    // Asked for every journaled call when a checkpoint list is built: the specs (with their
    // schemas) are built once.
    static READ_ONLY: std::sync::OnceLock<Vec<(&'static str, bool)>> = std::sync::OnceLock::new();
    READ_ONLY
        .get_or_init(|| {
            offline_specs()
                .iter()
                .map(|s| (s.name, s.read_only))
                .collect()
        })
        .iter()
        .find(|(n, _)| *n == name)
        .is_none_or(|(_, read_only)| !read_only)
}

/// The offline profile's tools: the standard set and `get_test_value`.
pub fn offline_specs() -> Vec<ToolSpec> {
    offline_specs_with(SandboxArgument::Absent)
}

/// The offline profile's tools, with `exec`'s sandbox argument as the session's sandbox needs.
pub fn offline_specs_with(sandbox: SandboxArgument) -> Vec<ToolSpec> {
    let mut specs = standard_specs_with(sandbox);
    specs.push(get_test_value());
    specs
}

#[cfg(test)]
mod tests;
