//! Malformed scripted model turns never execute a tool and tell the model what was wrong.

use serde_json::json;

use crate::harness::World;

/// Runs one malformed turn followed by a text turn that echoes the first tool output (or the
/// note) back, and returns the final answer plus whether the marker file was created.
fn run(turns: serde_json::Value) -> (String, bool, Vec<serde_json::Value>) {
    let w = World::new();
    let script = w.script("bad.json", turns);
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("try it");
    let answer = s.answer(rid);
    let touched = w.ws().join("marker.txt").exists();
    let (_, events) = s.finish();
    (answer, touched, events)
}

fn create_marker() -> serde_json::Value {
    json!({"name": "files", "arguments": {"actions": [{"kind": "create", "path": "marker.txt", "to": null, "content": "ran"}]}})
}

#[test]
fn bad_json_arguments_run_nothing() {
    let (answer, touched, _) = run(json!([
        {"tool_calls": [create_marker(), {"name": "read", "arguments": "{\"paths\": [\"a\""}]},
        {"text": "0={{tool_output:0}} 1={{tool_output:1}}"}
    ]));
    assert!(!touched, "a tool ran from an inadmissible response");
    // Every refusal answers in the error shape: status, error word, why, next.
    assert!(
        answer.contains("0=s:invalid\nerror:not_run\nwhy:\"Not executed: call 2 (`read`)"),
        "{answer}"
    );
    assert!(
        answer.contains("1=s:invalid\nerror:invalid_argument\nwhy:\"The arguments for tool `read` are not valid JSON"),
        "{answer}"
    );
    assert!(answer.contains("\nnext:\""), "{answer}");
}

#[test]
fn an_unknown_tool_runs_nothing() {
    let (answer, touched, events) = run(json!([
        {"tool_calls": [create_marker(), {"name": "rm_rf", "arguments": {}}]},
        {"text": "{{tool_output:1}}"}
    ]));
    assert!(!touched);
    assert!(
        answer.starts_with(
            "s:invalid\nerror:unknown_tool\nwhy:\"Unknown tool `rm_rf`. Nothing was executed.\"\nnext:\"Call one of the available tools:"
        ),
        "{answer}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e["type"] == "tool_status" && e["status"] == "started")
    );
}

#[test]
fn a_schema_violation_runs_nothing() {
    let (answer, touched, _) = run(json!([
        {"tool_calls": [create_marker(), {"name": "read", "arguments": {"paths": ["a"], "mode": "pages", "offset": 1, "length": 1}}]},
        {"text": "{{tool_output:1}}"}
    ]));
    assert!(!touched);
    assert!(answer.contains("mode"), "{answer}");
}

#[test]
fn a_truncated_batch_runs_nothing() {
    let (answer, touched, events) = run(json!([
        {"raw": "{\"tool_calls\":[{\"name\":\"files\",\"arguments\":{\"actions\":[{\"kind\":\"cre"},
        {"text": "recovered"}
    ]));
    assert!(!touched);
    assert_eq!(answer, "recovered");
    assert!(!events.iter().any(|e| e["type"] == "tool_status"));
}

#[test]
fn a_huge_refused_argument_costs_a_bounded_journal_and_says_what_was_left_out() {
    // 8 MiB in a field whose refusal quotes the value: before, the journal held the argument
    // and the quoted reason in full (16 MiB and more).
    let big = "x".repeat(8 << 20);
    let w = World::new();
    let read = json!({"name": "read", "arguments": {"paths": ["a"], "mode": big, "offset": 1, "length": 5}});
    let script = w.script(
        "huge.json",
        json!([{"tool_calls": [read]}, {"text": "{{tool_output:0}}"}]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("read it");
    let answer = s.answer(rid);
    s.finish();
    assert!(
        answer.starts_with(
            "s:invalid\nerror:invalid_argument\nwhy:\"Invalid arguments for tool `read`"
        ),
        "{}",
        &answer[..200]
    );
    assert!(
        answer.len() < 16 * 1024,
        "the reason given to the model is bounded"
    );
    assert!(
        answer.contains("more bytes of this message not kept"),
        "{}",
        &answer[answer.len() - 300..]
    );
    let dir = crate::harness::only_session_dir(&w);
    let journal = crate::harness::journal_text(&dir);
    assert!(
        journal.len() < 256 * 1024,
        "journal of {} bytes for a refused call",
        journal.len()
    );
    assert!(journal.contains("more bytes of arguments not kept"));
}
