use serde_json::{Value, json};

use super::super::registry::{Mode, ToolRegistry};

fn registry() -> ToolRegistry {
    ToolRegistry::offline().unwrap()
}

/// The argument table of the spec, written independently of the schemas.
const SHAPES: &[(&str, &[(&str, &str)])] = &[
    (
        "read",
        &[
            ("paths", "array<string>"),
            ("mode", "string"),
            ("offset", "integer"),
            ("length", "integer|null"),
        ],
    ),
    (
        "list",
        &[
            ("paths", "array<string>"),
            ("depth", "integer"),
            ("include_hidden", "boolean"),
            ("kind", "string"),
        ],
    ),
    (
        "search",
        &[
            ("query", "string"),
            ("paths", "array<string>"),
            ("regex", "boolean"),
            ("case_insensitive", "boolean"),
            ("include_hidden", "boolean"),
        ],
    ),
    (
        "snapshot",
        &[
            ("paths", "array<string>"),
            ("depth", "integer"),
            ("include_hidden", "boolean"),
            ("baseline", "string|null"),
        ],
    ),
    (
        "evidence",
        &[
            ("ref", "string"),
            ("kind", "string"),
            ("offset", "integer"),
            ("length", "integer|null"),
            ("query", "string|null"),
            ("regex", "boolean"),
            ("case_insensitive", "boolean"),
        ],
    ),
    (
        "exec",
        &[
            ("program", "string"),
            ("args", "array<string>"),
            ("cwd", "string"),
            ("env", "array<string>"),
            ("stdin", "string|null"),
            ("timeout_ms", "integer|null"),
        ],
    ),
    ("edit", &[("files", "array<object>")]),
    ("files", &[("actions", "array<object>")]),
    ("get_test_value", &[("key", "string")]),
];

fn shape(schema: &Value) -> String {
    match &schema["type"] {
        Value::Array(types) => types
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect::<Vec<_>>()
            .join("|"),
        Value::String(t) if t == "array" => format!("array<{}>", shape(&schema["items"])),
        Value::String(t) => t.clone(),
        other => panic!("bad type {other}"),
    }
}

#[test]
fn standard_tools_have_exactly_the_spec_shapes() {
    let tools = registry().provider_tools(Mode::Basic);
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        SHAPES.iter().map(|(name, _)| *name).collect::<Vec<_>>()
    );
    for (tool, (_, props)) in tools.iter().zip(SHAPES) {
        let schema = &tool.parameters;
        assert_eq!(
            schema["additionalProperties"],
            json!(false),
            "{}",
            tool.name
        );
        let required: Vec<_> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            required,
            props.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
            "{}",
            tool.name
        );
        assert_eq!(
            schema["properties"].as_object().unwrap().len(),
            props.len(),
            "{}",
            tool.name
        );
        for (prop, expected) in *props {
            assert_eq!(
                shape(&schema["properties"][prop]),
                *expected,
                "{}.{prop}",
                tool.name
            );
        }
    }
    let file_item = &tools[6].parameters["properties"]["files"]["items"];
    assert_eq!(file_item["required"], json!(["path", "edits"]));
    assert_eq!(
        file_item["properties"]["edits"]["items"]["required"],
        json!(["old", "new"])
    );
    let action = &tools[7].parameters["properties"]["actions"]["items"];
    assert_eq!(action["required"], json!(["kind", "path", "to", "content"]));
    assert_eq!(
        action["properties"]["kind"]["enum"],
        json!(["create", "copy", "move", "remove"])
    );
    assert_eq!(
        tools[0].parameters["properties"]["mode"]["enum"],
        json!(["lines", "bytes"])
    );
    assert_eq!(
        tools[1].parameters["properties"]["kind"]["enum"],
        json!(["all", "files", "dirs"])
    );
    assert_eq!(
        tools[4].parameters["properties"]["kind"]["enum"],
        json!(["lines", "bytes", "search"])
    );
}

#[test]
fn provider_view_matches_the_golden_file() {
    let registry = registry();
    let view: Vec<Value> = registry
        .tools(Mode::Basic)
        .map(|tool| {
            json!({"name": tool.name(), "description": tool.description(), "read_only": tool.read_only(),
                   "implementation_revision": tool.implementation_revision(), "parameters": tool.schema()})
        })
        .collect();
    let actual = serde_json::to_string_pretty(&view).unwrap() + "\n";
    let golden = include_str!("../golden/standard_tools.json");
    if actual != golden && std::env::var_os("ANSA_BLESS").is_some() {
        std::fs::write(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/tools/golden/standard_tools.json"
            ),
            &actual,
        )
        .unwrap();
        return;
    }
    assert_eq!(
        actual, golden,
        "schema changed: review, bump implementation_revision if behaviour changed, rerun with ANSA_BLESS=1"
    );
}

#[test]
fn the_tools_that_get_a_checkpoint_are_exactly_the_writing_ones() {
    let writing: Vec<&str> = super::offline_specs()
        .iter()
        .map(|s| s.name)
        .filter(|n| super::can_change_workspace(n))
        .collect();
    // `delegate`: its children may write.
    assert_eq!(writing, ["exec", "edit", "files", "delegate"]);
    assert!(super::can_change_workspace("a_tool_no_one_has"));
}
