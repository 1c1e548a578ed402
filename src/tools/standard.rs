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

fn depth() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 64, "description": "How many levels below each root (0 = the root only)."})
}

fn hidden() -> Value {
    json!({"type": "boolean", "description": "Include entries whose name starts with a dot."})
}

fn read() -> ToolSpec {
    ToolSpec {
        name: "read",
        description: "Read line or byte ranges of files. Returns the text and each file's BLAKE3 digest (needed by `edit`).",
        schema: object(
            json!({
                "paths": paths("Files to read, relative to the working directory."),
                "mode": {"type": "string", "enum": ["lines", "bytes"], "description": "Whether offset and length count lines or bytes."},
                "offset": {"type": "integer", "minimum": 0, "description": "First line (1-based) in lines mode, first byte (0-based) in bytes mode."},
                "length": {"type": "integer", "minimum": 1, "description": "Number of lines or bytes to read."}
            }),
            &["paths", "mode", "offset", "length"],
        ),
        read_only: true,
        implementation_revision: 1,
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
        description: "List directory entries (path, kind, size), sorted by path. Symlinks are listed, not followed.",
        schema: object(
            json!({
                "paths": paths("Directories to walk, relative to the working directory."),
                "depth": depth(),
                "include_hidden": hidden(),
                "kind": {"type": "string", "enum": ["all", "files", "dirs"], "description": "Which entries to list."}
            }),
            &["paths", "depth", "include_hidden", "kind"],
        ),
        read_only: true,
        implementation_revision: 1,
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
        description: "Search files for text: the first match on each line, with line, byte column and the whole line.",
        schema: object(
            json!({
                "query": {"type": "string", "description": "The text (or regex) to find."},
                "paths": paths("Files or directories to search."),
                "regex": {"type": "boolean", "description": "Treat query as a Rust regex."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case."},
                "include_hidden": hidden()
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
        implementation_revision: 1,
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
        description: "Capture a hashed manifest of a tree (retained as @N), or the changes since an earlier snapshot.",
        schema: object(
            json!({
                "paths": paths("Roots to capture."),
                "depth": depth(),
                "include_hidden": hidden(),
                "baseline": {"type": ["string", "null"], "description": "An earlier snapshot reference (\"@N\") to diff against, or null to capture."}
            }),
            &["paths", "depth", "include_hidden", "baseline"],
        ),
        read_only: true,
        implementation_revision: 1,
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
        description: "Take a byte slice, a line slice, or search inside a retained result (@N) without re-running the tool.",
        schema: object(
            json!({
                "ref": {"type": "string", "description": "The retained result, e.g. \"@3\"."},
                "kind": {"type": "string", "enum": ["bytes", "lines", "search"], "description": "Slice bytes, slice lines, or search a byte window."},
                "offset": {"type": "integer", "minimum": 0, "description": "First byte (0-based; bytes and search) or line (1-based; lines)."},
                "length": {"type": "integer", "minimum": 1, "description": "Number of bytes (bytes, search) or lines (lines)."},
                "query": {"type": ["string", "null"], "description": "Text to find (search only), otherwise null."},
                "regex": {"type": "boolean", "description": "Treat query as a regex (search only)."}
            }),
            &["ref", "kind", "offset", "length", "query", "regex"],
        ),
        read_only: true,
        implementation_revision: 1,
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
        description: "Run a program with an argument vector (no shell; use program \"sh\" with args [\"-c\", …] to ask for one). Nonzero exits are results, not errors.",
        schema: object(
            json!({
                "program": {"type": "string", "description": "The executable, e.g. \"cargo\"."},
                "args": {"type": "array", "items": {"type": "string"}, "description": "Arguments after the program name."},
                "cwd": {"type": "string", "description": "Working directory, relative to the session's (\".\" for it)."},
                "env": {"type": "array", "items": {"type": "string"}, "description": "Environment changes: \"NAME=value\" sets, \"-NAME\" removes."},
                "stdin": {"type": ["string", "null"], "description": "Text for standard input, or null for none."},
                "timeout_ms": {"type": ["integer", "null"], "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds, or null for the configured default."}
            }),
            &["program", "args", "cwd", "env", "stdin", "timeout_ms"],
        ),
        read_only: false,
        implementation_revision: 1,
        parse: |value| {
            let raw: RawExecArgs = typed(value)?;
            Ok(ToolArgs::Exec(ExecArgs::try_from(raw)?))
        },
    }
}

fn edit() -> ToolSpec {
    ToolSpec {
        name: "edit",
        description: "Replace exact text in a file. Each `old` must occur exactly once in the file as last read; if the file changed since, the edit conflicts instead of overwriting.",
        schema: object(
            json!({
                "path": {"type": "string", "description": "The file to edit."},
                "edits": {
                    "type": "array",
                    "description": "Replacements; they must not overlap.",
                    "items": object(
                        json!({
                            "old": {"type": "string", "description": "Exact existing text (non-empty, unique in the file)."},
                            "new": {"type": "string", "description": "Replacement text."}
                        }),
                        &["old", "new"],
                    )
                }
            }),
            &["path", "edits"],
        ),
        read_only: false,
        implementation_revision: 1,
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
        description: "Create, copy, move or remove files together; never overwrites an existing file.",
        schema: object(
            json!({
                "actions": {
                    "type": "array",
                    "description": "Actions to apply.",
                    "items": object(
                        json!({
                            "kind": {"type": "string", "enum": ["create", "copy", "move", "remove"], "description": "What to do."},
                            "path": {"type": "string", "description": "The file created, copied, moved or removed."},
                            "to": {"type": ["string", "null"], "description": "Destination for copy and move, otherwise null."},
                            "content": {"type": ["string", "null"], "description": "Content for create, otherwise null."}
                        }),
                        &["kind", "path", "to", "content"],
                    )
                }
            }),
            &["actions"],
        ),
        read_only: false,
        implementation_revision: 1,
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

/// The standard tools in the order providers see them.
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
        get_test_value(),
    ]
}

#[cfg(test)]
#[path = "standard_tests.rs"]
mod tests;
