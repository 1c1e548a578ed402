//! MCP tools in the registry: names, strict or not, admission by mode, results, approvals.

use ansa_mcp::Content;
use serde_json::{Value, json};

use super::*;
use crate::tools::{Mode, ToolArgs, ToolCallError, ToolRegistry};

fn spec(server: &str, tool: &str, schema: Value, read_only: bool) -> McpToolSpec {
    let name = offered_names(&[(server, tool)]).remove(0);
    McpToolSpec::new(
        name,
        server.into(),
        tool.into(),
        format!("{tool} of {server}"),
        schema,
        McpHints {
            read_only,
            ..McpHints::default()
        },
    )
}

fn loose() -> Value {
    json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
           "properties": {"message": {"type": "string", "description": "what to echo"}},
           "required": ["message"]})
}

fn strict() -> Value {
    json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
           "required": ["a", "b"], "additionalProperties": false})
}

#[test]
fn names_are_sanitised_cut_and_unique_deterministically() {
    let long = "t".repeat(80);
    let tools = [
        ("everything", "echo"),
        ("fs", "read.file"),
        ("fs", "read_file"),
        ("fs", "read/file"),
        ("srv", long.as_str()),
    ];
    let names = offered_names(&tools);
    assert_eq!(names[0], "mcp__everything__echo");
    // `read_file` is plain and untouched; the two that sanitise to it get hashed names.
    assert!(
        names[1].starts_with("mcp__fs__read_file_") && names[1].len() == 27,
        "{names:?}"
    );
    assert!(names[3].starts_with("mcp__fs__read_file_"), "{names:?}");
    assert_ne!(names[1], names[3]);
    assert_eq!(names[2], "mcp__fs__read_file");
    assert_eq!(names[4].len(), 64);
    for name in &names {
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        );
        assert!(name.len() <= 64);
    }
    let unique: std::collections::BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    // The same list gives the same names.
    assert_eq!(offered_names(&tools), names);
}

#[test]
fn a_colliding_pair_is_hashed_and_a_plain_name_stays() {
    let names = offered_names(&[("fs", "a.b"), ("fs", "x")]);
    assert_eq!(names, ["mcp__fs__a_b", "mcp__fs__x"]);
    let names = offered_names(&[("fs", "a.b"), ("fs", "a_b")]);
    assert!(
        names[0].starts_with("mcp__fs__a_b_") && names[0].len() == 21,
        "{names:?}"
    );
    assert_eq!(names[1], "mcp__fs__a_b");
}

#[test]
fn names_that_meet_across_servers_are_both_hashed() {
    // `__` separates server and tool and may be part of either: a server's tool can take the
    // very name of another server's tool, and both would be offered (and called) as one.
    let tools = [("a", "b__c"), ("a__b", "c"), ("a", "x")];
    let names = offered_names(&tools);
    assert_ne!(names[0], names[1], "{names:?}");
    assert!(names[0].starts_with("mcp__a__b__c_"), "{names:?}");
    assert!(names[1].starts_with("mcp__a__b__c_"), "{names:?}");
    assert_eq!(names[2], "mcp__a__x");
    assert_eq!(offered_names(&tools), names);
}

#[test]
fn a_non_strict_schema_is_sent_as_given_and_not_strict() {
    let mut registry = ToolRegistry::offline().unwrap();
    let standard = registry.provider_tools(Mode::Basic);
    registry.set_mcp(
        vec![
            spec("everything", "echo", loose(), false),
            spec("everything", "add", strict(), true),
        ],
        Vec::new(),
    );
    let tools = registry.provider_tools(Mode::Basic);
    // The standard tools come first, unchanged (the golden schema and cached prefix).
    assert_eq!(&tools[..standard.len()], &standard[..]);
    let echo = &tools[standard.len()];
    assert_eq!(echo.name, "mcp__everything__echo");
    assert!(!echo.strict);
    assert_eq!(echo.parameters, loose());
    let add = &tools[standard.len() + 1];
    assert!(add.strict);
    assert!(standard.iter().all(|t| t.strict));
}

#[test]
fn plan_mode_offers_and_admits_only_read_only_tools() {
    let mut registry = ToolRegistry::offline().unwrap();
    registry.set_mcp(
        vec![
            spec("s", "write", loose(), false),
            spec("s", "look", loose(), true),
        ],
        Vec::new(),
    );
    let names: Vec<String> = registry
        .provider_tools(Mode::Plan)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"mcp__s__look".to_owned()));
    assert!(!names.contains(&"mcp__s__write".to_owned()));
    let refused = registry
        .admit(Mode::Plan, "mcp__s__write", r#"{"message":"x"}"#)
        .unwrap_err();
    assert!(
        matches!(refused, ToolCallError::NotInMode { .. }),
        "{refused}"
    );
    let admitted = registry
        .admit(Mode::Plan, "mcp__s__look", r#"{"message":"x"}"#)
        .unwrap();
    let ToolArgs::Mcp(args) = admitted.args else {
        panic!("{admitted:?}")
    };
    assert_eq!((args.server.as_str(), args.tool.as_str()), ("s", "look"));
    assert_eq!(args.arguments["message"], "x");
}

#[test]
fn arguments_are_checked_against_a_strict_schema_and_must_be_an_object() {
    let mut registry = ToolRegistry::offline().unwrap();
    registry.set_mcp(
        vec![
            spec("e", "add", strict(), false),
            spec("e", "echo", loose(), false),
        ],
        vec![spec("gone", "old", loose(), false)],
    );
    let bad = registry
        .admit(Mode::Basic, "mcp__e__add", r#"{"a":1}"#)
        .unwrap_err();
    assert!(bad.to_string().contains("mcp__e__add"), "{bad}");
    assert!(
        registry
            .admit(Mode::Basic, "mcp__e__add", r#"{"a":1,"b":2}"#)
            .is_ok()
    );
    // A non-strict schema leaves the checking to the server, but never a non-object.
    assert!(
        registry
            .admit(Mode::Basic, "mcp__e__echo", r#"{"other":1}"#)
            .is_ok()
    );
    let not_object = registry
        .admit(Mode::Basic, "mcp__e__echo", "[1]")
        .unwrap_err();
    assert!(
        not_object.to_string().contains("JSON object"),
        "{not_object}"
    );
    let unknown = registry
        .admit(Mode::Basic, "mcp__e__gone", "{}")
        .unwrap_err();
    assert!(unknown.to_string().contains("mcp__e__echo"), "{unknown}");
}

fn retain_into(store: &mut Vec<Vec<u8>>) -> impl FnMut(Vec<u8>) -> Result<u64, String> + '_ {
    move |bytes| {
        store.push(bytes);
        Ok(store.len() as u64)
    }
}

#[test]
fn results_render_text_structured_media_resources_and_errors() {
    let mut kept = Vec::new();
    let content = vec![
        Content::Text("hello".into()),
        Content::Image {
            mime: "image/png".into(),
            data: vec![1, 2, 3],
        },
        Content::Resource {
            uri: "file:///a.txt".into(),
            mime: Some("text/plain".into()),
            text: Some("inside".into()),
            blob: None,
        },
        Content::ResourceLink {
            uri: "file:///b".into(),
            name: "b".into(),
            mime: None,
        },
    ];
    let structured = json!({"sum": 3});
    let out = render(
        false,
        content,
        Some(structured),
        16384,
        &mut retain_into(&mut kept),
    );
    assert!(
        out.text
            .starts_with("hello\n[image: image/png, 3 bytes, kept as @1"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("[resource file:///a.txt (text/plain)]\ninside")
    );
    assert!(out.text.contains("[resource link b: file:///b"));
    assert!(
        out.text
            .ends_with("structured content (JSON):\n{\"sum\":3}"),
        "{}",
        out.text
    );
    assert_eq!(kept, vec![vec![1, 2, 3]]);
    assert_eq!(out.retained, vec![1]);
    let err = render(
        true,
        vec![Content::Text("boom".into())],
        None,
        100,
        &mut retain_into(&mut kept),
    );
    assert!(err.is_error);
    assert!(
        err.text.starts_with("The MCP tool reported an error"),
        "{}",
        err.text
    );
    assert!(err.text.contains("boom"));
}

#[test]
fn a_large_result_is_cut_at_lines_and_kept_whole() {
    let mut kept = Vec::new();
    let big: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let out = render(
        false,
        vec![Content::Text(big.clone())],
        None,
        2000,
        &mut retain_into(&mut kept),
    );
    assert!(out.text.len() < 2600, "{}", out.text.len());
    assert!(out.text.contains("left out"), "{}", out.text);
    assert!(out.text.contains("evidence"), "{}", out.text);
    assert!(out.text.starts_with("line 1\n"));
    assert!(out.text.contains("line 5000"));
    assert_eq!(kept.last().map(Vec::as_slice), Some(big.as_bytes()));
    // Without room to keep it, the cut is said, never silent.
    let mut full = |_: Vec<u8>| -> Result<u64, String> { Err("the store is full".into()) };
    let out = render(false, vec![Content::Text(big)], None, 2000, &mut full);
    assert!(
        out.text.contains("could not be kept (the store is full)"),
        "{}",
        out.text
    );
}

#[test]
fn the_approval_shows_and_binds_server_tool_and_all_arguments() {
    let args = McpArgs {
        server: "everything".into(),
        tool: "echo".into(),
        arguments: json!({"message": "line one\nline two", "n": 1})
            .as_object()
            .cloned()
            .unwrap(),
        hints: McpHints::default(),
    };
    let approval = McpApproval::new(&args);
    assert_eq!(approval.summary, "call mcp everything echo");
    let request = approval.request(
        ansa_sessions::RequestId(1),
        ansa_sessions::CallId("c".into()),
        "mcp__everything__echo",
    );
    // Each row is one line (frontends page through rows as lines).
    assert!(
        request.actions.iter().all(|r| !r.contains('\n')),
        "{:?}",
        request.actions
    );
    let shown = request.actions.join("\n");
    assert!(shown.contains("line one\\nline two"), "{shown}");
    assert!(shown.contains("\"n\": 1"), "{shown}");
    assert!(shown.contains("everything") && shown.contains("echo"));
    assert_eq!(
        approval.digest,
        call_digest("everything", "echo", &args.arguments)
    );
    let mut other = args.arguments.clone();
    other.insert("n".into(), json!(2));
    assert_ne!(approval.digest, call_digest("everything", "echo", &other));
    assert_ne!(
        approval.digest,
        call_digest("everything", "add", &args.arguments)
    );
    assert_ne!(
        approval.digest,
        call_digest("other", "echo", &args.arguments)
    );
}

#[test]
fn structured_content_that_repeats_the_text_is_one_line_in_the_readable_view() {
    let mut kept = Vec::new();
    let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    // server-filesystem: the text, and `{"content": text}` beside it.
    let structured = json!({ "content": text });
    let out = render(
        false,
        vec![Content::Text(text.clone())],
        Some(structured.clone()),
        1 << 20,
        &mut retain_into(&mut kept),
    );
    assert!(
        out.text
            .contains("structured content (JSON):\n{\"content\":"),
        "the model gets both: {}",
        out.text
    );
    assert!(
        out.readable.starts_with("line 1\nline 2\n"),
        "{}",
        out.readable
    );
    assert!(
        out.readable.ends_with(
            "line 50\nstructured content (JSON): the same as the text above (Tab shows it as the model got it)"
        ),
        "{}",
        out.readable
    );
    assert_eq!(out.readable.lines().count(), 51);
    // The tail is the content's end, not the structured copy.
    assert_eq!(out.tail, vec!["line 48", "line 49", "line 50"]);
    assert_eq!(out.lines, 50);
    assert!(!out.cut);
    // server-everything's structured tools: the text is the JSON itself.
    let structured = json!({"temperature": 22.5, "conditions": "sunny"});
    let out = render(
        false,
        vec![Content::Text(structured.to_string())],
        Some(structured.clone()),
        1 << 20,
        &mut retain_into(&mut kept),
    );
    assert!(
        out.readable
            .ends_with("the same as the text above (Tab shows it as the model got it)"),
        "{}",
        out.readable
    );
}

#[test]
fn structured_content_of_its_own_is_pretty_printed_in_the_readable_view() {
    let mut kept = Vec::new();
    let structured = json!({"sum": 42, "terms": ["a", "b"]});
    let out = render(
        false,
        vec![Content::Text("The sum is 42.".into())],
        Some(structured.clone()),
        1 << 20,
        &mut retain_into(&mut kept),
    );
    assert_eq!(
        out.readable,
        "The sum is 42.\nstructured content (JSON):\n{\n  \"sum\": 42,\n  \"terms\": [\n    \"a\",\n    \"b\"\n  ]\n}"
    );
    assert!(
        out.text
            .ends_with("structured content (JSON):\n{\"sum\":42,\"terms\":[\"a\",\"b\"]}"),
        "the model's view is unchanged: {}",
        out.text
    );
    assert_eq!(out.tail, vec!["The sum is 42."]);
    // A string that is not the text whole is something the text does not say.
    let out = render(
        false,
        vec![Content::Text("summary".into())],
        Some(json!({"detail": "more"})),
        1 << 20,
        &mut retain_into(&mut kept),
    );
    assert!(
        out.readable.ends_with("{\n  \"detail\": \"more\"\n}"),
        "{}",
        out.readable
    );
}

#[test]
fn a_cut_result_says_so_in_its_report_fields() {
    let mut kept = Vec::new();
    let big: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let out = render(
        false,
        vec![Content::Text(big)],
        None,
        2000,
        &mut retain_into(&mut kept),
    );
    assert!(out.cut);
    assert_eq!(out.lines, 5000);
    assert_eq!(out.tail, vec!["line 4998", "line 4999", "line 5000"]);
}
