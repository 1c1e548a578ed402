use serde_json::json;

use super::*;

fn compile(doc: serde_json::Value) -> Result<Schema, SchemaError> {
    Schema::compile(&doc)
}

fn strict(properties: serde_json::Value, required: &[&str]) -> serde_json::Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

#[test]
fn unknown_keyword_is_rejected_with_its_path() {
    let doc = strict(json!({"a": {"type": "string", "pattern": "x"}}), &["a"]);
    let err = compile(doc).unwrap_err();
    assert_eq!(err.path, "/properties/a");
    assert_eq!(err.reason, "unknown schema keyword `pattern`");
}

#[test]
fn non_strict_objects_are_rejected() {
    let lenient =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert!(
        compile(lenient)
            .unwrap_err()
            .reason
            .contains("additionalProperties: false")
    );
    let optional = strict(
        json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        &["a"],
    );
    assert!(
        compile(optional)
            .unwrap_err()
            .reason
            .contains("`b` is not in `required`")
    );
    let undeclared = strict(json!({"a": {"type": "string"}}), &["a", "c"]);
    assert!(
        compile(undeclared)
            .unwrap_err()
            .reason
            .contains("undeclared property `c`")
    );
}

#[test]
fn misplaced_and_malformed_keywords_are_rejected() {
    assert!(
        compile(json!({"type": "string", "items": {"type": "string"}}))
            .unwrap_err()
            .reason
            .contains("`items` is not allowed")
    );
    assert!(
        compile(json!({"type": "array"}))
            .unwrap_err()
            .reason
            .contains("needs `items`")
    );
    assert!(
        compile(json!({"type": ["string", "integer"]}))
            .unwrap_err()
            .reason
            .contains("[T, \"null\"]")
    );
    assert!(
        compile(json!({"type": "text"}))
            .unwrap_err()
            .reason
            .contains("unknown type")
    );
    assert!(
        compile(json!({"type": "string", "enum": ["a", 1]}))
            .unwrap_err()
            .reason
            .contains("is not a string")
    );
    assert!(
        compile(json!({"type": "integer", "minimum": 5, "maximum": 1}))
            .unwrap_err()
            .reason
            .contains("greater")
    );
    assert!(
        compile(json!({"description": "no type"}))
            .unwrap_err()
            .reason
            .contains("missing `type`")
    );
}

#[test]
fn nullable_types_accept_null_in_either_order() {
    for doc in [
        json!({"type": ["string", "null"]}),
        json!({"type": ["null", "string"]}),
    ] {
        let schema = compile(doc).unwrap();
        assert!(schema.validate(&json!(null)).is_ok());
        assert!(schema.validate(&json!("x")).is_ok());
        let err = schema.validate(&json!(3)).unwrap_err();
        assert_eq!(err.problem, "expected a string or null, got the number 3");
    }
}

#[test]
fn violations_carry_nested_paths() {
    let item = strict(json!({"old": {"type": "string"}}), &["old"]);
    let doc = strict(
        json!({"edits": {"type": "array", "items": item}}),
        &["edits"],
    );
    let schema = compile(doc).unwrap();
    let err = schema
        .validate(&json!({"edits": [{"old": "a"}, {"old": 7}]}))
        .unwrap_err();
    assert_eq!(err.path, "edits[1].old");
    assert_eq!(err.problem, "expected a string, got the number 7");
    let err = schema.validate(&json!({"edits": [{}]})).unwrap_err();
    assert_eq!(
        (err.path.as_str(), err.problem.as_str()),
        ("edits[0]", "missing required property `old`")
    );
}

#[test]
fn integers_ranges_and_enums() {
    let schema = compile(json!({"type": "integer", "minimum": 1, "maximum": 10})).unwrap();
    assert!(schema.validate(&json!(10)).is_ok());
    assert!(
        schema
            .validate(&json!(1.0))
            .unwrap_err()
            .problem
            .contains("expected an integer, got the number 1.0")
    );
    assert_eq!(
        schema.validate(&json!(0)).unwrap_err().problem,
        "0 is out of range (must be between 1 and 10)"
    );
    assert!(schema.validate(&json!(-3)).is_err());
    let schema = compile(json!({"type": "string", "enum": ["a", "b"]})).unwrap();
    let err = schema.validate(&json!("c")).unwrap_err();
    assert_eq!(err.problem, "must be one of \"a\", \"b\", got \"c\"");
}

#[test]
fn long_strings_are_not_echoed_in_full() {
    let schema = compile(json!({"type": "integer"})).unwrap();
    let err = schema.validate(&json!("x".repeat(500))).unwrap_err();
    assert!(err.problem.len() < 100, "{}", err.problem);
}
