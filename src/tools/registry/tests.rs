use serde_json::{Value, json};

use super::*;
use crate::tools::args::*;

fn registry() -> ToolRegistry {
    ToolRegistry::offline().unwrap()
}

fn admit(name: &str, arguments: Value) -> Result<ToolArgs, ToolCallError> {
    registry()
        .admit(Mode::Basic, name, &arguments.to_string())
        .map(|call| call.args)
}

fn invalid(name: &str, arguments: Value) -> (String, String, String) {
    match admit(name, arguments) {
        Err(err @ ToolCallError::InvalidArguments { .. }) => {
            let message = err.to_string();
            let ToolCallError::InvalidArguments { path, problem, .. } = err else {
                unreachable!()
            };
            (path, problem, message)
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

#[test]
fn plan_mode_offers_and_admits_only_read_only_tools() {
    let registry = registry();
    let plan: Vec<_> = registry
        .provider_tools(Mode::Plan)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        plan,
        [
            "read",
            "list",
            "search",
            "snapshot",
            "evidence",
            "get_test_value"
        ]
    );
    let args = json!({"program": "ls", "args": [], "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}).to_string();
    let err = registry.admit(Mode::Plan, "exec", &args).unwrap_err();
    assert!(matches!(
        err,
        ToolCallError::NotInMode {
            mode: Mode::Plan,
            ..
        }
    ));
    assert!(
        err.to_string()
            .starts_with("Tool `exec` is not available in plan mode"),
        "{err}"
    );
    assert!(registry.admit(Mode::Basic, "exec", &args).is_ok());
}

#[test]
fn unknown_tool_lists_the_available_ones() {
    let err = registry()
        .admit(Mode::Plan, "write_file", "{}")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Unknown tool `write_file`. Nothing was executed. Call one of the available tools: read, list, search, snapshot, evidence, get_test_value."
    );
}

#[test]
fn bad_json_reports_position() {
    let err = registry()
        .admit(Mode::Basic, "get_test_value", "{\"key\": \"a\",}")
        .unwrap_err();
    let ToolCallError::BadJson { line, column, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*line, *column), (1, 13));
    assert!(
        err.to_string().starts_with(
            "The arguments for tool `get_test_value` are not valid JSON: trailing comma"
        ),
        "{err}"
    );
    assert!(matches!(
        registry().admit(Mode::Basic, "get_test_value", ""),
        Err(ToolCallError::BadJson { .. })
    ));
    assert!(matches!(
        registry().admit(Mode::Basic, "get_test_value", "{\"key\":\"a\"} x"),
        Err(ToolCallError::BadJson { .. })
    ));
}

#[test]
fn strictness_errors_are_precise() {
    let read = json!({"paths": ["a"], "mode": "lines", "offset": 1, "length": 10});
    assert!(admit("read", read.clone()).is_ok());

    let mut extra = read.clone();
    extra["encoding"] = json!("utf8");
    let (path, problem, message) = invalid("read", extra);
    assert_eq!(
        (path.as_str(), problem.as_str()),
        ("", "unknown property `encoding`")
    );
    assert_eq!(
        message,
        "Invalid arguments for tool `read`: the arguments object: unknown property `encoding`. Nothing was executed. Fix: remove it; the allowed properties are `paths`, `mode`, `offset`, `length`."
    );

    let mut missing = read.clone();
    missing.as_object_mut().unwrap().remove("length");
    assert_eq!(
        invalid("read", missing).1,
        "missing required property `length`"
    );

    let mut wrong = read.clone();
    wrong["paths"] = json!("a");
    assert_eq!(
        invalid("read", wrong).1,
        "expected an array, got the string \"a\""
    );

    let mut bad_item = read.clone();
    bad_item["paths"] = json!(["a", 2]);
    assert_eq!(invalid("read", bad_item).0, "paths[1]");

    let mut bad_enum = read.clone();
    bad_enum["mode"] = json!("line");
    let (path, problem, _) = invalid("read", bad_enum);
    assert_eq!(
        (path.as_str(), problem.as_str()),
        ("mode", "must be one of \"lines\", \"bytes\", got \"line\"")
    );

    let mut null = read.clone();
    null["offset"] = Value::Null;
    assert!(
        invalid("read", null)
            .1
            .starts_with("is null, but null is not allowed here")
    );

    let mut negative = read;
    negative["offset"] = json!(-1);
    assert_eq!(
        invalid("read", negative).1,
        "-1 is out of range (must be at least 0)"
    );

    let (path, _, message) = invalid(
        "snapshot",
        json!({"paths": ["."], "depth": 2, "include_hidden": false}),
    );
    assert_eq!(path, "");
    assert!(
        message.contains(
            "add `baseline` as a string or null (it is nullable: pass null to leave it unset)"
        ),
        "{message}"
    );
    assert_eq!(
        invalid(
            "list",
            json!({"paths": ["."], "depth": 65, "include_hidden": false, "kind": "all"})
        )
        .0,
        "depth"
    );
    assert!(
        invalid("get_test_value", json!(["key"]))
            .1
            .starts_with("expected an object")
    );
}

#[test]
fn the_live_set_has_only_real_tools() {
    let live = ToolRegistry::standard().unwrap();
    assert!(live.get("get_test_value").is_none());
    assert!(
        ToolRegistry::for_profile(false)
            .unwrap()
            .get("get_test_value")
            .is_none()
    );
    assert!(
        ToolRegistry::for_profile(true)
            .unwrap()
            .get("get_test_value")
            .is_some()
    );
    let names: Vec<_> = live.tools(Mode::Basic).map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "read", "list", "search", "snapshot", "evidence", "exec", "edit", "files"
        ]
    );
}

#[test]
fn domain_rules_are_enforced() {
    assert_eq!(
        invalid(
            "read",
            json!({"paths": ["a"], "mode": "lines", "offset": 0, "length": 1})
        )
        .0,
        "offset"
    );
    assert!(
        admit(
            "read",
            json!({"paths": ["a"], "mode": "bytes", "offset": 0, "length": 1})
        )
        .is_ok()
    );
    assert_eq!(
        invalid(
            "read",
            json!({"paths": [], "mode": "bytes", "offset": 0, "length": 1})
        )
        .0,
        "paths"
    );
    let evidence = |kind: &str, query: Value| json!({"ref": "@2", "kind": kind, "offset": 1, "length": 4, "query": query, "regex": false, "case_insensitive": false});
    assert!(admit("evidence", evidence("search", json!("x"))).is_ok());
    assert_eq!(
        invalid("evidence", evidence("search", Value::Null)).0,
        "query"
    );
    assert_eq!(
        invalid("evidence", evidence("bytes", json!("x"))).0,
        "query"
    );
    let mut bad_ref = evidence("bytes", Value::Null);
    bad_ref["ref"] = json!("@0");
    assert_eq!(invalid("evidence", bad_ref).0, "ref");
    let edit = |old: &str| json!({"files": [{"path": "a.rs", "edits": [{"old": "x", "new": "y"}, {"old": old, "new": "z"}]}]});
    assert_eq!(invalid("edit", edit("")).0, "files[0].edits[1].old");
    let twice = json!({"files": [{"path": "a.rs", "edits": [{"old": "x", "new": "y"}]}, {"path": "a.rs", "edits": [{"old": "z", "new": "w"}]}]});
    assert_eq!(invalid("edit", twice).0, "files[1].path");
    assert_eq!(invalid("edit", json!({"files": []})).0, "files");
    // One journal holds at most 256 files: a larger edit could not be recovered after a crash.
    let many = |n: usize| {
        let files: Vec<Value> = (0..n)
            .map(|k| json!({"path": format!("f{k}.rs"), "edits": [{"old": "x", "new": "y"}]}))
            .collect();
        json!({ "files": files })
    };
    assert!(admit("edit", many(256)).is_ok());
    // An argument the kernel would refuse (E2BIG) is refused at admission.
    let exec = |arg: String| json!({"program": "echo", "args": [arg], "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null});
    assert!(admit("exec", exec("x".repeat(128 * 1024 - 1))).is_ok());
    assert_eq!(invalid("exec", exec("x".repeat(128 * 1024))).0, "args[0]");
    assert_eq!(invalid("edit", many(257)).0, "files");
    let files = |kind: &str, to: Value, content: Value| json!({"actions": [{"kind": kind, "path": "a", "to": to, "content": content}]});
    assert!(admit("files", files("create", Value::Null, json!(""))).is_ok());
    assert!(admit("files", files("move", json!("b"), Value::Null)).is_ok());
    assert_eq!(
        invalid("files", files("create", Value::Null, Value::Null)).0,
        "actions[0].content"
    );
    assert_eq!(
        invalid("files", files("copy", Value::Null, Value::Null)).0,
        "actions[0].to"
    );
    assert_eq!(
        invalid("files", files("remove", Value::Null, json!("x"))).0,
        "actions[0].content"
    );
}

#[test]
fn typed_arguments_come_out() {
    let exec = json!({"program": "cargo", "args": ["test"], "cwd": ".", "env": ["RUST_LOG=debug", "-HOME"], "stdin": null, "timeout_ms": 5000, "outside_sandbox": null});
    let ToolArgs::Exec(args) = admit("exec", exec).unwrap() else {
        panic!()
    };
    assert_eq!(
        args.env,
        vec![
            EnvChange::Set {
                name: "RUST_LOG".into(),
                value: "debug".into()
            },
            EnvChange::Unset {
                name: "HOME".into()
            },
        ]
    );
    assert_eq!(args.timeout_ms, Some(5000));
    let bad_env = json!({"program": "x", "args": [], "cwd": ".", "env": ["A=1", "=1"], "stdin": null, "timeout_ms": null, "outside_sandbox": null});
    assert_eq!(invalid("exec", bad_env).0, "env[1]");
    let ToolArgs::Evidence(args) = admit("evidence", json!({"ref": "@12", "kind": "lines", "offset": 3, "length": null, "query": null, "regex": false, "case_insensitive": false})).unwrap() else { panic!() };
    assert_eq!(
        (args.reference.as_str(), args.kind, args.length),
        ("@12", EvidenceKind::Lines, None)
    );
    let ToolArgs::List(args) = admit(
        "list",
        json!({"paths": ["src"], "depth": 1, "include_hidden": true, "kind": "dirs"}),
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!((args.depth, args.kind), (1, ListKind::Dirs));
}

#[test]
fn registration_rejects_bad_tools() {
    let mut registry = registry();
    let spec = |name: &'static str, schema: Value| ToolSpec {
        name,
        description: "d",
        schema,
        read_only: true,
        implementation_revision: 1,
        unoffered_defaults: &[],
        parse: |_| {
            Ok(ToolArgs::GetTestValue(GetTestValueArgs {
                key: String::new(),
            }))
        },
    };
    let ok =
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
    let unknown = json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}, "required": ["a"], "additionalProperties": false});
    let err = registry.register(spec("custom", unknown)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `custom`: schema at `/properties/a`: unknown schema keyword `format`"
    );
    assert!(matches!(
        registry.register(spec("read", ok.clone())),
        Err(RegistryError::Duplicate { .. })
    ));
    assert!(matches!(
        registry.register(spec("Bad-Name", ok.clone())),
        Err(RegistryError::BadName { .. })
    ));
    assert!(matches!(
        registry.register(spec("s", json!({"type": "string"}))),
        Err(RegistryError::NotAnObject { .. })
    ));
    registry.register(spec("custom", ok)).unwrap();
    assert_eq!(
        registry.provider_tools(Mode::Plan).last().unwrap().name,
        "custom"
    );
}

#[test]
fn exec_offers_the_sandbox_argument_only_in_a_sandboxed_session() {
    let schema_of = |sandbox| {
        ToolRegistry::for_session(false, sandbox)
            .unwrap()
            .provider_tools(Mode::Basic)
            .into_iter()
            .find(|t| t.name == "exec")
            .unwrap()
            .parameters
    };
    let plain = schema_of(crate::tools::SandboxArgument::Absent);
    assert!(plain["properties"].get("outside_sandbox").is_none());
    assert!(
        !plain["required"]
            .as_array()
            .unwrap()
            .contains(&json!("outside_sandbox"))
    );
    let sandboxed = schema_of(crate::tools::SandboxArgument::Offered);
    assert!(sandboxed["properties"].get("outside_sandbox").is_some());
    assert!(
        sandboxed["required"]
            .as_array()
            .unwrap()
            .contains(&json!("outside_sandbox"))
    );
}

#[test]
fn an_unoffered_sandbox_argument_is_dropped_when_default_and_refused_otherwise() {
    let call = |outside: Value| {
        let mut args = json!({"program": "ls", "args": [], "cwd": ".", "env": [], "stdin": null, "timeout_ms": null});
        if !outside.is_string() {
            args["outside_sandbox"] = outside;
        }
        args.to_string()
    };
    let plain = ToolRegistry::for_session(false, crate::tools::SandboxArgument::Absent).unwrap();
    for default in [json!("absent"), Value::Null, json!(false)] {
        let ToolArgs::Exec(args) = plain
            .admit(Mode::Basic, "exec", &call(default))
            .unwrap()
            .args
        else {
            panic!("expected exec")
        };
        assert!(!args.outside_sandbox);
    }
    let err = plain
        .admit(Mode::Basic, "exec", &call(json!(true)))
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("outside_sandbox"), "{message}");
    assert!(message.contains("no OS sandbox"), "{message}");
    // In a sandboxed session the argument is required, as strict mode wants.
    let sandboxed =
        ToolRegistry::for_session(false, crate::tools::SandboxArgument::Offered).unwrap();
    assert!(
        sandboxed
            .admit(Mode::Basic, "exec", &call(json!("absent")))
            .is_err()
    );
    let ToolArgs::Exec(args) = sandboxed
        .admit(Mode::Basic, "exec", &call(json!(true)))
        .unwrap()
        .args
    else {
        panic!("expected exec")
    };
    assert!(args.outside_sandbox);
}
