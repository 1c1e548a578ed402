//! The standard tool set: schemas with exactly the argument shapes of the spec, and their parsers.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::args::{
    EditArgs, EvidenceArgs, ExecArgs, FilesArgs, GetTestValueArgs, ListArgs, RawExecArgs, ReadArgs,
    SearchArgs, SnapshotArgs, ToolArgs,
};
use super::registry::ToolSpec;
use super::schema::Violation;

/// Deserializes schema-valid arguments; a failure here means schema and struct disagree.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, Violation> {
    serde_json::from_value(value).map_err(|err| Violation {
        path: String::new(),
        problem: format!("could not be decoded ({err})"),
        hint: "send exactly the properties and types in the tool's schema".to_owned(),
    })
}

fn paths(what: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": what})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn flag(what: &str) -> Value {
    json!({"type": "boolean", "description": what})
}

fn depth() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 64, "description": "Levels below each path; 0 = the path only."})
}

fn text_or_null(what: &str) -> Value {
    json!({"type": ["string", "null"], "description": what})
}

const HIDDEN: &str = "Include names starting with a dot.";

fn read() -> ToolSpec {
    ToolSpec {
        name: "read",
        description: "Read line or byte ranges of files.",
        schema: object(
            json!({
                "paths": paths("Relative paths."),
                "mode": {"type": "string", "enum": ["lines", "bytes"]},
                "offset": {"type": "integer", "minimum": 0, "description": "First line (1-based) or byte (0-based)."},
                "length": {"type": "integer", "minimum": 1, "description": "Lines or bytes."}
            }),
            &["paths", "mode", "offset", "length"],
        ),
        read_only: true,
        implementation_revision: 2,
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
        description: "List directory entries with kind and size, sorted by path; symlinks are not followed.",
        schema: object(
            json!({
                "paths": paths("Relative directories (\".\" for the working directory)."),
                "depth": depth(),
                "include_hidden": flag(HIDDEN),
                "kind": {"type": "string", "enum": ["all", "files", "dirs"]}
            }),
            &["paths", "depth", "include_hidden", "kind"],
        ),
        read_only: true,
        implementation_revision: 2,
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
        description: "Find the lines of files that contain a text or regex (first match per line).",
        schema: object(
            json!({
                "query": {"type": "string"},
                "paths": paths("Relative files or directories."),
                "regex": flag("The query is a Rust regex."),
                "case_insensitive": flag("Ignore case."),
                "include_hidden": flag(HIDDEN)
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
        description: "Record the state of a tree (kept as r:@N), or, given such a baseline, list what changed since.",
        schema: object(
            json!({
                "paths": paths("Relative directories."),
                "depth": depth(),
                "include_hidden": flag(HIDDEN),
                "baseline": text_or_null("The r:@N of an earlier snapshot with the same paths, depth and include_hidden, or null.")
            }),
            &["paths", "depth", "include_hidden", "baseline"],
        ),
        read_only: true,
        implementation_revision: 2,
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
        description: "Read or search a retained value (@N from r, ro or re) instead of re-running the tool.",
        schema: object(
            json!({
                "ref": {"type": "string", "description": "\"@N\"."},
                "kind": {"type": "string", "enum": ["lines", "bytes", "search"]},
                "offset": {"type": "integer", "minimum": 0, "description": "First line (1-based) or byte (0-based; also for search)."},
                "length": {"type": ["integer", "null"], "minimum": 1, "description": "Lines or bytes; null = to the end."},
                "query": text_or_null("Search only."),
                "regex": flag("The query is a regex."),
                "case_insensitive": flag("Ignore case.")
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
        parse: |value| {
            let args: EvidenceArgs = typed(value)?;
            args.check()?;
            Ok(ToolArgs::Evidence(args))
        },
    }
}

fn exec() -> ToolSpec {
    ToolSpec {
        name: "exec",
        description: "Run a program with arguments, without a shell (for one: program \"sh\", args [\"-c\", script]).",
        schema: object(
            json!({
                "program": {"type": "string", "description": "A name looked up in PATH, or a relative path."},
                "args": {"type": "array", "items": {"type": "string"}},
                "cwd": {"type": "string", "description": "Relative directory; \".\" for the working directory."},
                "env": {"type": "array", "items": {"type": "string"}, "description": "\"NAME=value\" sets, \"-NAME\" removes."},
                "stdin": text_or_null("Standard input, or null."),
                "timeout_ms": {"type": ["integer", "null"], "minimum": 1, "maximum": 600000, "description": "Null = the configured default."}
            }),
            &["program", "args", "cwd", "env", "stdin", "timeout_ms"],
        ),
        read_only: false,
        implementation_revision: 2,
        parse: |value| {
            let raw: RawExecArgs = typed(value)?;
            Ok(ToolArgs::Exec(ExecArgs::try_from(raw)?))
        },
    }
}

fn edit() -> ToolSpec {
    ToolSpec {
        name: "edit",
        description: "Replace exact text in one or more files, all or nothing. Each old must occur exactly once in the file as you last read it; a file changed since conflicts.",
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
                            "to": text_or_null("Destination of copy and move."),
                            "content": text_or_null("Content of create.")
                        }),
                        &["kind", "path", "to", "content"],
                    )
                }
            }),
            &["actions"],
        ),
        read_only: false,
        implementation_revision: 2,
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
        parse: |value| Ok(ToolArgs::GetTestValue(typed::<GetTestValueArgs>(value)?)),
    }
}

/// The standard tools in the order providers see them: the live profile's set.
pub fn standard_specs() -> Vec<ToolSpec> {
    vec![
        read(),
        list(),
        search(),
        snapshot(),
        evidence(),
        exec(),
        edit(),
        files(),
    ]
}

/// The offline profile's tools: the standard set and `get_test_value`.
pub fn offline_specs() -> Vec<ToolSpec> {
    let mut specs = standard_specs();
    specs.push(get_test_value());
    specs
}

#[cfg(test)]
#[path = "standard_tests.rs"]
mod tests;
